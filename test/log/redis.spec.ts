// redisEventLog against a real redis-server (test/log/redis-server.ts): the shared EventLog contract, then
// what only Redis has: hash slots, expiries, fencing inside the script, a server that dies and comes back, an
// application's own client, and several log instances (as several processes) on one server.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { EventLogError, InvalidOptionError } from '../../lib/errors';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, Lease, LogScope } from '../../lib/log/types';
import { completed, created, delta, describeEventLogContract, lapsedHolder, reasonOf } from './contract';
import { type RedisServer, redisForSuite, startRedisServer } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();

describeEventLogContract('redisEventLog', async (limits) => {
  const log = redisEventLog({ url: redis.server.url, ...limits });
  return { log, cleanup: () => log.close() };
});

let n = 0;
const scope = (owner?: string): LogScope => ({ responseId: `resp_redis_${process.pid}_${++n}`, ...(owner === undefined ? {} : { owner }) });
const seqs = (events: readonly { sequence_number?: number }[]) => events.map((e) => e.sequence_number);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every key under a prefix (SCAN, not KEYS). */
async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}

describe('redisEventLog on a Redis Cluster (one node owning every slot)', () => {
  let dir: string;
  let node: RedisServer;
  let cluster: Cluster;
  let direct: Redis;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-rx-cluster-'));
    node = await startRedisServer({ clusterDir: dir });
    cluster = new Cluster([{ host: '127.0.0.1', port: node.port }], { lazyConnect: true });
    await cluster.connect();
    direct = new Redis(node.url, { lazyConnect: true });
    await direct.connect();
  });
  afterAll(async () => {
    await cluster?.quit();
    await direct?.quit();
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every script and XREAD names all its keys, and they share a hash tag: a cross-slot command would fail here.
  describeEventLogContract('redisEventLog with an ioredis Cluster client', async (limits) => {
    const log = redisEventLog({ client: cluster, ...limits });
    return { log, cleanup: () => log.close() };
  });

  test('all keys of one response are in one hash slot (CLUSTER KEYSLOT), tagged {owner:responseId}; owners and ids with braces and colons stay apart', async () => {
    const prefix = `slot${n}:`;
    const log = redisEventLog({ client: cluster, keyPrefix: prefix });
    try {
      const odd: LogScope[] = [{ responseId: 'b:c', owner: 'a' }, { responseId: 'c', owner: 'a:b' }, { responseId: 'x}y{', owner: '{z}' }];
      for (const s of [scope('alice'), ...odd]) {
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId), delta(1)]);
        await log.cancel(s);
        const keys = Object.values(redisStreamKeys(prefix, s));
        const slots = await Promise.all(keys.map((k) => direct.cluster('KEYSLOT', k)));
        expect(new Set(slots).size).toBe(1);
        for (const k of keys) expect(await direct.exists(k)).toBe(1);
      }
      // Three different streams, not one: each kept its own two events.
      for (const s of odd) expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
      const keys = await keysUnder(direct, prefix);
      expect(keys.length).toBe(4 * 3);
      for (const k of keys) expect(k).toMatch(/^slot\d+:\{[^{}]*\}:(meta|events|end)$/);
    } finally {
      await log.close();
    }
    expect(cluster.status).toBe('ready');
  });
});

describe('redisEventLog: keys', () => {
  test('a keyPrefix with braces is refused', () => {
    expect(() => redisEventLog({ url: redis.server.url, keyPrefix: '{app}:' })).toThrow(InvalidOptionError);
  });
});

