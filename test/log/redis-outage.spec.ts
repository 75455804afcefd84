// Issue 15, "Redis restarted or unreachable in the middle", in one process with real redis-servers: a producer
// (persistTo over one redisEventLog) and a tailing reader (fromEventLog over another, as another process would
// have) while Redis hangs (the redis-server process stopped with SIGSTOP, continued with SIGCONT), is killed
// and restarted (append-only file fsynced always, so what it acknowledged survives), or blips (killed and
// restarted at once). Since issue 25 the log tries a transient failure again within `retryBudgetMs` (default
// 20 s; a restart within it is ridden through, see redis-restart.spec.ts): here every fault outlasts the budget
// (a small one, RETRY_BUDGET_MS), and both sides must end with typed errors (EventLogError 'unavailable',
// retryable) within about commandTimeoutMs plus that budget (generous bounds here, never a hang), no unhandled
// rejection, and after recovery every event the producer saw acknowledged is in the log, which holds an exact
// prefix of the stream.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { concatMap, from, map, Observable, of, timer } from 'rxjs';
import { EventLogError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { type RedisServer, startRedisServer } from './redis-server';
import { collect, lapseSoon, type Outcome, sleep } from './takeover-helpers';

jest.setTimeout(180_000);

const COMMAND_TIMEOUT_MS = 2000; // a busy 2-core machine must not look like an outage
/**
 * How long the logs here keep trying: small, so that a hang or an outage held for as long as a test needs
 * outlasts it and ends in 'unavailable' soon (with the default 20 s the tests would wait that long each time).
 */
const RETRY_BUDGET_MS = 3000;
/** The options of every log here. */
const LOG = { commandTimeoutMs: COMMAND_TIMEOUT_MS, retryBudgetMs: RETRY_BUDGET_MS } as const;
/** The producers' lease: long, so that no pause of a busy machine lapses it (a fenced producer is not an outage). */
const LEASE_MS = 30_000;
/** An outcome must come within this of the fault: far above the timeouts and the budget, far below jest's. */
const BOUND_MS = 60_000;
const DELTAS = 1500;

const eventsOf = (id: string): ResponseStreamEvent[] => [created(id), ...Array.from({ length: DELTAS }, (_, i) => delta(i + 1)), completed(id, DELTAS + 1)];
/** The events 2 ms apart, as a provider would send them: the stream is still going when the fault comes. */
const paced = (events: ResponseStreamEvent[]): Observable<ResponseStreamEvent> =>
  from(events).pipe(concatMap((e, k) => (k === 0 ? of(e) : timer(2).pipe(map(() => e)))));

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));

let dir: string;
let server: RedisServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'openai-rx-outage-'));
  server = await startRedisServer({ persistDir: dir });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The redis-server's process id, asked of Redis itself (INFO server), on a connection closed right after. */
async function redisPid(): Promise<number> {
  const admin = new Redis(server.url, { lazyConnect: true });
  await admin.connect();
  try {
    return Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  } finally {
    await admin.quit();
  }
}

/** How many connections Redis has besides the one asking (every log closed: none may be left behind). */
async function otherClients(): Promise<number> {
  const admin = new Redis(server.url, { lazyConnect: true });
  await admin.connect();
  try {
    return (String(await admin.client('LIST')).trim().split('\n').length) - 1;
  } finally {
    await admin.quit();
  }
}
afterEach(async () => {
  // The logs are closed in each test's finally: their connections (main, tail, blocking) are gone too.
  for (let i = 0; (await otherClients()) > 0 && i < 200; i++) await sleep(50);
  expect(await otherClients()).toBe(0);
});

interface Run {
  readonly producer: Promise<Outcome & { at: number }>;
  readonly reader: Promise<Outcome & { at: number }>;
  /** The sequence numbers of every append Redis acknowledged to the producer. */
  readonly acked: number[];
  readonly events: ResponseStreamEvent[];
  readonly logs: EventLog[];
}

const timed = (p: Promise<Outcome>) => p.then((o) => ({ ...o, at: Date.now() }));

/** A producer and a reader of stream `id` on two log instances; resolves once `atLeast` events are stored. */
async function start(id: string, atLeast: number): Promise<Run> {
  const a = redisEventLog({ url: server.url, ...LOG });
  const b = redisEventLog({ url: server.url, ...LOG });
  const acked: number[] = [];
  const acking: EventLog = {
    ...a,
    append: async (scope, token, events) => {
      await a.append(scope, token, events);
      for (const e of events) acked.push(e.sequence_number as number);
    },
  };
  const events = eventsOf(id);
  const reader = timed(collect(fromEventLog(b, id, { notFoundTimeoutMs: 30_000, pollMs: 500 })));
  const producer = timed(collect(paced(events).pipe(persistTo(acking, { leaseMs: LEASE_MS }))));
  const s = { responseId: id };
  for (let i = 0; ; i++) {
    const last = (await b.state(s))?.lastSequenceNumber;
    if (last !== undefined && last >= atLeast) break;
    if (i > 2000) throw new Error(`stream ${id} never reached ${atLeast}`);
    await sleep(10);
  }
  return { producer, reader, acked, events, logs: [a, b] };
}

