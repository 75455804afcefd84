// `state` of the Redis log, batched: the state calls of one turn (a thousand readers checking their quiet streams
// at the same instant) go as one script call, each stream answered as a call of its own would be, against a real
// redis-server. A stream whose key is broken fails alone, with the error its lone call gets.
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { MAX_STATES } from '../../lib/log/redis-state';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { scriptCalls, valueOrFailure } from './outcomes';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const PREFIX = `state-${process.pid}:`;
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_state_${++n}` });

let log: EventLog;
beforeEach(async () => {
  log = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000 });
  await log.state({ responseId: 'connect' }); // connected, so that a turn's calls are all made in that turn
});
afterEach(() => log.close());

/** Streams in every state a reader meets: none, leased with events, released, completed, cancelled, leased and empty. */
async function streamsOfEveryKind(): Promise<LogScope[]> {
  const [missing, leased, released, done, cancelled, empty] = [scope(), scope(), scope(), scope(), scope(), scope()];
  for (const s of [leased, released, done, cancelled]) {
    const { token } = await log.acquire(s, 60_000);
    await log.append(s, token, [created(s.responseId), delta(1)]);
    if (s === released) await log.release(s, token);
    if (s === done) await log.append(s, token, [completed(s.responseId, 2)]);
  }
  await log.cancel(cancelled);
  await log.acquire(empty, 60_000);
  return [missing!, leased!, released!, done!, cancelled!, empty!];
}

test('the state calls of one turn go as one script call, each stream answered as its lone call is', async () => {
  const streams = await streamsOfEveryKind();
  const alone = [];
  for (const s of streams) alone.push(await log.state(s)); // one at a time: each a call of its own
  const before = await scriptCalls(redis.admin);
  const together = await Promise.all(streams.map((s) => log.state(s)));
  expect((await scriptCalls(redis.admin)) - before).toBe(1);
  expect(together).toEqual(alone);
  // What each kind says, so that both ways are not wrong alike.
  expect(together[0]).toBeUndefined();
  expect(together[1]).toMatchObject({ lastSequenceNumber: 1, end: undefined, lease: { token: expect.any(Number) } });
  expect(together[2]).toEqual({ lastSequenceNumber: 1, end: undefined, lease: undefined });
  expect(together[3]).toMatchObject({ lastSequenceNumber: 2, end: 'completed' });
  expect(together[4]).toMatchObject({ lastSequenceNumber: 1, end: 'cancelled' });
  expect(together[5]).toMatchObject({ lastSequenceNumber: undefined, end: undefined, lease: { token: expect.any(Number) } });
});

test(`more than ${MAX_STATES} in one turn go in calls of at most ${MAX_STATES} streams`, async () => {
  const streams = Array.from({ length: MAX_STATES + 20 }, scope);
  await Promise.all(streams.slice(0, 40).map((s) => log.acquire(s, 60_000)));
  const before = await scriptCalls(redis.admin);
  const got = await Promise.all(streams.map((s) => log.state(s)));
  expect((await scriptCalls(redis.admin)) - before).toBe(2);
  expect(got.filter((st) => st !== undefined)).toHaveLength(40);
});

test("a stream whose meta key holds another type fails alone, with its lone call's error; the others are answered", async () => {
  const streams = await streamsOfEveryKind();
  const broken = scope();
  await redis.admin.set(redisStreamKeys(PREFIX, broken).meta, 'overwritten');
  const lone = await valueOrFailure(log.state(broken));
  expect(typeof lone).toBe('string'); // it failed
  const alone = [];
  for (const s of streams) alone.push(await log.state(s));
  const all = [...streams.slice(0, 3), broken, ...streams.slice(3)];
  const together = await Promise.all(all.map((s) => valueOrFailure(log.state(s))));
  expect(together).toEqual([...alone.slice(0, 3), lone, ...alone.slice(3)]);
});
