// Issue 15 at scale: 1,000 concurrent streams persisted (persistTo) and tailed (fromEventLog, started before
// each stream exists) in one process over one redisEventLog on a real redis-server of this suite's own. Every
// reader must get its stream exactly once, in order; then, with a short ttlMs, the server's key count returns
// to zero and its used memory to about where it started. The events are generated (a created event, deltas at
// a few ms apart, a completed event), which exercises the log as the provider's streams would, more cheaply.
import { concatMap, from, lastValueFrom, Observable, of, timer, toArray, map } from 'rxjs';
import { Redis } from 'ioredis';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog } from '../../lib/log/redis';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { type RedisServer, startRedisServer } from './redis-server';

jest.setTimeout(120_000);

const STREAMS = 1000;
const DELTAS = 10;
// Long enough that a reader lagging behind its producer on a busy machine still finds the stream (they end
// within about a second of each other here), short enough to watch the keys go.
const TTL_MS = 15_000;

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url, { lazyConnect: true });
  await admin.connect();
});
afterAll(async () => {
  await admin?.quit();
  await server?.stop();
});

const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One generated stream: created, DELTAS deltas, completed. */
const eventsOf = (id: string): ResponseStreamEvent[] => [created(id), ...Array.from({ length: DELTAS }, (_, i) => delta(i + 1, `${id}:${i + 1}`)), completed(id, DELTAS + 1)];

/** The stream as a provider would send it: the events a few ms apart (jittered so the streams interleave). */
const paced = (events: ResponseStreamEvent[], i: number): Observable<ResponseStreamEvent> =>
  from(events).pipe(concatMap((e, k) => (k === 0 ? of(e) : timer(1 + ((i * 7 + k * 13) % 9)).pipe(map(() => e)))));

test(`${STREAMS} concurrent streams persisted and tailed in one process: all correct; keys and memory return to the baseline after the TTL`, async () => {
  await admin.flushall();
  expect(await admin.dbsize()).toBe(0);
  const baseline = await usedMemory();
  // One connection carries every command of 2,000 producers and readers, under jest's open-handle tracking: a
  // command may wait long behind the others on a busy machine, so the bound on one is generous.
  const log = redisEventLog({ url: server.url, ttlMs: TTL_MS, commandTimeoutMs: 60_000 });
  const started = Date.now();
  let peakKeys = 0;
  let peakMemory = 0;
  try {
    const ids = Array.from({ length: STREAMS }, (_, i) => `resp_scale_${i}`);
    // The readers first: none of their streams exists yet, so each one waits for its first event.
    const readers = ids.map((id) => lastValueFrom(fromEventLog(log, id, { notFoundTimeout: 90_000 }).pipe(toArray())));
    const producers = ids.map((id, i) => lastValueFrom(paced(eventsOf(id), i).pipe(persistTo(log, { leaseMs: 30_000 }), toArray())));
    const produced = await Promise.all(producers);
    peakKeys = await admin.dbsize();
    peakMemory = await usedMemory();
    const read = await Promise.all(readers);
    for (const [i, id] of ids.entries()) {
      expect(produced[i]).toEqual(eventsOf(id));
      expect(read[i]).toEqual(eventsOf(id));
    }
    // Each ended stream holds meta, events and end until the TTL.
    expect(peakKeys).toBe(3 * STREAMS);
    const states = await Promise.all(ids.map((id) => log.state({ responseId: id })));
    expect(states.filter((st) => st?.end === 'completed' && st.lastSequenceNumber === DELTAS + 1 && st.lease === undefined)).toHaveLength(STREAMS);
  } finally {
    await log.close();
  }
  const elapsed = Date.now() - started;

  // TTL_MS after the ends every key is gone (Redis expires them actively, without reads), and the memory with them.
  const deadline = Date.now() + 60_000;
  while ((await admin.dbsize()) > 0 && Date.now() < deadline) await sleep(200);
  expect(await admin.dbsize()).toBe(0);
  const [cursor, left] = await admin.scan('0', 'COUNT', 1000);
  expect([cursor, left]).toEqual(['0', []]);
  let after = await usedMemory();
  while (after > baseline + 1024 * 1024 && Date.now() < deadline) {
    await sleep(200);
    after = await usedMemory();
  }
  console.log(`scale: ${STREAMS} streams × ${DELTAS + 2} events in ${elapsed} ms; keys at the end ${peakKeys}; used_memory baseline ${baseline}, peak ${peakMemory}, after TTL ${after}`);
  expect(peakMemory).toBeGreaterThan(baseline);
  // Back to about the baseline: within 1 MiB (the scripts' cache, allocator slack), far below the peak.
  expect(after).toBeLessThan(baseline + 1024 * 1024);
});
