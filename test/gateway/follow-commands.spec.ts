// A gateway serving a stream from a real Redis (a redis-server of this file's own) to a reader: its Redis
// commands per delivered event, counted with INFO commandstats. The stream is written by another producer (a
// second redisEventLog, as another instance would), one event at a time, each awaited until the reader has it,
// so every event is a wake-up of its own whatever the machine's speed. With the log's `follow` passed through
// the gateway's metrics wrapper, the reader is one more consumer of the shared tail: about one XREAD per event
// and no read of its own. A wrapper that drops `follow` makes the reader poll: an XRANGE, a state script and a
// wait per event, four commands or more.
import type { Redis } from 'ioredis';
import { request, type IncomingMessage } from 'node:http';
import { EventLogError } from '../../lib/errors';
import { ownerOf } from '../../gateway/index';
import { GatewayMetrics } from '../../gateway/metrics';
import { canFollow } from '../../lib/log/follow';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, FollowHandlers, LogScope } from '../../lib/log/types';
import { completed, created, delta } from '../log/contract';
import { startRedisServer, xreadBlocked, type RedisServer } from '../log/redis-server';
import { startHarness, type Harness } from './helpers';
import { until } from './slow-client';

jest.setTimeout(300_000);

const AUTH = 'Bearer sk-test-follow-commands-0';
/** Events counted: many, so that the few commands a slow machine adds by the clock (a 1-s XREAD timeout, a check) weigh little. */
const N = 100;
/** Most Redis commands the gateway may spend per delivered event on a live reader: the shared tail's XREAD, and slack. */
const PER_EVENT = 1.5;

let redis: RedisServer | undefined;
let admin: Redis | undefined;
let gatewayLog: EventLog | undefined;
let producer: EventLog | undefined;
let h: Harness | undefined;
let res: IncomingMessage | undefined;
afterAll(async () => {
  res?.destroy();
  await h?.close();
  await gatewayLog?.close();
  await producer?.close();
  await admin?.quit();
  await redis?.stop();
});

/**
 * Calls per command since the server started (INFO commandstats, which counts the commands a script runs too),
 * without the INFO calls that read them. EVAL and EVALSHA are one: a script runner may send either.
 */
async function commandCalls(): Promise<Map<string, number>> {
  const text = (await admin!.info('commandstats')) as string;
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] === 'info') continue;
    const name = /^eval(sha)?(_ro)?$/.test(m[1]!) ? 'script' : m[1]!;
    calls.set(name, (calls.get(name) ?? 0) + Number(m[2]));
  }
  return calls;
}
const minus = (after: Map<string, number>, before: Map<string, number>): Map<string, number> =>
  new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v !== 0));
const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** A reader of the gateway's SSE answer: the `data:` frames as they come. */
function readEvents(r: IncomingMessage): { events: Record<string, unknown>[]; ended: () => boolean } {
  const events: Record<string, unknown>[] = [];
  let buffer = '';
  let ended = false;
  r.setEncoding('utf8');
  r.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined) events.push(JSON.parse(data) as Record<string, unknown>);
    }
  });
  r.on('end', () => (ended = true));
  return { events, ended: () => ended };
}

