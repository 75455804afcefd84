// Shared by the takeover specs (takeover-*, kill-points, paused-writer, multiprocess): a producer that records a
// background stream from the loopback fake provider and "crashes" mid-stream (its release is lost, so its lease
// lapses on its own), a reader's outcome collected with its error as a value, and a script of test/log run in a
// process of its own (persist-producer.ts, takeover-reader.ts) with its stdout lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Observable } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { streamResponse } from '../../lib/http/transports';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { type Fault, startTestServer, type TestServer, type TestServerOptions } from '../../testing/index';
import { persistTo } from '../../operators/persistTo';
import { type RedisServer, startRedisServer } from './redis-server';

export interface Outcome {
  readonly events: ResponseStreamEvent[];
  readonly error: unknown;
  /** When it ended (Date.now()). */
  readonly at: number;
}

/** Everything a reader delivers, and how it ended (an error is a value here). */
export function collect(o: Observable<ResponseStreamEvent>): Promise<Outcome> {
  const events: ResponseStreamEvent[] = [];
  return new Promise((resolve) =>
    o.subscribe({
      next: (e) => events.push(e),
      error: (error: unknown) => resolve({ events, error, at: Date.now() }),
      complete: () => resolve({ events, error: undefined, at: Date.now() }),
    }),
  );
}

export const seqs = (events: readonly { sequence_number?: unknown }[]) => events.map((e) => e.sequence_number);
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Registers the hooks of a takeover spec: a beforeAll that starts a redis-server and the loopback fake provider
 * (with `options`), an afterAll that stops both. Its fields are there from the beforeAll on.
 */
export function takeoverSuite(options: TestServerOptions): { readonly redis: RedisServer; readonly provider: TestServer } {
  let redis: RedisServer | undefined;
  let provider: TestServer | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
    provider = await startTestServer(options);
  });
  afterAll(async () => {
    await provider?.close();
    await redis?.stop();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('takeoverSuite: read before its beforeAll ran');
    return v;
  };
  return {
    get redis() {
      return ready(redis);
    },
    get provider() {
      return ready(provider);
    },
  };
}

/**
 * The hooks of a spec whose writers run in processes of their own (startChild): takeoverSuite's redis-server and
 * fake provider, this process's redisEventLog on that server, and the children, every one still running killed
 * after (continued first, in case the test stopped it).
 */
export function childProcessSuite(options: TestServerOptions): { readonly redis: RedisServer; readonly provider: TestServer; readonly log: EventLog; readonly children: Set<ChildProcess> } {
  const children = new Set<ChildProcess>();
  let log: EventLog | undefined;
  // Declared before takeoverSuite's: jest runs afterAll hooks in their order, and the children and the log go first.
  afterAll(async () => {
    for (const c of children) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
    await log?.close();
  });
  const suite = takeoverSuite(options);
  beforeAll(() => {
    log = redisEventLog({ url: suite.redis.url, commandTimeoutMs: 30_000 }); // a busy machine may delay a command long
  });
  return {
    get redis() {
      return suite.redis;
    },
    get provider() {
      return suite.provider;
    },
    get log() {
      if (log === undefined) throw new Error('childProcessSuite: read before its beforeAll ran');
      return log;
    },
    children,
  };
}

/** The provider's faults: a create request for transcript (model) `m` stalls after `after(m)` events, if any, so that its producer is mid-stream when it "crashes". */
export const stallCreate =
  (after: (model: string) => number | undefined) =>
  (r: { route: string; body: unknown }): Fault | undefined => {
    if (r.route !== 'responses.create') return undefined;
    const n = after((r.body as { model?: string } | undefined)?.model ?? '');
    return n === undefined ? undefined : { type: 'stall', afterEvents: n };
  };

/** The logs a takeover spec runs on (for describe.each): the in-memory log, and a redisEventLog on `redisUrl()`. */
export const takeoverStores = (redisUrl: () => string) =>
  [
    ['memory', (): EventLog => memoryEventLog()],
    ['redis', (): EventLog => redisEventLog({ url: redisUrl(), commandTimeoutMs: 30_000 })],
  ] as const;

/** Two instances of each of those logs, as two processes would have them (the in-memory log: one, shared). */
export const takeoverStorePairs = (redisUrl: () => string) =>
  [
    ['memory', () => { const l = memoryEventLog(); return { a: l, b: l, close: () => l.close() }; }],
    [
      'redis',
      () => {
        const a = redisEventLog({ url: redisUrl(), commandTimeoutMs: 30_000 });
        const b = redisEventLog({ url: redisUrl(), commandTimeoutMs: 30_000 });
        return { a, b, close: async () => { await a.close(); await b.close(); } };
      },
    ],
  ] as const satisfies ReadonlyArray<readonly [string, () => { a: EventLog; b: EventLog; close: () => Promise<void> }]>;

/**
 * `log` as a producer that is going to crash sees it: its release is lost (so its lease can only lapse), and
 * `token()` is the token of the lease it acquired, for the test to make its last renewal with.
 */
export function crashingView(log: EventLog): { readonly log: EventLog; token(): number } {
  let token: number | undefined;
  return {
    log: {
      ...log,
      acquire: async (scope, ms) => {
        const lease = await log.acquire(scope, ms);
        token = lease.token;
        return lease;
      },
      release: async () => undefined,
    },
    token: () => {
      if (token === undefined) throw new Error('the producer never acquired its lease');
      return token;
    },
  };
}