describe('redisEventLog: expiry', () => {
  let log: EventLog | undefined;
  afterEach(() => log?.close());

  test('every key has an expiry at every step: after acquire, while streaming, after the end', async () => {
    const prefix = `ttl${n}:`;
    log = redisEventLog({ url: redis.server.url, keyPrefix: prefix });
    const everyKeyExpires = async () => {
      const keys = await keysUnder(redis.admin, prefix);
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) expect(await redis.admin.pttl(k)).toBeGreaterThan(0);
    };
    const s = scope();
    const { token } = await log.acquire(s, 60_000);
    await everyKeyExpires();
    await log.append(s, token, [created(s.responseId), delta(1)]);
    await everyKeyExpires();
    await log.renew(s, token, 60_000);
    await log.append(s, token, [completed(s.responseId, 2)]);
    await log.release(s, token);
    await everyKeyExpires();
    const c = scope();
    await log.cancel(c);
    await everyKeyExpires();
    expect((await keysUnder(redis.admin, prefix)).length).toBe(3 + 2); // completed: meta, events, end; cancelled: meta, end
  });

  test('an ended stream vanishes after ttlMs; a live one after liveTtlMs without writes', async () => {
    const prefix = `gone${n}:`;
    log = redisEventLog({ url: redis.server.url, keyPrefix: prefix, ttlMs: 300, liveTtlMs: 600 });
    const ended = scope();
    const live = scope();
    const since = await redisNow(); // no key can expire before since + its TTL
    // Long leases while writing (a busy machine's pause must not lapse one before its append); the live stream's
    // last renewal short, which sets its keys' expiry back to liveTtlMs (it is the longer of liveTtlMs and 2 x lease).
    const a = await log.acquire(ended, 60_000);
    await log.append(ended, a.token, [created(ended.responseId), completed(ended.responseId, 1)]);
    const b = await log.acquire(live, 60_000);
    await log.append(live, b.token, [created(live.responseId)]);
    await log.renew(live, b.token, 100);
    // The five keys, each seen by one script (at one instant): an expiry within its TTL, or gone, which only
    // that TTL since `since` explains on a machine slow enough; and nothing else under the prefix.
    const e = redisStreamKeys(prefix, ended);
    const l = redisStreamKeys(prefix, live);
    const ttls = new Map([[e.meta, 300], [e.events, 300], [e.end, 300], [l.meta, 600], [l.events, 600]]);
    const script = `local out = {} for i = 1, #KEYS do out[i] = redis.call('PTTL', KEYS[i]) end local t = redis.call('TIME') return {t[1] * 1000 + math.floor(t[2] / 1000), out}`;
    const [now, pttls] = (await redis.admin.eval(script, ttls.size, ...ttls.keys())) as [number, number[]];
    expect([...ttls.values()].filter((ttl, i) => (pttls[i]! > 0 && pttls[i]! <= ttl) || (pttls[i] === -2 && now >= since + ttl))).toHaveLength(5);
    expect((await keysUnder(redis.admin, prefix)).filter((k) => !ttls.has(k))).toEqual([]);
    const deadline = Date.now() + 30_000;
    while ((await keysUnder(redis.admin, prefix)).length > 0 && Date.now() < deadline) await sleep(100);
    expect(await keysUnder(redis.admin, prefix)).toEqual([]);
    expect(await log.state(ended)).toBeUndefined();
    expect(await log.read(live, undefined)).toEqual([]);
  });
});

/** Redis's clock, in ms: the one its expiries follow. */
async function redisNow(): Promise<number> {
  const [sec, us] = await redis.admin.time();
  return Number(sec) * 1000 + Math.floor(Number(us) / 1000);
}

describe('redisEventLog: fencing', () => {
  let log: EventLog;
  afterEach(() => log?.close());

  test("a stale producer's append is refused inside the script: nothing of its batch is written, not even keys", async () => {
    const prefix = `fence${n}:`;
    log = redisEventLog({ url: redis.server.url, keyPrefix: prefix });
    const s = scope();
    const old = await lapsedHolder(log, s);
    const next = await log.acquire(s, 60_000);
    const { events, meta } = redisStreamKeys(prefix, s);
    const before = { len: await redis.admin.xlen(events), meta: await redis.admin.hgetall(meta) };
    expect(await reasonOf(log.append(s, old.token, [delta(1), delta(2), completed(s.responseId, 3)]))).toBe('fenced');
    expect({ len: await redis.admin.xlen(events), meta: await redis.admin.hgetall(meta) }).toEqual(before);
    await log.append(s, next.token, [delta(1)]);
    expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
    // A stream nobody acquired: a fenced append leaves no key behind.
    const none = scope();
    expect(await reasonOf(log.append(none, 1, [created(none.responseId)]))).toBe('fenced');
    expect(await keysUnder(redis.admin, redisStreamKeys(prefix, none).meta.replace(/:meta$/, ''))).toEqual([]);
  });
});