it(`a gateway reader of a live stream on Redis: at most ${PER_EVENT} Redis commands per delivered event, no XRANGE or state script per event`, async () => {
  redis = await startRedisServer();
  const { Redis } = await import('ioredis');
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
  gatewayLog = redisEventLog({ url: redis.url, commandTimeoutMs: 30_000 });
  producer = redisEventLog({ url: redis.url, commandTimeoutMs: 30_000 });
  h = await startHarness({ gateway: { log: gatewayLog, timeouts: { heartbeatMs: 0 } } });
  const owner = ownerOf(AUTH);

  // What the producer's own appends cost (no reader): subtracted from the count below.
  const lone: LogScope = { responseId: 'resp_follow_calibration', owner };
  const { token: loneToken } = await producer.acquire(lone, 300_000);
  await producer.append(lone, loneToken, [created(lone.responseId)]);
  const beforeAlone = await commandCalls();
  for (let i = 1; i <= N; i++) await producer.append(lone, loneToken, [delta(i)]);
  const perAppend = minus(await commandCalls(), beforeAlone);

  // The stream the reader follows: created, then read live through the gateway.
  const scope: LogScope = { responseId: 'resp_follow_commands', owner };
  const { token } = await producer.acquire(scope, 300_000);
  await producer.append(scope, token, [created(scope.responseId)]);
  res = await new Promise<IncomingMessage>((resolve, reject) => {
    request(new URL(`${h!.baseURL}/responses/${scope.responseId}?stream=true`), { headers: { authorization: AUTH } }, resolve).on('error', reject).end();
  });
  expect(res.statusCode).toBe(200);
  const reader = readEvents(res);
  await until(() => reader.events.length === 1, 'the created event at the reader');
  await xreadBlocked(admin); // the gateway's tail is blocked in XREAD: the reader is set up

  const before = await commandCalls();
  for (let i = 1; i <= N; i++) {
    await producer.append(scope, token, [delta(i)]);
    await until(() => reader.events.length === i + 1, `event ${i} at the reader`);
  }
  const during = minus(await commandCalls(), before);
  const gateway = new Map([...during].map(([k, v]) => [k, v - (perAppend.get(k) ?? 0)] as const).filter(([, v]) => v !== 0));

  await producer.append(scope, token, [completed(scope.responseId, N + 1)]);
  await until(() => reader.ended(), 'the end of the reader');
  expect(reader.events.map((e) => e['sequence_number'])).toEqual(Array.from({ length: N + 2 }, (_, i) => i));

  // Shown with every failure: what the gateway's commands were (a polling reader: N XRANGE, N state scripts
  // with the EXISTS, HMGET and TIME inside them, 2N XREAD, about 7 per event; a follower: N XREAD).
  const counted = Object.fromEntries(gateway);
  const perEvent = total(gateway) / N;
  expect({ counted, perEvent, atMost: perEvent <= PER_EVENT }).toEqual({ counted, perEvent, atMost: true });
  // No read or state check per event: the few there may be come from the clock (a follow quiet for a second).
  expect({ counted, fewReads: (gateway.get('xrange') ?? 0) < N / 4 }).toEqual({ counted, fewReads: true });
  expect({ counted, fewScripts: (gateway.get('script') ?? 0) < N / 4 }).toEqual({ counted, fewScripts: true });
  await producer.release(scope, token);
  await producer.release(lone, loneToken);
});

it("the metrics wrapper has follow exactly when the wrapped log has it, calls it with the same arguments, and counts a follow's failure", () => {
  const metrics = new GatewayMetrics(() => 0);
  try {
    const memory = memoryEventLog();
    expect(canFollow(metrics.measure(memory))).toBe(false);
    const calls: Array<[LogScope, number | undefined]> = [];
    let handlers: FollowHandlers | undefined;
    const unfollowed: string[] = [];
    const followable: EventLog = {
      ...memory,
      follow: (scope, after, h) => {
        calls.push([scope, after]);
        handlers = h;
        return () => unfollowed.push(scope.responseId);
      },
    };
    const measured = metrics.measure(followable);
    expect(canFollow(measured)).toBe(true);
    const got: string[] = [];
    const stop = measured.follow!({ responseId: 'resp_f' }, 3, {
      events: (batch) => got.push(...batch.map((e) => String(e.sequence_number))),
      end: () => got.push('end'),
      error: (e) => got.push(e.reason),
    });
    handlers!.events([delta(4)]);
    handlers!.end();
    handlers!.error(new EventLogError('unavailable', 'gone', 'resp_f'));
    stop();
    expect(calls).toEqual([[{ responseId: 'resp_f' }, 3]]);
    expect(got).toEqual(['4', 'end', 'unavailable']);
    expect(unfollowed).toEqual(['resp_f']);
    expect(metrics.snapshot().log.errors).toBe(1);
    void memory.close();
  } finally {
    metrics.stop();
  }
});
