// Two store instances (two redisEventLog instances with their own connections, as two processes would have) appending
// continuously to one stream: the lease each append takes and gives back serializes them, both make progress, no
// append waits past leaseWaitMs, every entry is stored once, each writer's order is kept. (Two stores on one
// in-process memory log are not fair: a writer whose whole cycle is microtasks takes the lease back before the other's
// backoff timer fires. A memory log belongs to one process, which has one store for it.)
import { eventLogStreamStore } from '../../lib/durable-streams/log-store';
import type { DurableStreamStore } from '../../lib/durable-streams/store';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { redisForSuite } from '../log/redis-server';
import { json, post, readAll, uniquePath } from './log-store-suite';

jest.setTimeout(60_000);

const redis = redisForSuite();
const RUN_MS = 2500;
const options = { leaseMs: 1000, leaseWaitMs: 1500 };

/** Appends `w0`, `w1`, … to `path` as producer `w`, `inFlight` at a time, for RUN_MS; the longest wait of one. */
async function writer(store: DurableStreamStore, path: string, w: string, inFlight: number): Promise<{ count: number; longest: number }> {
  const until = Date.now() + RUN_MS;
  let seq = 0;
  let longest = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        const i = seq++;
        const t0 = Date.now();
        const r = await store.append!(path, post([JSON.stringify(`${w}${i}`)], { streamSeq: undefined }));
        longest = Math.max(longest, Date.now() - t0);
        if (r.status !== 'appended') throw new Error(`${w}${i}: ${r.status}`);
      }
    }),
  );
  return { count: seq, longest };
}

async function twoWriters(a: EventLog, b: EventLog): Promise<void> {
  const sa = eventLogStreamStore(a, options);
  const sb = eventLogStreamStore(b, options);
  const path = uniquePath('two-writers');
  await sa.create!(path, json());
  const [ra, rb] = await Promise.all([writer(sa, path, 'a', 1), writer(sb, path, 'b', 3)]);
  expect(ra.count).toBeGreaterThan(5);
  expect(rb.count).toBeGreaterThan(5);
  expect(Math.max(ra.longest, rb.longest)).toBeLessThan(options.leaseWaitMs);
  const entries = (await readAll(sb, path)).entries.map((e) => JSON.parse(e as string) as string);
  expect(entries).toHaveLength(ra.count + rb.count);
  expect(new Set(entries).size).toBe(entries.length);
  // One writer in flight: its order is the order of its appends.
  expect(entries.filter((e) => e.startsWith('a'))).toEqual(Array.from({ length: ra.count }, (_, i) => `a${i}`));
  expect(entries.filter((e) => e.startsWith('b')).sort()).toEqual(Array.from({ length: rb.count }, (_, i) => `b${i}`).sort());
}

describe('two store instances appending continuously to one stream', () => {
  it('on one Redis: both progress, none waits past leaseWaitMs, every entry once, order kept', async () => {
    const a = redisEventLog({ url: redis.server.url });
    const b = redisEventLog({ url: redis.server.url });
    try {
      await twoWriters(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