function expectUnavailable(o: Outcome & { at: number }, since: number): void {
  expect(o.error).toBeInstanceOf(EventLogError);
  expect((o.error as EventLogError).reason).toBe('unavailable');
  expect((o.error as EventLogError).retryable).toBe(true);
  expect(o.at - since).toBeLessThan(BOUND_MS);
}

/** Reads the whole stream once Redis answers again (the log's client reconnects in the background). */
async function readWhenBack(log: EventLog, s: LogScope): Promise<ResponseStreamEvent[]> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    try {
      return await log.read(s, undefined);
    } catch (e) {
      if (!(e instanceof EventLogError) || e.reason !== 'unavailable' || Date.now() > deadline) throw e;
      await sleep(200);
    }
  }
}

/** Nothing acknowledged is lost, nothing is stored twice or out of order, nothing the reader delivered is missing. */
function expectDurable(stored: ResponseStreamEvent[], run: Run, reader: Outcome): void {
  expect(stored).toEqual(run.events.slice(0, stored.length));
  const ackedMax = Math.max(-1, ...run.acked);
  expect(run.acked.length).toBeGreaterThan(0);
  expect(stored.length).toBeGreaterThanOrEqual(ackedMax + 1);
  expect(reader.events).toEqual(run.events.slice(0, reader.events.length));
  expect(stored.length).toBeGreaterThanOrEqual(reader.events.length);
}

/**
 * After a fault that was over at `back` (a blip, a short pause): each side either carried on to an exact end
 * or ended with unavailable; nothing acknowledged is lost, and a producer that completed stored the whole
 * stream. Closes the run's logs.
 */
async function expectCarriedOnOrUnavailable(run: Run, id: string, back: number): Promise<void> {
  try {
    const [producer, reader] = await Promise.all([run.producer, run.reader]);
    for (const o of [producer, reader]) {
      if (o.error !== undefined) expectUnavailable(o, back);
      else expect(o.events).toEqual(run.events);
    }
    const stored = await readWhenBack(run.logs[1]!, { responseId: id });
    expectDurable(stored, run, reader);
    if (producer.error === undefined) expect(stored).toEqual(run.events); // it completed: durable, whole
    await sleep(100);
    expect(unhandled).toEqual([]);
  } finally {
    for (const l of run.logs) await l.close();
  }
}

