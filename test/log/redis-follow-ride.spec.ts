// Live tails of redisEventLog riding through a failure of a single Redis (issue 25): the shared tail's blocking
// connection killed (CLIENT KILL), Redis restarted in place (append-only file fsynced always: what it
// acknowledged survives). Before, one failure failed every tailing reader at once with 'unavailable'; now each
// follower keeps its cursor and registers again after a backoff, within retryBudgetMs; past it, 'unavailable'.
// A reader that comes back to a stream holding less than it already delivered (events lost, as in a failover
// whose promoted replica lacked the last writes: simulated here by rewriting the stream with a direct client)
// ends with EventLogError('lost') naming both sequence numbers, never a gap or a repeat.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { tap } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { type RedisServer, startRedisServer } from './redis-server';
import { collect, type Outcome, sleep } from './takeover-helpers';

jest.setTimeout(180_000);

let dir: string;
let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'openai-rx-ride-'));
  server = await startRedisServer({ persistDir: dir });
  admin = new Redis(server.url, { lazyConnect: true, retryStrategy: () => 200, maxRetriesPerRequest: 20 });
  admin.on('error', () => undefined);
  await admin.connect();
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const logs: EventLog[] = [];
afterEach(async () => {
  for (const l of logs.splice(0)) await l.close();
});
const newLog = (options: { retryBudgetMs?: number; commandTimeoutMs?: number } = {}): EventLog => {
  const log = redisEventLog({ url: server.url, commandTimeoutMs: 2000, ...options });
  logs.push(log);
  return log;
};

let n = 0;
const fresh = (): LogScope => ({ responseId: `resp_ride_${process.pid}_${++n}` });
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const events = (s: LogScope, from: number, to: number): ResponseStreamEvent[] => range(from, to).map((k) => (k === 0 ? created(s.responseId) : delta(k)));

/** Ids of the clients blocked in an XREAD (CLIENT LIST: cmd=xread, flag b). */
async function blockedXreads(): Promise<string[]> {
  const list = String(await admin.client('LIST'));
  return list
    .split('\n')
    .filter((l) => / cmd=xread/.test(l) && / flags=\w*b/.test(l))
    .map((l) => /^id=(\d+)/.exec(l)?.[1] ?? '');
}
/** Kills the client blocked in an XREAD (the tail's connection), once one is (between two XREADs none is). */
async function killBlocked(): Promise<void> {
  let victim: string | undefined;
  await until(async () => (victim = (await blockedXreads())[0]) !== undefined, 'an XREAD blocked');
  await admin.client('KILL', 'ID', victim!);
}
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`not reached: ${what}`);
}

interface Reading {
  /** What it delivered so far. */
  readonly got: ResponseStreamEvent[];
  readonly outcome: Promise<Outcome>;
}
interface LiveStream extends Reading {
  readonly s: LogScope;
  readonly token: number;
}

/** A reader's outcome, and what it delivered so far. */
function reading(log: EventLog, s: LogScope, options: { startingAfter?: number; pollMs?: number } = {}): Reading {
  const got: ResponseStreamEvent[] = [];
  const outcome = collect(fromEventLog(log, s.responseId, { pollMs: 60_000, ...options }).pipe(tap((e) => got.push(e))));
  return { got, outcome };
}

/** `count` streams with a lease and events 0..`to` each, and their live readers (fromEventLog) on `reader`, caught up. */
async function liveStreams(writer: EventLog, reader: EventLog, count: number, to: number): Promise<LiveStream[]> {
  const streams: LiveStream[] = [];
  for (let i = 0; i < count; i++) {
    const s = fresh();
    const { token } = await writer.acquire(s, 120_000);
    await writer.append(s, token, events(s, 0, to));
    streams.push({ s, token, ...reading(reader, s) });
  }
  await until(async () => streams.every((x) => x.got.length === to + 1) && (await blockedXreads()).length === 1, 'the readers caught up and tailing');
  return streams;
}

test('the shared blocking connection killed (CLIENT KILL) mid-follow, three times: every reader continues exactly', async () => {
  const writer = newLog();
  const reader = newLog();
  const streams = await liveStreams(writer, reader, 10, 9);
  for (let k = 1; k <= 3; k++) {
    await killBlocked();
    for (const { s, token } of streams) await writer.append(s, token, events(s, k * 10, k * 10 + 9));
    await until(async () => (await blockedXreads()).length === 1, 'the shared tail blocked again');
  }
  for (const { s, token } of streams) await writer.append(s, token, [completed(s.responseId, 40)]);
  for (const { s, outcome } of streams) {
    const o = await outcome;
    expect({ id: s.responseId, error: o.error, seqs: seqs(o.events) }).toEqual({ id: s.responseId, error: undefined, seqs: range(0, 40) });
  }
});

