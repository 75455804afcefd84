// One stream's broken keys fail that stream alone, against a real redis-server: the appends and lease calls of
// one turn share a script call, and a stream whose keys were tampered with (a meta or events key overwritten
// with a string, an end stream that can take no entry, an events key evicted) fails with
// EventLogError('corrupt') naming its key, while every other stream of the same call is stored exactly once.
// A producer whose stream lost events it was told were stored fails with 'lost' naming both numbers.
import { EventLogError } from '../../lib/errors';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { aclUser } from './redis-acl';
import { outcome, scriptCalls } from './outcomes';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const PREFIX = `isolation-${process.pid}:`;
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_iso_${++n}` });
const seqs = (events: readonly { sequence_number?: number }[]): (number | undefined)[] => events.map((e) => e.sequence_number);

const failure = async (p: Promise<unknown>): Promise<EventLogError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof EventLogError) return e;
    throw e;
  }
  throw new Error('it did not fail');
};

let log: EventLog;
beforeEach(async () => {
  log = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000 });
  await log.state({ responseId: 'connect' }); // connected, so that a turn's calls are all made in that turn
});
afterEach(() => log.close());

/** Four streams, leased, each with events 0 and 1 stored. */
async function fourStreams(): Promise<{ streams: LogScope[]; tokens: number[] }> {
  const streams = [scope(), scope(), scope(), scope()];
  const tokens = (await Promise.all(streams.map((s) => log.acquire(s, 60_000)))).map((l) => l.token);
  await Promise.all(streams.map((s, k) => log.append(s, tokens[k]!, [created(s.responseId), delta(1)])));
  return { streams, tokens };
}

test("a meta key overwritten with a string fails its stream's append alone, in the same call as the others, naming the key", async () => {
  const { streams, tokens } = await fourStreams();
  const [a, b, c, d] = streams as [LogScope, LogScope, LogScope, LogScope];
  await redis.admin.set(redisStreamKeys(PREFIX, b).meta, 'overwritten');
  const before = await scriptCalls(redis.admin);
  const appends = streams.map((s, k) => log.append(s, tokens[k]!, [delta(2), delta(3)]));
  const got = await Promise.all(appends.map(outcome));
  expect(got).toEqual(['ok', `corrupt ${b.responseId}`, 'ok', 'ok']);
  expect((await scriptCalls(redis.admin)) - before).toBe(1);
  const e = await failure(appends[1]!);
  expect(e.message).toContain(redisStreamKeys(PREFIX, b).meta);
  expect(e.message).toContain('WRONGTYPE');
  for (const s of [a, c, d]) expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3]);
});

test('an events key overwritten with a string, or gone once events were stored (evicted), fails its stream alone', async () => {
  const { streams, tokens } = await fourStreams();
  const [a, b, c, d] = streams as [LogScope, LogScope, LogScope, LogScope];
  await redis.admin.set(redisStreamKeys(PREFIX, b).events, 'overwritten');
  await redis.admin.del(redisStreamKeys(PREFIX, c).events);
  const appends = streams.map((s, k) => log.append(s, tokens[k]!, [delta(2)]));
  expect(await Promise.all(appends.map(outcome))).toEqual(['ok', `corrupt ${b.responseId}`, `corrupt ${c.responseId}`, 'ok']);
  expect((await failure(appends[1]!)).message).toContain(redisStreamKeys(PREFIX, b).events);
  const evicted = await failure(appends[2]!);
  expect(evicted.message).toContain(redisStreamKeys(PREFIX, c).events);
  expect(evicted.message).toMatch(/missing/);
  expect(await redis.admin.exists(redisStreamKeys(PREFIX, c).events)).toBe(0); // not made again, without its events
  for (const s of [a, d]) expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2]);
});

test('a script that fails midway (an end stream that takes no entry) is sent again stream by stream: the others stored exactly once', async () => {
  const { streams, tokens } = await fourStreams();
  const [a, b, c, d] = streams as [LogScope, LogScope, LogScope, LogScope];
  // The end stream at the greatest id: XADD '*' fails with an error the script does not expect, after the
  // streams before b in the call were written.
  await redis.admin.xadd(redisStreamKeys(PREFIX, b).end, '18446744073709551615-18446744073709551615', 'x', 'y');
  const before = await scriptCalls(redis.admin);
  const appends = streams.map((s, k) => log.append(s, tokens[k]!, [delta(2), completed(s.responseId, 3)]));
  expect(await Promise.all(appends.map(outcome))).toEqual(['ok', `corrupt ${b.responseId}`, 'ok', 'ok']);
  expect((await scriptCalls(redis.admin)) - before).toBe(1 + 4); // the call, then each stream on its own
  expect((await failure(appends[1]!)).message).toContain(redisStreamKeys(PREFIX, b).end);
  for (const s of [a, c, d]) {
    expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3]);
    expect((await log.state(s))?.end).toBe('completed');
    expect(await redis.admin.xlen(redisStreamKeys(PREFIX, s).end)).toBe(1);
  }
  expect(seqs(await log.read(b, undefined))).toEqual([0, 1]);
});

test("a call Redis refuses for one stream's keys (an ACL) is sent again stream by stream: only that stream fails, as forbidden", async () => {
  const [a, b, c] = [scope(), scope(), scope()];
  const tag = (s: LogScope): string => redisStreamKeys(PREFIX, s).meta.replace(/:meta$/, '');
  // Every key of a and c; b's keys read-only.
  const url = await aclUser(redis.admin, redis.server.port, 'isolation', { keys: [`~${tag(a)}*`, `~${tag(c)}*`, `%R~${tag(b)}*`] });
  const limited = redisEventLog({ url, keyPrefix: PREFIX });
  try {
    const got = await Promise.all([a, b, c].map((s) => outcome(limited.acquire(s, 60_000))));
    expect(got).toEqual(['ok', `forbidden ${b.responseId}`, 'ok']);
    expect((await log.state(a))?.lease).toBeDefined();
    expect((await log.state(c))?.lease).toBeDefined();
  } finally {
    await limited.close();
  }
});

test('lease calls: a stream whose meta key is a string fails its acquire, renewal and release alone', async () => {
  const [a, b, c] = [scope(), scope(), scope()];
  const leases = await Promise.all([a, b, c].map((s) => log.acquire(s, 60_000)));
  await redis.admin.set(redisStreamKeys(PREFIX, b).meta, 'overwritten');
  const renewed = await Promise.all([a, b, c].map((s, k) => outcome(log.renew(s, leases[k]!.token, 60_000))));
  expect(renewed).toEqual(['ok', `corrupt ${b.responseId}`, 'ok']);
  const released = await Promise.all([a, b, c].map((s, k) => outcome(log.release(s, leases[k]!.token))));
  expect(released).toEqual(['ok', `corrupt ${b.responseId}`, 'ok']);
  const again = await Promise.all([a, b, c].map((s) => outcome(log.acquire(s, 60_000))));
  expect(again).toEqual(['ok', `corrupt ${b.responseId}`, 'ok']);
  expect((await failure(log.acquire(b, 60_000))).message).toContain(redisStreamKeys(PREFIX, b).meta);
});

test("a stream that lost events its producer was told were stored (a failover) fails the producer's next append with 'lost', naming both numbers", async () => {
  const s = scope();
  const other = scope();
  const { token } = await log.acquire(s, 60_000);
  const lease = await log.acquire(other, 60_000);
  await log.append(s, token, [created(s.responseId), delta(1)]);
  await log.append(s, token, [delta(2), delta(3)]);
  await log.append(other, lease.token, [created(other.responseId)]);
  // What a replica promoted before it had the last append holds: events up to 1 (the append's entries: 2-1, and
  // 3-1 holding the events after its first).
  const keys = redisStreamKeys(PREFIX, s);
  await redis.admin.xdel(keys.events, '2-1', '3-1');
  await redis.admin.hset(keys.meta, 'last', '1', 'count', '2');
  const [lost, fine] = await Promise.all([failure(log.append(s, token, [delta(4)])), outcome(log.append(other, lease.token, [delta(1)]))]);
  expect([lost.reason, lost.responseId]).toEqual(['lost', s.responseId]);
  expect(lost.message).toMatch(/up to sequence_number 1\b/);
  expect(lost.message).toMatch(/events up to 3\b/);
  expect(fine).toBe('ok');
  expect(seqs(await log.read(s, undefined))).toEqual([0, 1]); // nothing stored past the gap
  // A stream lost whole (its keys gone): lost too, not a new stream from 4 on.
  for (const k of Object.values(keys)) await redis.admin.del(k);
  expect((await failure(log.append(s, token, [delta(4)]))).reason).toBe('lost');
  expect(await log.read(s, undefined)).toEqual([]);
});

test("an ended stream, a replay and events past a terminal one never read as 'lost'", async () => {
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId), delta(1)]);
  await log.append(s, token, [delta(1), delta(2), completed(s.responseId, 3), delta(4)]); // 4 is not stored
  await log.append(s, token, [delta(5)]); // an ended stream: nothing to store, no error
  const c = scope();
  const l = await log.acquire(c, 60_000);
  await log.append(c, l.token, [created(c.responseId), delta(1)]);
  await log.cancel(c);
  expect(await outcome(log.append(c, l.token, [delta(2)]))).toBe(`fenced ${c.responseId}`);
  expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3]);
});
