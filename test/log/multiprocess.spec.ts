// Issue 15, "streams that outlive the process", across real processes: this jest process (B) runs redis-server
// (test/log/redis-server.ts) and the loopback fake provider; process A (test/log/persist-producer.ts, run with
// tsx) streams a background response from the provider through persistTo into Redis. B's readers
// (fromEventLog over their own redisEventLog) started before A's response exists and after must deliver every
// event exactly once, in order. A is killed with SIGKILL at seeded points: a reader with `upstream` takes over
// and ends with exactly the recording; without it, the readers end with StreamInterruptedError within about the
// lease time. Redis killed and restarted under A and B: typed errors, no hang, no unhandled rejection, no
// acknowledged event lost. No bound here depends on speed: they are generous, the kill points are watched in
// the log rather than timed, A streams under a long lease (a busy machine's pauses never lapse it while A
// lives) whose last renewal is made short once A is dead, and children are awaited on 'close'.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { EventLogError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog } from '../../lib/log/redis';
import { fixture, payloads } from '../helpers/fixtures';
import { type RedisServer, startRedisServer } from './redis-server';
import { prng } from '../helpers/prng';
import { type Child, childProcessSuite, collect, killChild, lapseSoon, seqs, sleep, stallCreate, startChild, untilStored } from './takeover-helpers';

jest.setTimeout(240_000);

/** A's lease, and a taker's: long, so that no pause of a busy machine lapses it while its holder lives. */
const LEASE_MS = 30_000;
/** How long a dead A's lease outlives it: its last renewal, made by the test once A is dead (see lapseSoon). */
const LAPSE_MS = 1000;
const CHUNK_DELAY = 5; // ms between the provider's events: a stream of ~400 events takes a few seconds
const SEED = 15;

const sse = fixture('long-text');
const recorded = payloads(sse);
const responseId = (recorded[0]!['response'] as { id: string }).id;
const N = recorded.length;

// The kill points are the same on every run of a seed (and printed in the test names).
const rnd = prng(SEED);
/** `k` points spread over the stream (one in each k-th of it, up to just before the terminal event). */
const points = (k: number): number[] => Array.from({ length: k }, (_, i) => 1 + Math.floor(((i + rnd()) * (N - 3)) / k));
// With upstream: right after response.created, then three seeded points; without: three seeded points.
const TAKEOVER_POINTS = [0, ...points(3)];
const INTERRUPT_POINTS = points(3);

/** Each run has a transcript name (the `model`) of its own, so that its create request gets its own fault. */
const stallAt = new Map<string, number>();
const transcripts: Record<string, string> = { long: sse };
const runName = (name: string, stallAfter?: number): string => {
  transcripts[name] = sse;
  if (stallAfter !== undefined) stallAt.set(name, Math.min(stallAfter, N - 1)); // never the terminal event
  return name;
};
for (const [i, p] of TAKEOVER_POINTS.entries()) runName(`up_${i}`, p + 40);
for (const [i, p] of INTERRUPT_POINTS.entries()) runName(`int_${i}`, p + 40);
runName('restart', 250);

// suite.log is process B's. The stalls only guarantee that A is still streaming when the test kills it at the point before.
const suite = childProcessSuite({ transcripts, chunkDelayMs: CHUNK_DELAY, faults: stallCreate((model) => stallAt.get(model)) });

/** Process A: persist-producer.ts under tsx, streaming transcript `model` into `url` as `owner`. */
const startProducer = (url: string, model: string, owner: string): Child =>
  startChild(suite.children, 'persist-producer.ts', [url, suite.provider.baseURL, model, owner, String(LEASE_MS)]);

const config = () => ({ baseURL: suite.provider.baseURL, apiKey: 'sk-test' });

test('a reader started before the response exists, one started mid-stream and one after the end each deliver every event exactly once, in order', async () => {
  const owner = 'plain';
  const before = collect(fromEventLog(suite.log, responseId, { owner, notFoundTimeoutMs: 60_000 }));
  const a = startProducer(suite.redis.url, 'long', owner);
  await untilStored(suite.log, { responseId, owner }, Math.floor(N / 3), a);
  const during = collect(fromEventLog(suite.log, responseId, { owner }));
  expect(await a.exited).toEqual({ code: 0, signal: null });
  expect(a.lines.at(-1)).toBe('done');
  const after = collect(fromEventLog(suite.log, responseId, { owner }));
  for (const r of [await before, await during, await after]) {
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual(recorded);
  }
  expect(await suite.log.state({ responseId, owner })).toMatchObject({ lastSequenceNumber: N - 1, end: 'completed', lease: undefined });
});