/**
 * Streams transcript `model` from `baseURL` through persistTo into `log` until `point` is stored, then
 * crashes: the persistTo is unsubscribed with its release lost (no renewal, no release). The provider must
 * stall the create request after `point + 1` events, so that the producer is mid-stream. While it streams
 * its lease is long (a pause of a busy machine never lapses it early); at the crash its last renewal is made
 * `lapseMs` long, as if it had died just after renewing, so that the lease lapses soon without waiting long.
 */
export async function crashedProducer(log: EventLog, baseURL: string, model: string, s: LogScope, point: number, lapseMs: number): Promise<void> {
  let failure: unknown;
  const crashing = crashingView(log);
  const producer = streamResponse({ model, input: 'count', background: true }, { baseURL, apiKey: 'sk-test' })
    .pipe(persistTo(crashing.log, { owner: s.owner, leaseMs: 60_000, maxBatchDelayMs: 0 }))
    .subscribe({ error: (e: unknown) => (failure = e) });
  try {
    for (let i = 0; ; i++) {
      const last = (await log.state(s))?.lastSequenceNumber;
      if (last === point) break;
      if (failure !== undefined) throw new Error(`the producer failed at ${last}: ${String(failure)}`);
      if (i > 1000) throw new Error(`the producer never stored ${point} (at ${last})`);
      await log.wait(s, last, 200);
    }
  } finally {
    producer.unsubscribe();
  }
  await log.renew(s, crashing.token(), lapseMs);
}

/**
 * Once the lease holder is dead or stopped (a process killed or paused by the test): its lease, if still held,
 * is renewed with its own token for `lapseMs`, as if the holder had been stopped just after a renewal of that
 * length. So a holder lives under a long lease (a busy machine's pause never lapses it early) and its lease
 * still lapses soon after the test stops it. A lease that lapsed or was taken over meanwhile is left alone.
 */
export async function lapseSoon(log: EventLog, s: LogScope, lapseMs: number): Promise<void> {
  const lease = (await log.state(s))?.lease;
  if (lease === undefined) return;
  await log.renew(s, lease.token, lapseMs).catch((e: unknown) => {
    if (!(e instanceof EventLogError && e.reason === 'fenced')) throw e;
  });
}

/** Resolves once the stream's lease is gone (lapsed or released); fails after a generous bound. */
export async function untilLapsed(log: EventLog, s: LogScope): Promise<void> {
  for (let i = 0; (await log.state(s))?.lease !== undefined; i++) {
    if (i > 3000) throw new Error('the lease never lapsed');
    await sleep(20);
  }
}

/** A script of test/log running in a process of its own: its stdout lines so far, and its end. */
export interface Child {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Runs test/log/`script` under tsx with `args`; it stays in `children` (for afterAll to kill) until it closes. */
export function startChild(children: Set<ChildProcess>, script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, script), ...args], { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const lines: string[] = [];
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
    const parts = out.split('\n');
    out = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': after the exit the last lines of its stdout may still be on their way.
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, lines, exited, stderr: () => err };
}

/** Kills `p` with SIGKILL (as a crash would) and checks that it died of it. */
export async function killChild(p: Child): Promise<void> {
  p.child.kill('SIGKILL');
  expect((await p.exited).signal).toBe('SIGKILL');
}

/** Resolves once `log` holds events up to `seq` (watched with wait, not timed); fails after `ms` or if `p` exited. */
export async function untilStored(log: EventLog, s: LogScope, seq: number, p: Child, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const last = (await log.state(s))?.lastSequenceNumber;
    if (last !== undefined && last >= seq) return;
    if (Date.now() > deadline || p.child.exitCode !== null) {
      throw new Error(`${s.responseId} (owner ${s.owner ?? '-'}) never reached ${seq} (at ${last}): ${p.lines.slice(-3).join(' | ')} ${p.stderr()}`);
    }
    await log.wait(s, last, 1000);
  }
}

/**
 * The body of a script run by startChild (persist-producer.ts, takeover-reader.ts): runs `work` on a
 * redisEventLog of its own on `url`, prints `done`, or `error <describeError(e)>` if `work` failed, closes the log
 * and exits 0 (1 only if that fails). A `work` that neither settles nor has anything left to wait for (an Observable
 * that lost its end) prints `unsettled` and exits 1, instead of the process ending quietly after its last line.
 */
export function runChildScript(url: string, work: (log: EventLog) => Promise<void>, describeError: (e: unknown) => string): void {
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stdout.write('unsettled\n');
    exitAfterOutput(1);
  });
  const main = async (): Promise<void> => {
    // Generous: a busy machine may delay a command long (a dead Redis still fails its commands at once).
    const log = redisEventLog({ url, commandTimeoutMs: 10_000 });
    try {
      await work(log).finally(() => (settled = true));
      process.stdout.write('done\n');
    } catch (e) {
      process.stdout.write(`error ${describeError(e)}\n`);
    } finally {
      await log.close();
    }
  };
  main().then(
    () => exitAfterOutput(0),
    (e: unknown) => {
      console.error(e);
      exitAfterOutput(1);
    },
  );
}

/**
 * `process.exit(code)` once stdout and stderr have handed all that was printed to the test: process.exit drops
 * what a pipe has not taken yet, and a burst of lines (a woken-up reader's buffered events) fills the pipe
 * when the test is slow to read it (a loaded machine), so the last lines, `done` or `error …` among them, were lost.
 * An empty write's callback runs once every write before it is out.
 */
export function exitAfterOutput(code: number): void {
  let left = 2;
  const flushed = (): void => {
    if (--left === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}