describe('redisEventLog: clients and instances', () => {
  test("an application's own client is used and left open by close(); blocking reads use duplicates of it", async () => {
    const own = new Redis(redis.server.url, { lazyConnect: true });
    await own.connect();
    try {
      const log = redisEventLog({ client: own });
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      const waiting = log.wait(s, undefined, 60_000);
      await sleep(50);
      await log.append(s, token, [created(s.responseId)]);
      expect(await waiting).toBe(true);
      await log.close();
      expect(own.status).toBe('ready');
      expect(await own.exists(redisStreamKeys('openai-rx:log:', s).events)).toBe(1);
      await expect(log.read(s, undefined)).rejects.toMatchObject({ reason: 'unavailable' });
    } finally {
      await own.quit();
    }
  });

  test("two log instances (as two processes) see each other's appends, leases and cancels; a reader's wait wakes on the other's append", async () => {
    const producer = redisEventLog({ url: redis.server.url });
    const reader = redisEventLog({ url: redis.server.url });
    try {
      const s = scope('tenant');
      const lease = await producer.acquire(s, 60_000);
      expect(await reasonOf(reader.acquire(s, 60_000))).toBe('lease_held');
      expect((await reader.state(s))?.lease?.token).toBe(lease.token);
      const waiting = reader.wait(s, undefined, 60_000);
      await sleep(50);
      await producer.append(s, lease.token, [created(s.responseId), delta(1)]);
      expect(await waiting).toBe(true);
      expect(seqs(await reader.read(s, undefined))).toEqual([0, 1]);
      const next = reader.wait(s, 1, 60_000);
      await sleep(50);
      await producer.append(s, lease.token, [delta(2)]);
      expect(await next).toBe(true);
      const ending = reader.wait(s, 2, 60_000);
      await sleep(50);
      await reader.cancel(s);
      expect(await ending).toBe(true);
      expect(await reasonOf(producer.append(s, lease.token, [delta(3)]))).toBe('fenced');
      expect(await producer.state(s)).toEqual({ lastSequenceNumber: 2, end: 'cancelled', lease: undefined });
    } finally {
      await producer.close();
      await reader.close();
    }
  });

  test('many concurrent waits, on one instance, all wake', async () => {
    const log = redisEventLog({ url: redis.server.url });
    try {
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      const waits = Array.from({ length: 8 }, () => log.wait(s, undefined, 60_000));
      await sleep(100);
      await log.append(s, token, [created(s.responseId)]);
      expect(await Promise.all(waits)).toEqual(Array(8).fill(true));
    } finally {
      await log.close();
    }
  });

  test('close() settles pending waits (false) and later calls fail with unavailable', async () => {
    const log = redisEventLog({ url: redis.server.url });
    const s = scope();
    const waiting = log.wait(s, undefined, 60_000);
    await sleep(100);
    await log.close();
    expect(await waiting).toBe(false);
    expect(await reasonOf(log.state(s))).toBe('unavailable');
  });
});