test(`kill -9 of process A at ${TAKEOVER_POINTS.join(', ')} (seed ${SEED}): B's readers with upstream take over and end with exactly the recording`, async () => {
  const streamsBefore = suite.provider.requests.filter((r) => r.route === 'responses.stream').length;
  const runs = TAKEOVER_POINTS.map(async (point, i) => {
    const owner = `up_${i}`;
    const s = { responseId, owner };
    const options = { owner, upstream: config(), leaseMs: LEASE_MS, notFoundTimeoutMs: 60_000 };
    const before = collect(fromEventLog(suite.log, responseId, options));
    const a = startProducer(suite.redis.url, `up_${i}`, owner);
    await untilStored(suite.log, s, point, a);
    await killChild(a);
    await lapseSoon(suite.log, s, LAPSE_MS);
    const killedAt = (await suite.log.state(s))?.lastSequenceNumber as number;
    expect(killedAt).toBeLessThan(N - 1);
    const after = collect(fromEventLog(suite.log, responseId, options));
    for (const r of [await before, await after]) {
      expect(r.error).toBeUndefined();
      expect(seqs(r.events)).toEqual(seqs(recorded));
      expect(r.events).toEqual(recorded);
    }
    // The log now holds the whole stream, ended: a reader without upstream replays it from Redis alone.
    const replay = await lastValueFrom(fromEventLog(suite.log, responseId, { owner }).pipe(toArray()));
    expect(replay).toEqual(recorded);
    expect((await suite.log.state(s))?.end).toBe('completed');
    return killedAt;
  });
  const killedAt = await Promise.all(runs);
  // One takeover per run: of its two readers, one got the lease and continued upstream, the other followed the log.
  const resumed = suite.provider.requests.filter((r) => r.route === 'responses.stream').slice(streamsBefore);
  expect(resumed).toHaveLength(TAKEOVER_POINTS.length);
  expect(resumed.map((r) => Number(r.query['starting_after'])).sort((x, y) => x - y)).toEqual([...killedAt].sort((x, y) => x - y));
});

test(`kill -9 of process A at ${INTERRUPT_POINTS.join(', ')} (seed ${SEED}): B's readers without upstream end with a retryable StreamInterruptedError within about the lease time`, async () => {
  const runs = INTERRUPT_POINTS.map(async (point, i) => {
    const owner = `int_${i}`;
    const s = { responseId, owner };
    const before = collect(fromEventLog(suite.log, responseId, { owner, notFoundTimeoutMs: 60_000 }));
    const a = startProducer(suite.redis.url, `int_${i}`, owner);
    await untilStored(suite.log, s, point, a);
    await killChild(a);
    await lapseSoon(suite.log, s, LAPSE_MS);
    const lapsing = Date.now(); // the lapse runs from here (or earlier)
    const after = collect(fromEventLog(suite.log, responseId, { owner }));
    const last = (await suite.log.state(s))?.lastSequenceNumber as number;
    for (const r of [await before, await after]) {
      expect(r.error).toBeInstanceOf(StreamInterruptedError);
      expect((r.error as StreamInterruptedError).retryable).toBe(true);
      expect((r.error as StreamInterruptedError).lastSequenceNumber).toBe(last);
      expect(r.events).toEqual(recorded.slice(0, last + 1));
      // The lease lapses LAPSE_MS after its last renewal; generous slack for a busy machine (but far below LEASE_MS).
      expect(r.at - lapsing).toBeLessThan(LAPSE_MS + 20_000);
    }
  });
  await Promise.all(runs);
});

describe('Redis killed and restarted under both processes', () => {
  let dir: string;
  let crashing: RedisServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-rx-mp-'));
    crashing = await startRedisServer({ persistDir: dir }); // AOF, fsync always: what Redis acknowledged survives
  });
  afterAll(async () => {
    await crashing?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('typed errors in A and B, no hang, no unhandled rejection; after the restart no acknowledged event is lost and a reader with upstream finishes the stream', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const b = redisEventLog({ url: crashing.url, commandTimeoutMs: 10_000 });
    const owner = 'restart';
    const s = { responseId, owner };
    try {
      const reading = collect(fromEventLog(b, responseId, { owner, notFoundTimeoutMs: 60_000 }));
      const a = startProducer(crashing.url, 'restart', owner);
      await untilStored(b, s, 100, a);
      await crashing.kill();
      const killed = Date.now();

      // B's reader and A's persistTo both end with the typed error, in bounded time.
      const r = await reading;
      expect(r.error).toBeInstanceOf(EventLogError);
      expect((r.error as EventLogError).reason).toBe('unavailable');
      expect((r.error as EventLogError).retryable).toBe(true);
      expect(r.at - killed).toBeLessThan(60_000);
      expect(await a.exited).toEqual({ code: 0, signal: null });
      expect(a.lines.at(-1)).toBe('error EventLogError unavailable');
      expect(Date.now() - killed).toBeLessThan(60_000);
      const acked = Math.max(...a.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4))));
      expect(acked).toBeGreaterThanOrEqual(100);
      expect(r.events).toEqual(recorded.slice(0, r.events.length));

      await crashing.restart();
      // The log's client reconnects in the background: read once Redis answers again.
      let stored: ResponseStreamEvent[] | undefined;
      const deadline = Date.now() + 60_000;
      while (!stored) {
        try {
          stored = await b.read(s, undefined);
        } catch (e) {
          if (!(e instanceof EventLogError) || e.reason !== 'unavailable' || Date.now() > deadline) throw e;
          await sleep(200);
        }
      }
      // Nothing A saw acknowledged, nor anything B delivered, is lost; what is stored is the recording's prefix.
      expect(stored.length).toBeGreaterThanOrEqual(acked + 1);
      expect(stored.length).toBeGreaterThanOrEqual(r.events.length);
      expect(stored).toEqual(recorded.slice(0, stored.length));

      // A is gone and its lease lapses: a reader with upstream continues the stream to its end.
      await lapseSoon(b, s, LAPSE_MS);
      const resumed = await collect(fromEventLog(b, responseId, { owner, upstream: config(), leaseMs: LEASE_MS }));
      expect(resumed.error).toBeUndefined();
      expect(resumed.events).toEqual(recorded);
      expect((await b.state(s))?.end).toBe('completed');
      await sleep(100);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await b.close();
    }
  });
});
