// Issue 15, takeover under contention: a producer records a background stream and crashes mid-stream (its
// release is lost, its lease lapses on its own); then TWO readers, both given `upstream`, race for the lease.
// Exactly one may claim it and continue the provider's stream (counted at the loopback fake provider); the
// other must deliver the same events from the log. Each reader delivers every sequence_number exactly once,
// in order, and the log ends holding the recording. On the in-memory log (one process) and on a real
// redis-server with two redisEventLog instances (as two processes would have). The races are run several
// times, readers arriving after the lapse (both try at once) and before it (both woken by the lapse).
import { lastValueFrom, toArray } from 'rxjs';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog } from '../../lib/log/redis';
import { startTestServer } from '../../testing/index';
import { recording } from '../helpers/fixtures';
import { collect, crashedProducer, type Outcome, seqs, stallCreate, takeoverStorePairs, takeoverSuite, untilLapsed } from './takeover-helpers';

jest.setTimeout(300_000);

const { sse, recorded, responseId, N } = recording('long-text');
/** How long the crashed producer's lease outlives it (its last renewal before the crash). */
const LAPSE_MS = 500;

/** The create request of transcript (model) `name` stalls after stallAt.get(name) events: the producer is mid-stream when it "crashes". */
const stallAt = new Map<string, number>();
const transcripts: Record<string, string> = {};
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

// The stall points of the rounds: right after response.created, early, middle, late, just before the terminal event.
const POINTS = [0, 7, Math.floor(N / 2), N - 40, N - 2];
for (const store of ['memory', 'redis']) {
  for (const [i] of POINTS.entries()) {
    for (const when of ['after', 'before']) transcripts[`${store}_${when}_${i}`] = sse;
  }
}

beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));
const suite = takeoverSuite({
  transcripts,
  chunkDelayMs: 1, // the winner's upstream takes a while, so the loser follows it live, not after the end
  faults: stallCreate((model) => stallAt.get(model)),
});

const config = () => ({ baseURL: suite.provider.baseURL, apiKey: 'sk-test' });
const resumes = () => suite.provider.requests.filter((r) => r.route === 'responses.stream');

describe.each(takeoverStorePairs(() => suite.redis.url))('two readers with upstream race to take over (%s log)', (store, open) => {
  for (const when of ['after', 'before'] as const) {
    test(`readers arriving ${when} the lapse, producer crashed at ${POINTS.join(', ')}: one upstream continuation per crash; both readers get the recording exactly once`, async () => {
      const { a, b, close } = open();
      try {
        for (const [i, point] of POINTS.entries()) {
          const owner = `${store}_${when}_${i}`;
          const s = { responseId, owner };
          const before = resumes().length;
          stallAt.set(owner, point + 1);
          await crashedProducer(a, suite.provider.baseURL, owner, s, point, LAPSE_MS);
          const options = { owner, upstream: config(), leaseMs: 30_000, pollMs: 200 };
          let readers: [Promise<Outcome>, Promise<Outcome>];
          if (when === 'after') {
            await untilLapsed(a, s);
            readers = [collect(fromEventLog(a, responseId, options)), collect(fromEventLog(b, responseId, options))];
          } else {
            readers = [collect(fromEventLog(a, responseId, options)), collect(fromEventLog(b, responseId, options))];
          }
          const [one, two] = await Promise.all(readers);
          for (const r of [one, two]) {
            expect(r.error).toBeUndefined();
            expect(seqs(r.events)).toEqual(seqs(recorded));
            expect(r.events).toEqual(recorded);
          }
          // Exactly one of them continued upstream, after the last event the producer stored.
          const continued = resumes().slice(before);
          expect(continued.map((r) => r.query['starting_after'])).toEqual([String(point)]);
          const st = await b.state(s);
          expect(st).toMatchObject({ lastSequenceNumber: N - 1, end: 'completed', lease: undefined });
          expect(await a.read(s, undefined)).toEqual(recorded);
        }
        expect(unhandled).toEqual([]);
      } finally {
        await close();
      }
    });
  }
});

test('three readers on three redis instances, one crash: still one continuation, three exact copies', async () => {
  const logs = [0, 1, 2].map(() => redisEventLog({ url: suite.redis.url, commandTimeoutMs: 30_000 }));
  const p2 = await startTestServer({ transcripts: { three: sse }, chunkDelayMs: 1, faults: [{ type: 'stall', afterEvents: 101 }] });
  try {
    const owner = 'three';
    const s = { responseId, owner };
    await crashedProducer(logs[0]!, p2.baseURL, owner, s, 100, LAPSE_MS);
    const cfg = { baseURL: p2.baseURL, apiKey: 'sk-test' };
    const out = await Promise.all(logs.map((l) => lastValueFrom(fromEventLog(l, responseId, { owner, upstream: cfg, leaseMs: 30_000, pollMs: 200 }).pipe(toArray()))));
    for (const events of out) expect(events).toEqual(recorded);
    expect(p2.requests.filter((r) => r.route === 'responses.stream').map((r) => r.query['starting_after'])).toEqual(['100']);
  } finally {
    await p2.close();
    for (const l of logs) await l.close();
  }
});