test('Redis hung (SIGSTOP) mid-stream for longer than the retry budget: persistTo and fromEventLog end with unavailable, no hang; after SIGCONT every acknowledged event is there', async () => {
  const id = 'resp_sigstop';
  const run = await start(id, 100);
  const pid = await redisPid();
  process.kill(pid, 'SIGSTOP');
  const stopped = Date.now();
  let producer: Outcome & { at: number };
  let reader: Outcome & { at: number };
  try {
    [producer, reader] = await Promise.all([run.producer, run.reader]);
    expectUnavailable(producer, stopped);
    expectUnavailable(reader, stopped);
    // Calls made while it hangs fail the same way, in bounded time (not a not_found: Redis did not say so).
    const t = Date.now();
    const late = await collect(fromEventLog(run.logs[1]!, id, { notFoundTimeoutMs: 30_000 }));
    expectUnavailable({ ...late, at: Date.now() }, t);
    const fresh = await collect(fromEventLog(run.logs[1]!, 'resp_never_seen', { notFoundTimeoutMs: 30_000 }));
    expectUnavailable({ ...fresh, at: Date.now() }, t);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  try {
    const stored = await readWhenBack(run.logs[1]!, { responseId: id });
    expectDurable(stored, run, reader);
    expect(producer.events).toEqual(run.events.slice(0, producer.events.length)); // passed on unchanged up to its error
    // The producer is gone and the stream did not end: a new reader without upstream gets what is stored, then
    // the retryable interruption once the lease is gone (made to lapse 500 ms from now, as if the producer had
    // renewed it for that long just before it went).
    await lapseSoon(run.logs[1]!, { responseId: id }, 500);
    const after = await collect(fromEventLog(run.logs[1]!, id, { pollMs: 500 }));
    expect(after.error).toBeInstanceOf(StreamInterruptedError);
    expect(after.events).toEqual(await run.logs[1]!.read({ responseId: id }, undefined));
    await sleep(100);
    expect(unhandled).toEqual([]);
  } finally {
    for (const l of run.logs) await l.close();
  }
});

test('Redis hung before the stream starts, for longer than the retry budget: persistTo fails at its acquire with unavailable, a reader with unavailable, no hang', async () => {
  const a = redisEventLog({ url: server.url, ...LOG });
  const pid = await redisPid();
  await a.state({ responseId: 'resp_warm' }); // connected before the hang
  process.kill(pid, 'SIGSTOP');
  const t = Date.now();
  try {
    const events = eventsOf('resp_hung_start');
    const [producer, reader] = await Promise.all([
      collect(paced(events.slice(0, 20)).pipe(persistTo(a))),
      collect(fromEventLog(a, 'resp_hung_start', { notFoundTimeoutMs: 30_000 })),
    ]);
    for (const o of [producer, reader]) expectUnavailable({ ...o, at: Date.now() }, t);
    expect(reader.events).toEqual([]);
  } finally {
    process.kill(pid, 'SIGCONT');
    await a.close();
  }
  expect(unhandled).toEqual([]);
});

test('Redis killed mid-stream and down for longer than the retry budget: both end with unavailable while it is down; after the restart no acknowledged event is lost and the same log instances work again', async () => {
  const id = 'resp_restart';
  const run = await start(id, 100);
  await server.kill();
  const killed = Date.now();
  try {
    const [producer, reader] = await Promise.all([run.producer, run.reader]);
    expectUnavailable(producer, killed);
    expectUnavailable(reader, killed);
    await server.restart();
    const stored = await readWhenBack(run.logs[1]!, { responseId: id });
    expectDurable(stored, run, reader);
    // The same instances go on: a new stream through the producer's log, read through the reader's.
    const again = eventsOf('resp_after_restart').slice(0, 5).concat(completed('resp_after_restart', 5));
    const wrote = await collect(from(again).pipe(persistTo(run.logs[0]!)));
    expect(wrote.error).toBeUndefined();
    expect((await collect(fromEventLog(run.logs[1]!, 'resp_after_restart'))).events).toEqual(again);
    await sleep(100);
    expect(unhandled).toEqual([]);
  } finally {
    for (const l of run.logs) await l.close();
  }
});

// The blip and the pause are over within about the small budget here: riding through or a typed error are both
// right (with the default budget a restart is ridden through: redis-restart.spec.ts checks that).
test('a Redis blip (killed and restarted at once) mid-stream: each side either carries on to an exact end or ends with a typed error; nothing acknowledged is lost', async () => {
  const id = 'resp_blip';
  const run = await start(id, 100);
  await server.kill();
  await server.restart();
  await expectCarriedOnOrUnavailable(run, id, Date.now());
});

test('a short pause of Redis (SIGSTOP, SIGCONT soon after) mid-stream: each side either carries on to an exact end or ends with a typed error', async () => {
  const id = 'resp_pause';
  const run = await start(id, 100);
  const pid = await redisPid();
  process.kill(pid, 'SIGSTOP');
  await sleep(Math.floor(COMMAND_TIMEOUT_MS / 4));
  process.kill(pid, 'SIGCONT');
  await expectCarriedOnOrUnavailable(run, id, Date.now());
});

test("onWriteError 'continue': Redis hung mid-stream for longer than the retry budget, the stream still passes every event and completes; what was acknowledged stays in the log", async () => {
  const a = redisEventLog({ url: server.url, ...LOG });
  const id = 'resp_continue';
  const acked: number[] = [];
  const acking: EventLog = {
    ...a,
    append: async (scope, token, events) => {
      await a.append(scope, token, events);
      for (const e of events) acked.push(e.sequence_number as number);
    },
  };
  const events = eventsOf(id).slice(0, 400).concat(completed(id, 400));
  const passing = collect(paced(events).pipe(persistTo(acking, { leaseMs: LEASE_MS, onWriteError: 'continue' })));
  for (let i = 0; acked.length < 50; i++) {
    if (i > 3000) throw new Error('nothing acknowledged');
    await sleep(10);
  }
  const pid = await redisPid();
  process.kill(pid, 'SIGSTOP');
  try {
    const r = await passing;
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual(events);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  try {
    const stored = await readWhenBack(a, { responseId: id });
    expect(stored).toEqual(events.slice(0, stored.length));
    expect(stored.length).toBeGreaterThanOrEqual(Math.max(...acked) + 1);
    await sleep(100);
    expect(unhandled).toEqual([]);
  } finally {
    await a.close();
  }
});
