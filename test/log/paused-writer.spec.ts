// Issue 15, "two producers never interleave": a writer that is not dead but paused (its process stopped with
// SIGSTOP, as a long GC pause, a swapped-out VM or a debugger would) loses its lease, a reader with upstream
// takes the stream over and finishes it, and then the paused writer wakes up (SIGCONT) with events still to
// append. Its appends and renewals must be refused (fencing token) and it must end with a typed error, while
// the log holds exactly the recording, each sequence_number once. Once for a paused producer (persistTo in
// persist-producer.ts) and once for a paused taker (fromEventLog with upstream in takeover-reader.ts).
import { fromEventLog } from '../../lib/log/from-event-log';
import { fixture, payloads } from '../helpers/fixtures';
import { childProcessSuite, collect, lapseSoon, seqs, startChild, untilStored } from './takeover-helpers';

jest.setTimeout(180_000);

/** The writers' lease: long, so that no pause of a busy machine lapses it while they run. */
const LEASE_MS = 30_000;
/** How long a stopped or killed writer's lease outlives its stop: its last renewal, made by the test (lapseSoon). */
const LAPSE_MS = 1000;
const sse = fixture('long-text');
const recorded = payloads(sse);
const responseId = (recorded[0]!['response'] as { id: string }).id;
const N = recorded.length;

const suite = childProcessSuite({ transcripts: { paused: sse, taker: sse }, chunkDelayMs: 5 });

const config = () => ({ baseURL: suite.provider.baseURL, apiKey: 'sk-test' });

test('a paused producer loses its lease to a reader with upstream; woken up, its appends are refused: it ends with a typed error and the log is exactly the recording', async () => {
  const owner = 'paused';
  const s = { responseId, owner };
  const a = startChild(suite.children, 'persist-producer.ts', [suite.redis.url, suite.provider.baseURL, 'paused', owner, String(LEASE_MS)]);
  await untilStored(suite.log, s, 50, a);
  a.child.kill('SIGSTOP');
  await lapseSoon(suite.log, s, LAPSE_MS); // as if it had been stopped just after a short renewal
  try {
    const before = suite.provider.requests.filter((r) => r.route === 'responses.stream').length;
    const r = await collect(fromEventLog(suite.log, responseId, { owner, upstream: config(), leaseMs: 60_000, pollMs: 200 }));
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual(recorded);
    expect(suite.provider.requests.filter((q) => q.route === 'responses.stream').length - before).toBe(1);
  } finally {
    a.child.kill('SIGCONT');
  }
  expect(await a.exited).toEqual({ code: 0, signal: null });
  // It had more to append (the provider kept sending while it was stopped): refused by the fencing token.
  expect(a.lines.at(-1)).toBe('error EventLogError fenced');
  const acked = a.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
  expect(Math.max(...acked)).toBeLessThan(N - 1);
  expect(await suite.log.read(s, undefined)).toEqual(recorded);
  expect(await suite.log.state(s)).toMatchObject({ end: 'completed', lastSequenceNumber: N - 1 });
});

test('a paused taker loses the stream to another reader with upstream; woken up, it cannot append: it ends (typed error or completion) having delivered each event once, in order, and the log is exactly the recording', async () => {
  const owner = 'taker';
  const s = { responseId, owner };
  // A: the producer, killed so that B takes over.
  const a = startChild(suite.children, 'persist-producer.ts', [suite.redis.url, suite.provider.baseURL, 'taker', owner, String(LEASE_MS)]);
  await untilStored(suite.log, s, 30, a);
  a.child.kill('SIGKILL');
  await a.exited;
  await lapseSoon(suite.log, s, LAPSE_MS);
  const killedA = (await suite.log.state(s))?.lastSequenceNumber as number;
  // B: a reader with upstream in its own process; it takes over, then is paused mid-continuation.
  const b = startChild(suite.children, 'takeover-reader.ts', [suite.redis.url, suite.provider.baseURL, responseId, owner, String(LEASE_MS)]);
  await untilStored(suite.log, s, killedA + 20, b);
  b.child.kill('SIGSTOP');
  await lapseSoon(suite.log, s, LAPSE_MS); // as if it had been stopped just after a short renewal
  try {
    const c = await collect(fromEventLog(suite.log, responseId, { owner, upstream: config(), leaseMs: 60_000, pollMs: 200 }));
    expect(c.error).toBeUndefined();
    expect(c.events).toEqual(recorded);
  } finally {
    b.child.kill('SIGCONT');
  }
  expect(await b.exited).toEqual({ code: 0, signal: null });
  const last = b.lines.at(-1);
  expect(['done', 'error EventLogError']).toContain(last);
  const delivered = b.lines.filter((l) => l.startsWith('ev ')).map((l) => Number(l.slice(3)));
  expect(delivered).toEqual(seqs(recorded.slice(0, delivered.length)));
  if (last === 'done') expect(delivered).toHaveLength(N);
  expect(await suite.log.read(s, undefined)).toEqual(recorded);
  expect(await suite.log.state(s)).toMatchObject({ end: 'completed', lastSequenceNumber: N - 1 });
});
