// The lease path of redisEventLog against a real redis-server: the acquires, renewals and releases of many
// streams asked for in one turn go to Redis as one script call per kind, and each stream still gets its own
// result (a held, lapsed, fenced or cancelled lease fails that stream only). Every lease script can run twice
// to the same effect (the log tries a call again when its reply was lost): an acquire carries a claim.
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { ACQUIRE, RELEASE, RENEW } from '../../lib/log/redis-lease-scripts';
import { CANCEL } from '../../lib/log/redis-scripts';
import type { EventLog, LogScope } from '../../lib/log/types';
import { created } from './contract';
import { scriptCalls, valueOrFailure } from './outcomes';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const PREFIX = `lease-${process.pid}:`;
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_lease_${++n}` });


let log: EventLog;
let other: EventLog; // another producer (as another process)
beforeEach(async () => {
  log = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000 });
  other = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000 });
  await log.state({ responseId: 'connect' }); // connected, so that a turn's calls are all made in that turn
});
afterEach(async () => {
  await log.close();
  await other.close();
});

test("one turn's acquires are one script call; a stream whose lease another producer holds fails alone", async () => {
  const [a, b, c, d] = [scope(), scope(), scope(), scope()];
  const held = await other.acquire(b, 60_000);
  const earlier = await log.acquire(c, 1);
  await new Promise((r) => setTimeout(r, 50)); // c's lease lapsed: it may be taken over
  const before = await scriptCalls(redis.admin);
  const got = await Promise.all([a, b, c, d].map((s) => valueOrFailure(log.acquire(s, 30_000))));
  expect((await scriptCalls(redis.admin)) - before).toBe(1);

  expect(got[1]).toBe(`lease_held ${b.responseId}`);
  for (const k of [0, 2, 3]) {
    const lease = got[k] as { token: number; expiresAt: number };
    expect(lease.token).toBeGreaterThan(0);
    expect(lease.expiresAt).toBeGreaterThan(Date.now() - 60_000);
    const s = [a, b, c, d][k]!;
    expect((await log.state(s))?.lease).toEqual(lease);
    // Every key that exists has an expiry.
    for (const key of Object.values(redisStreamKeys(PREFIX, s))) expect(await redis.admin.pttl(key)).not.toBe(-1);
  }
  expect((got[2] as { token: number }).token).toBeGreaterThan(earlier.token);
  expect((await log.state(b))?.lease?.token).toBe(held.token);
  // The new holder's appends go in; the earlier holder of c is fenced.
  await log.append(c, (got[2] as { token: number }).token, [created(c.responseId)]);
  expect(await valueOrFailure(log.append(c, earlier.token, [created(c.responseId)]))).toBe(`fenced ${c.responseId}`);
});

test("one turn's renewals are one script call; a lapsed, a taken-over and a cancelled lease are fenced each on its own stream", async () => {
  const [ok, lapsed, taken, cancelled] = [scope(), scope(), scope(), scope()];
  const leases = await Promise.all([ok, lapsed, taken, cancelled].map((s) => log.acquire(s, s === lapsed || s === taken ? 1 : 60_000)));
  await new Promise((r) => setTimeout(r, 50));
  const takeover = await other.acquire(taken, 60_000);
  await other.cancel(cancelled);
  const before = await scriptCalls(redis.admin);
  const got = await Promise.all([ok, lapsed, taken, cancelled].map((s, k) => valueOrFailure(log.renew(s, leases[k]!.token, 60_000))));
  expect((await scriptCalls(redis.admin)) - before).toBe(1);

  const renewed = got[0] as { token: number; expiresAt: number };
  expect(renewed.token).toBe(leases[0]!.token);
  expect(renewed.expiresAt).toBeGreaterThanOrEqual(leases[0]!.expiresAt);
  expect(got.slice(1)).toEqual([`fenced ${lapsed.responseId}`, `fenced ${taken.responseId}`, `fenced ${cancelled.responseId}`]);
  expect((await log.state(taken))?.lease?.token).toBe(takeover.token);
  expect((await log.state(cancelled))?.end).toBe('cancelled');
  for (const key of Object.values(redisStreamKeys(PREFIX, ok))) expect(await redis.admin.pttl(key)).not.toBe(-1);
});

test("one turn's releases are one script call; a stale token's release leaves the new holder's lease alone", async () => {
  const [a, stale, c] = [scope(), scope(), scope()];
  const la = await log.acquire(a, 60_000);
  const old = await log.acquire(stale, 1);
  const lc = await log.acquire(c, 60_000);
  await new Promise((r) => setTimeout(r, 50));
  const current = await other.acquire(stale, 60_000);
  const before = await scriptCalls(redis.admin);
  await Promise.all([log.release(a, la.token), log.release(stale, old.token), log.release(c, lc.token)]);
  expect((await scriptCalls(redis.admin)) - before).toBe(1);

  expect((await log.state(a))?.lease).toBeUndefined();
  expect((await log.state(c))?.lease).toBeUndefined();
  expect((await log.state(stale))?.lease?.token).toBe(current.token);
  // Released streams can be taken at once, with greater tokens.
  const again = await Promise.all([log.acquire(a, 60_000), log.acquire(c, 60_000)]);
  expect(again[0].token).toBeGreaterThan(la.token);
  expect(again[1].token).toBeGreaterThan(lc.token);
});

test('a release not awaited is in Redis before whatever this process sends next, and before the log closes', async () => {
  const [a, b] = [scope(), scope()];
  const la = await log.acquire(a, 60_000);
  const lb = await log.acquire(b, 60_000);
  void log.release(a, la.token);
  await null; // a writer releases and its caller goes on (reads the state, closes the log) after a turn of microtasks
  expect((await log.state(a))?.lease).toBeUndefined();
  void log.release(b, lb.token);
  await log.close();
  expect((await other.state(b))?.lease).toBeUndefined();
});

test('a lone call has the same results', async () => {
  const s = scope();
  const lease = await log.acquire(s, 60_000);
  expect(await valueOrFailure(other.acquire(s, 60_000))).toBe(`lease_held ${s.responseId}`);
  expect((await log.renew(s, lease.token, 60_000)).token).toBe(lease.token);
  expect(await valueOrFailure(log.renew(s, lease.token + 1, 60_000))).toBe(`fenced ${s.responseId}`);
  await log.release(s, lease.token);
  expect((await log.state(s))?.lease).toBeUndefined();
});

test('a batch that times out past the retry budget fails each of its streams with its own unavailable error', async () => {
  // A timeout is tried again within retryBudgetMs: a short budget, so that the 20-s pause outlasts it.
  const slow = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, commandTimeoutMs: 200, retryBudgetMs: 500 });
  try {
    await slow.state({ responseId: 'connect' });
    const [a, b, c] = [scope(), scope(), scope()];
    await redis.admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
    const got = await Promise.all([a, b, c].map((s) => valueOrFailure(slow.acquire(s, 1000))));
    expect(got).toEqual([`unavailable ${a.responseId}`, `unavailable ${b.responseId}`, `unavailable ${c.responseId}`]);
  } finally {
    await redis.admin.call('CLIENT', 'UNPAUSE');
    await slow.close();
  }
});

describe('each lease script run twice (a reply lost, the call tried again) has the effect of one run', () => {
  const keysOf = (s: LogScope): string[] => Object.values(redisStreamKeys(PREFIX, s));
  const run = (script: string, s: LogScope, ...args: (string | number)[]): Promise<unknown> => redis.admin.eval(script, 3, ...keysOf(s), ...args);

  test('an acquire with the same claim answers the same lease; another claim finds it held', async () => {
    const s = scope();
    const first = (await run(ACQUIRE, s, 60_000, 30_000, 'claim-a')) as string[];
    expect(first[0]).toBe('ok');
    expect(await run(ACQUIRE, s, 60_000, 30_000, 'claim-a')).toEqual(first);
    expect(await run(ACQUIRE, s, 60_000, 30_000, 'claim-b')).toEqual(['lease_held', first[2], '']);
    // The log's own acquire (a claim of its own) too; the holder's appends go in under the first token.
    expect(await valueOrFailure(log.acquire(s, 60_000))).toBe(`lease_held ${s.responseId}`);
    await log.append(s, Number(first[1]), [created(s.responseId)]);
    expect((await log.state(s))?.lease?.token).toBe(Number(first[1]));
  });

  test('a renewal twice keeps the token; a release twice releases once and leaves the next holder alone; a cancel twice ends once', async () => {
    const s = scope();
    const lease = await log.acquire(s, 60_000);
    const renewed = (await run(RENEW, s, 60_000, lease.token, 60_000)) as string[];
    const again = (await run(RENEW, s, 60_000, lease.token, 60_000)) as string[];
    expect([renewed[0], renewed[1], again[0], again[1]]).toEqual(['ok', String(lease.token), 'ok', String(lease.token)]);
    await run(RELEASE, s, lease.token);
    const next = await other.acquire(s, 60_000);
    await run(RELEASE, s, lease.token); // the first release's repeat
    expect((await log.state(s))?.lease?.token).toBe(next.token);
    await run(CANCEL, s, 60_000);
    await run(CANCEL, s, 60_000);
    expect((await log.state(s))?.end).toBe('cancelled');
    expect(await redis.admin.xlen(redisStreamKeys(PREFIX, s).end)).toBe(1);
  });
});
