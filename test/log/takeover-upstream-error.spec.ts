// Issue 15, a takeover whose upstream fails: the producer crashed mid-stream, a reader with `upstream` claims
// the lapsed lease and asks the provider to continue, and that request fails: 500, a connection reset before
// any answer (a loopback socket that resets), a stream broken mid-way, a stream that stalls (with the
// config's idleTimeoutMs). Each reader ends with a typed error (never a hang, never an unhandled rejection);
// what it delivered is an exact prefix of the recording and is durable; the lease is given up so that another
// reader can try again, and that one (with a working upstream) ends the stream with exactly the recording.
// With two readers racing, the loser follows the winner's events from the log, then takes over itself.
import { createServer, type Server, type Socket } from 'node:net';
import { OpenAIRxError } from '../../lib/errors';
import { fromEventLog } from '../../lib/log/from-event-log';
import type { EventLog, LogScope } from '../../lib/log/types';
import type { Fault } from '../../testing/index';
import { recording } from '../helpers/fixtures';
import { collect, crashedProducer, type Outcome, seqs, stallCreate, takeoverStorePairs, takeoverSuite, untilLapsed } from './takeover-helpers';

jest.setTimeout(300_000);

const { sse, recorded, responseId, N } = recording('long-text');
/** How long the crashed producer's lease outlives it (its last renewal before the crash). */
const LAPSE_MS = 500;
const CRASH_AT = 60;

/** A loopback server that accepts each connection and resets it at once (ECONNRESET before any answer). */
let resetter: Server;
let resetURL: string;
const sockets = new Set<Socket>();
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
const transcripts: Record<string, string> = {};
for (const store of ['memory', 'redis']) for (const c of ['500', 'reset', 'broken', 'stall', 'race']) transcripts[`${store}_${c}`] = sse;
const stallAt = new Map<string, number>();

beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));
const suite = takeoverSuite({ transcripts, chunkDelayMs: 1, faults: stallCreate((model) => stallAt.get(model)) });
beforeAll(async () => {
  resetter = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => socket.resetAndDestroy());
  });
  await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
  const address = resetter.address();
  resetURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => resetter?.close(() => resolve()));
});

const good = () => ({ baseURL: suite.provider.baseURL, apiKey: 'sk-test' });
const resumes = () => suite.provider.requests.filter((r) => r.route === 'responses.stream');

/** Stream `owner`'s producer crashed at CRASH_AT (mid-stream) and its lease has lapsed. */
async function crashedAndLapsed(log: EventLog, owner: string, s: LogScope): Promise<void> {
  stallAt.set(owner, CRASH_AT + 1);
  await crashedProducer(log, suite.provider.baseURL, owner, s, CRASH_AT, LAPSE_MS);
  await untilLapsed(log, s);
}

/** A typed error of the library's own, retryable where a retry can help. */
function expectTyped(error: unknown, name: string): void {
  expect(error).toBeInstanceOf(OpenAIRxError);
  expect((error as Error).name).toBe(name);
}

/** What a reader delivered: a gap-free run of the recording starting after `from` (none twice, in order). */
function expectRun(r: Outcome, from: number): void {
  expect(r.events).toEqual(recorded.slice(from + 1, from + 1 + r.events.length));
}


interface Case {
  readonly name: string;
  /** The fault of the resume request (injected for the next request), when the provider answers it. */
  readonly fault?: Fault;
  /** The upstream config of the failing reader. */
  readonly upstream: () => { baseURL: string; apiKey: string; idleTimeoutMs?: number };
  /** The error the failing reader ends with. */
  readonly error: string;
  /** How many events of the continuation the failing reader delivers before its error. */
  readonly delivered: number;
}

const cases: Case[] = [
  { name: '500', fault: { type: 'status', status: 500 }, upstream: good, error: 'HTTPError', delivered: 0 },
  { name: 'reset', upstream: () => ({ baseURL: resetURL, apiKey: 'sk-test' }), error: 'NetworkError', delivered: 0 },
  { name: 'broken', fault: { type: 'drop', afterEvents: 50 }, upstream: good, error: 'StreamInterruptedError', delivered: 50 },
  { name: 'stall', fault: { type: 'stall', afterEvents: 30 }, upstream: () => ({ ...good(), idleTimeoutMs: 1500 }), error: 'IdleTimeoutError', delivered: 30 },
];

describe.each(takeoverStorePairs(() => suite.redis.url))('a takeover whose upstream fails (%s log)', (store, open) => {
  test.each(cases)('$name: the reader ends with a typed error, what it delivered is durable, and the next reader finishes the stream', async (c) => {
    const { a, b, close } = open();
    const owner = `${store}_${c.name}`;
    const s = { responseId, owner };
    try {
      await crashedAndLapsed(a, owner, s);
      const before = resumes().length;
      if (c.fault) suite.provider.inject(c.fault);
      const failing = await collect(fromEventLog(a, responseId, { owner, upstream: c.upstream(), leaseMs: 30_000, pollMs: 200 }));
      expectTyped(failing.error, c.error);
      expect(failing.events.length).toBeGreaterThanOrEqual(CRASH_AT + 1);
      expectRun(failing, -1);
      expect(failing.events).toHaveLength(CRASH_AT + 1 + c.delivered);
      // Everything it delivered is in the log (appended before the error), nothing past it.
      expect(await b.read(s, undefined)).toEqual(failing.events);
      const st = await b.state(s);
      expect(st?.end).toBeUndefined();

      // Another reader (on the other instance) tries again: it takes over (the lease was given up, or lapses)
      // and ends with the whole recording, continuing after what the failed takeover stored.
      const retry = await collect(fromEventLog(b, responseId, { owner, upstream: good(), leaseMs: 30_000, pollMs: 200 }));
      expect(retry.error).toBeUndefined();
      expect(retry.events).toEqual(recorded);
      const continued = resumes().slice(before).map((r) => r.query['starting_after']);
      expect(continued.at(-1)).toBe(String(CRASH_AT + c.delivered));
      expect(await a.read(s, undefined)).toEqual(recorded);
      expect(await a.state(s)).toMatchObject({ end: 'completed', lease: undefined, lastSequenceNumber: N - 1 });
      expect(unhandled).toEqual([]);
    } finally {
      await close();
    }
  });

  test('two readers racing when the winner\'s upstream breaks mid-way: the loser follows, then takes over; both deliver each event once, in order', async () => {
    const { a, b, close } = open();
    const owner = `${store}_race`;
    const s = { responseId, owner };
    try {
      await crashedAndLapsed(a, owner, s);
      const before = resumes().length;
      suite.provider.inject({ type: 'drop', afterEvents: 100 }); // the first continuation breaks, the second is whole
      const options = { owner, upstream: good(), leaseMs: 30_000, pollMs: 200 };
      const [one, two] = await Promise.all([collect(fromEventLog(a, responseId, options)), collect(fromEventLog(b, responseId, options))]);
      const [failed, finished] = one.error === undefined ? [two, one] : [one, two];
      expectTyped(failed.error, 'StreamInterruptedError');
      expect(seqs(failed.events)).toEqual(seqs(recorded.slice(0, CRASH_AT + 101)));
      expect(finished.error).toBeUndefined();
      expect(seqs(finished.events)).toEqual(seqs(recorded));
      expect(finished.events).toEqual(recorded);
      expect(resumes().slice(before).map((r) => r.query['starting_after'])).toEqual([String(CRASH_AT), String(CRASH_AT + 100)]);
      expect(await a.read(s, undefined)).toEqual(recorded);
      expect(unhandled).toEqual([]);
    } finally {
      await close();
    }
  });
});
