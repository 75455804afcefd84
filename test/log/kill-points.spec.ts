// Issue 15, kill -9 "at many different points", across real processes sharing one redis-server: process A
// (persist-producer.ts under tsx) streams a background response from the loopback fake provider through
// persistTo and is killed with SIGKILL at a point watched in the log: right after response.created, at the
// second event, just before the terminal event, and at points drawn from a seed (KILL_SEED in the environment,
// printed in the test names, to vary them between runs). Each run has a response of its own (the recording
// with its id rewritten), so that the provider's records tell the runs apart. B's readers with upstream (one
// started before A, one after the kill) end with exactly the recording and the provider continues each
// stream once. Then a takeover's taker dies too: process B (takeover-reader.ts) takes over from a killed A,
// is killed itself mid-continuation, and a third reader takes over from B and ends with the recording.
import { lastValueFrom, toArray } from 'rxjs';
import { fromEventLog } from '../../lib/log/from-event-log';
import type { Fault } from '../../testing/index';
import { fixture, payloads } from '../helpers/fixtures';
import { prng } from '../helpers/prng';
import { type Child, childProcessSuite, collect, killChild, lapseSoon, seqs, stallCreate, startChild, untilStored } from './takeover-helpers';

jest.setTimeout(240_000);

/** A's and B's lease: long, so that no pause of a busy machine lapses it while its holder lives. */
const LEASE_MS = 30_000;
/** How long a killed holder's lease outlives it: its last renewal, made by the test once it is dead (lapseSoon). */
const LAPSE_MS = 1000;
const CHUNK_DELAY = 5;
const SEED = Number(process.env['KILL_SEED'] ?? 1515);
const sse = fixture('long-text');
const originalId = (payloads(sse)[0]!['response'] as { id: string }).id;
const N = payloads(sse).length;

const rnd = prng(SEED);
/** The edges, then `k` seeded points spread over the stream (one in each k-th), all before the terminal event. */
const KILL_POINTS = [0, 1, N - 2, ...Array.from({ length: 6 }, (_, i) => 1 + Math.floor(((i + rnd()) * (N - 3)) / 6))];

/** Run `name`'s response: the recording with an id of its own, its create request stalled after `stall` events. */
interface RunSpec {
  readonly responseId: string;
  readonly recorded: Array<Record<string, unknown>>;
}
const transcripts: Record<string, string> = {};
const createStall = new Map<string, number>(); // model → stall the create request after this many events
const resumeFaults = new Map<string, Fault[]>(); // response id → faults of its resume requests, in order
function runSpec(name: string, stallAfter: number): RunSpec {
  const responseId = `resp_kill_${name}`;
  const text = sse.split(originalId).join(responseId);
  transcripts[name] = text;
  createStall.set(name, Math.min(stallAfter, N - 1)); // never the terminal event: A is mid-stream when killed
  return { responseId, recorded: payloads(text) };
}
const RUNS = KILL_POINTS.map((p, i) => ({ point: p, spec: runSpec(`k${i}`, p + 40) }));
const TWICE = runSpec('twice', 120);
resumeFaults.set(TWICE.responseId, [{ type: 'stall', afterEvents: 80 }]); // B is still continuing when it is killed

const stallCreates = stallCreate((model) => createStall.get(model));
const suite = childProcessSuite({
  transcripts,
  chunkDelayMs: CHUNK_DELAY,
  faults: (r) => (r.route === 'responses.stream' ? resumeFaults.get(decodeURIComponent(r.path.split('/').pop() ?? ''))?.shift() : stallCreates(r)),
});

/** Process A: streams transcript `model` through persistTo into Redis (the owner '' here). */
const producer = (model: string): Child => startChild(suite.children, 'persist-producer.ts', [suite.redis.url, suite.provider.baseURL, model, '', String(LEASE_MS)]);

const config = () => ({ baseURL: suite.provider.baseURL, apiKey: 'sk-test' });
const resumesOf = (id: string) => suite.provider.requests.filter((r) => r.route === 'responses.stream' && r.path.endsWith(`/${id}`));

test(`kill -9 of process A at ${KILL_POINTS.join(', ')} of ${N} (seed ${SEED}): readers with upstream before and after the kill end with exactly the recording; one continuation each`, async () => {
  const runs = RUNS.map(async ({ point, spec }, i) => {
    const { responseId, recorded } = spec;
    const s = { responseId };
    const options = { upstream: config(), leaseMs: 30_000, notFoundTimeoutMs: 90_000, pollMs: 200 };
    const before = collect(fromEventLog(suite.log, responseId, options));
    const a = producer(`k${i}`);
    await untilStored(suite.log, s, point, a);
    await killChild(a);
    await lapseSoon(suite.log, s, LAPSE_MS);
    const killedAt = (await suite.log.state(s))?.lastSequenceNumber as number;
    expect(killedAt).toBeGreaterThanOrEqual(point);
    expect(killedAt).toBeLessThan(N - 1);
    const after = collect(fromEventLog(suite.log, responseId, options));
    for (const r of [await before, await after]) {
      expect(r.error).toBeUndefined();
      expect(seqs(r.events)).toEqual(seqs(recorded));
      expect(r.events).toEqual(recorded);
    }
    expect(resumesOf(responseId).map((r) => r.query['starting_after'])).toEqual([String(killedAt)]);
    expect(await lastValueFrom(fromEventLog(suite.log, responseId).pipe(toArray()))).toEqual(recorded);
    expect(await suite.log.state(s)).toMatchObject({ end: 'completed', lease: undefined, lastSequenceNumber: N - 1 });
  });
  await Promise.all(runs);
});

test('kill -9 of the taker too: B takes over from a killed A and is killed mid-continuation; C takes over from B and ends with exactly the recording', async () => {
  const { responseId, recorded } = TWICE;
  const s = { responseId };
  const a = producer('twice');
  await untilStored(suite.log, s, 60, a);
  await killChild(a);
  const killedA = (await suite.log.state(s))?.lastSequenceNumber as number;
  const leaseA = (await suite.log.state(s))?.lease?.token;
  await lapseSoon(suite.log, s, LAPSE_MS);

  // B: a reader with upstream in a process of its own; it claims the lease once A's lapses and continues.
  const b = startChild(suite.children, 'takeover-reader.ts', [suite.redis.url, suite.provider.baseURL, responseId, '', String(LEASE_MS)]);
  await untilStored(suite.log, s, killedA + 20, b);
  const taken = (await suite.log.state(s))?.lease;
  expect(taken).toBeDefined();
  expect(taken!.token).not.toBe(leaseA);
  await killChild(b);
  await lapseSoon(suite.log, s, LAPSE_MS);
  const killedB = (await suite.log.state(s))?.lastSequenceNumber as number;
  expect(killedB).toBeLessThan(N - 1);
  // What B delivered before it died: the recording from the start, each once, in order.
  const delivered = b.lines.filter((l) => l.startsWith('ev ')).map((l) => Number(l.slice(3)));
  expect(delivered).toEqual(seqs(recorded.slice(0, delivered.length)));

  // C: takes over from B once B's lease lapses, and finishes.
  const c = await collect(fromEventLog(suite.log, responseId, { upstream: config(), leaseMs: 30_000, pollMs: 200 }));
  expect(c.error).toBeUndefined();
  expect(c.events).toEqual(recorded);
  expect(resumesOf(responseId).map((r) => r.query['starting_after'])).toEqual([String(killedA), String(killedB)]);
  expect(await suite.log.read(s, undefined)).toEqual(recorded);
  expect(await suite.log.state(s)).toMatchObject({ end: 'completed', lease: undefined });
});