test('Redis restarted in place mid-follow: every reader, and a wait, continues exactly once it is back (30 riding through at once: no listener-leak warning)', async () => {
  // Node warns past 10 'abort' listeners on one AbortSignal (the warning goes to the real process, out of
  // jest's reach): the most any signal held at once is counted instead.
  const held = new Map<EventTarget, number>();
  let most = 0;
  const add = jest.spyOn(AbortSignal.prototype, 'addEventListener').mockImplementation(function (this: AbortSignal, ...args) {
    const n = (held.get(this) ?? 0) + 1;
    held.set(this, n);
    most = Math.max(most, n);
    return EventTarget.prototype.addEventListener.apply(this, args);
  });
  const remove = jest.spyOn(AbortSignal.prototype, 'removeEventListener').mockImplementation(function (this: AbortSignal, ...args) {
    held.set(this, Math.max(0, (held.get(this) ?? 0) - 1));
    return EventTarget.prototype.removeEventListener.apply(this, args);
  });
  const writer = newLog();
  const reader = newLog();
  const streams = await liveStreams(writer, reader, 30, 9);
  const waiting = reader.wait(streams[0]!.s, 9, 60_000);
  await server.kill();
  await sleep(1500); // down for a while: the readers' tries fail (connection refused) and they keep trying
  await server.restart();
  for (const { s, token } of streams) await writer.append(s, token, [...events(s, 10, 19), completed(s.responseId, 20)]);
  expect(await waiting).toBe(true);
  for (const { s, outcome } of streams) {
    const o = await outcome;
    expect({ id: s.responseId, error: o.error, seqs: seqs(o.events) }).toEqual({ id: s.responseId, error: undefined, seqs: range(0, 20) });
  }
  add.mockRestore();
  remove.mockRestore();
  expect(most).toBeLessThanOrEqual(10);
});

test('Redis down past retryBudgetMs: followers, waits and reads end with a retryable unavailable; close() leaves nothing running', async () => {
  const writer = newLog();
  const reader = newLog({ retryBudgetMs: 1500, commandTimeoutMs: 1000 });
  const streams = await liveStreams(writer, reader, 3, 4);
  const waiting = reader.wait(streams[0]!.s, 4, 120_000).then(
    () => undefined,
    (e: unknown) => e,
  );
  await server.kill();
  try {
    for (const { s, outcome } of streams) {
      const o = await outcome;
      expect(seqs(o.events)).toEqual(range(0, 4));
      expect(o.error).toBeInstanceOf(EventLogError);
      expect({ reason: (o.error as EventLogError).reason, retryable: (o.error as EventLogError).retryable, id: (o.error as EventLogError).responseId }).toEqual({
        reason: 'unavailable',
        retryable: true,
        id: s.responseId,
      });
    }
    const w = await waiting;
    expect(w).toBeInstanceOf(EventLogError);
    expect((w as EventLogError).reason).toBe('unavailable');
    const r = await reader.read(streams[0]!.s, undefined).catch((e: unknown) => e);
    expect((r as EventLogError).reason).toBe('unavailable');
    expect((r as EventLogError).message).toMatch(/still failing after trying again for 1500 ms/);
  } finally {
    for (const l of logs.splice(0)) await l.close();
    await server.restart();
  }
  // jest's open-handle detection fails the suite if a retry timer or a connection outlived close().
});

describe('a reader that finds the log behind what it delivered ends with EventLogError lost', () => {
  /** Rewrites stream `s` as if the entries after `keep` never reached the replica that took over. */
  async function loseAfter(s: LogScope, keep: number, had: number): Promise<void> {
    const k = redisStreamKeys('openai-rx:log:', s);
    for (let i = keep + 1; i <= had; i++) await admin.xdel(k.events, `${i}-1`);
    await admin.hset(k.meta, 'last', String(keep), 'count', String(keep + 1));
  }

  test('a follower coming back after a failure (its connection killed), long before its next poll', async () => {
    const writer = newLog();
    const reader = newLog();
    const [{ s, token, got, outcome }] = (await liveStreams(writer, reader, 1, 5)) as [LiveStream];
    const watching = reading(reader, s, { startingAfter: 5 });
    await writer.append(s, token, events(s, 6, 8)); // handed to the readers by the follow itself
    await until(async () => got.length === 9 && watching.got.length === 3 && (await blockedXreads()).length === 1, 'the readers caught up');
    await loseAfter(s, 2, 8);
    const start = Date.now();
    await killBlocked();
    for (const [o, first] of [[await outcome, 0], [await watching.outcome, 6]] as const) {
      expect(seqs(o.events)).toEqual(range(first, 8)); // delivered before the loss, nothing after it
      expect(o.error).toBeInstanceOf(EventLogError);
      const e = o.error as EventLogError;
      expect({ reason: e.reason, id: e.responseId }).toEqual({ reason: 'lost', id: s.responseId });
      expect(e.message).toMatch(/sequence_number 2\b.*\b8 was already delivered/);
    }
    expect(Date.now() - start).toBeLessThan(50_000); // not the 60 s poll
  });

  test('not a reader whose startingAfter is past the end: after a failure it follows on and gets the events above it', async () => {
    const writer = newLog();
    const reader = newLog();
    const [{ s, token }] = (await liveStreams(writer, reader, 1, 3)) as [LiveStream];
    const ahead = reading(reader, s, { startingAfter: 6 });
    await sleep(300); // following (or about to)
    await killBlocked();
    await writer.append(s, token, [...events(s, 4, 8), completed(s.responseId, 9)]);
    const o = await ahead.outcome;
    expect({ error: o.error, seqs: seqs(o.events) }).toEqual({ error: undefined, seqs: [7, 8, 9] });
  });

  test('a reader checking the stream after a quiet poll (the wait / read path)', async () => {
    const writer = newLog();
    const reader = newLog();
    const s = fresh();
    const { token } = await writer.acquire(s, 120_000);
    await writer.append(s, token, events(s, 0, 5));
    const outcome = collect(fromEventLog(reader, s.responseId, { pollMs: 200 }));
    await until(async () => (await blockedXreads()).length === 1, 'the shared tail blocked');
    await loseAfter(s, 2, 5);
    const o = await outcome;
    expect(seqs(o.events)).toEqual(range(0, 5));
    expect((o.error as EventLogError).reason).toBe('lost');
    expect((o.error as EventLogError).message).toMatch(/sequence_number 2\b.*\b5 was already delivered/);
  });
});