describe('redisEventLog across processes', () => {
  test('a child process produces while this one tails with wait/read; kill -9 of the child: its lease lapses, a new producer takes over with a greater token', async () => {
    const leaseMs = 5000;
    const s: LogScope = { responseId: `resp_child_${process.pid}_${++n}` };
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'redis-producer.ts'), redis.server.url, s.responseId, String(leaseMs)], {
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const log = redisEventLog({ url: redis.server.url });
    try {
      // Tails as a reader in another process would: wait, then read what came, until 10 events arrived.
      const seen: number[] = [];
      const deadline = Date.now() + 45_000;
      while (seen.length < 10) {
        if (Date.now() > deadline) throw new Error(`no events from the child: ${err}`);
        if (await log.wait(s, seen.at(-1), 5000)) for (const e of await log.read(s, seen.at(-1))) seen.push(e.sequence_number as number);
      }
      expect(seen).toEqual(seen.map((_, i) => i));
      const childToken = Number(out.trim());
      expect(childToken).toBeGreaterThan(0);
      expect(await reasonOf(log.acquire(s, 60_000))).toBe('lease_held');

      child.kill('SIGKILL');
      await exited;
      // Nothing released the lease: it lapses after leaseMs, then the stream can be taken over.
      let next: Lease | undefined;
      const until = Date.now() + 60_000;
      while (!next) {
        try {
          next = await log.acquire(s, 60_000);
        } catch (e) {
          if (!(e instanceof EventLogError) || e.reason !== 'lease_held' || Date.now() > until) throw e;
          await sleep(250);
        }
      }
      expect(next.token).toBeGreaterThan(childToken);
      const last = (await log.state(s))?.lastSequenceNumber as number;
      const stored = await log.read(s, undefined);
      expect(seqs(stored)).toEqual(stored.map((_, i) => i));
      // The new producer replays from where it knows (duplicates skipped) and ends the stream.
      await log.append(s, next.token, [delta(last), delta(last + 1), completed(s.responseId, last + 2)]);
      expect(await log.state(s)).toMatchObject({ lastSequenceNumber: last + 2, end: 'completed' });
      expect(seqs(await log.read(s, last - 1))).toEqual([last, last + 1, last + 2]);
    } finally {
      child.kill('SIGKILL');
      await exited;
      await log.close();
    }
  });
});

describe('redisEventLog: Redis dies and comes back', () => {
  let dir: string;
  let crashing: RedisServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-rx-redis-'));
    crashing = await startRedisServer({ persistDir: dir });
  });
  afterAll(async () => {
    await crashing?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('killed mid-stream: calls and a pending wait fail with unavailable in bounded time, no unhandled rejection; restarted: the same log goes on and no acknowledged event is lost', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const log = redisEventLog({ url: crashing.url, commandTimeoutMs: 1000, retryBudgetMs: 2000 }); // each call tries for 2 s, not 20
    try {
      const s = scope();
      const { token } = await log.acquire(s, 600_000);
      await log.append(s, token, [created(s.responseId), delta(1)]);
      const waiting = log.wait(s, 1, 600_000).then(() => 'resolved', (e: unknown) => e);
      await sleep(100);
      await crashing.kill();

      const started = Date.now();
      expect(await reasonOf(log.append(s, token, [delta(2)]))).toBe('unavailable');
      expect(await reasonOf(log.read(s, undefined))).toBe('unavailable');
      expect(await reasonOf(log.state(s))).toBe('unavailable');
      expect(await reasonOf(log.wait(s, 1, 600_000))).toBe('unavailable');
      const pending = await waiting;
      expect(pending).toBeInstanceOf(EventLogError);
      expect((pending as EventLogError).reason).toBe('unavailable');
      expect((pending as EventLogError).retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(30_000);

      await crashing.restart();
      // The client reconnects in the background: the producer retries until Redis answers again.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await log.append(s, token, [delta(1), delta(2)]);
          break;
        } catch (e) {
          if (!(e instanceof EventLogError) || e.reason !== 'unavailable' || Date.now() > deadline) throw e;
          await sleep(200);
        }
      }
      await log.append(s, token, [completed(s.responseId, 3)]);
      expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3]);
      expect((await log.state(s))?.end).toBe('completed');
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await log.close();
    }
  });

  test('a log whose Redis is not there at all fails with unavailable, does not hang, and closes cleanly', async () => {
    const log = redisEventLog({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 500, retryBudgetMs: 1000 });
    const s = scope();
    const started = Date.now();
    expect(await reasonOf(log.acquire(s, 1000))).toBe('unavailable');
    expect(await reasonOf(log.wait(s, undefined, 60_000))).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(30_000);
    await log.close();
  });
});
