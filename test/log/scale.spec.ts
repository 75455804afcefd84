// Issue 15 at scale: 1,000 concurrent streams persisted (persistTo) and tailed (fromEventLog, started before
// each stream exists) in one process over one redisEventLog on a real redis-server of this suite's own. Every
// reader must get its stream exactly once, in order; every key the log writes has an expiry; then, with a
// short ttlMs, the server's key count returns to zero and its used memory to about where it started. The
// events are generated (a created event, deltas a few ms apart, a completed event), which exercises the log as
// the provider's streams would, more cheaply.
//
// Nothing here depends on speed (a run takes from about 20 s to several times that on a busy shared machine):
// the streams' terminal events are held back until every reader has every delta, so that all the streams end
// together and the TTL starts for all of them at once (a stream that ended long before the others could expire
// before its reader finished or before the count); the key counts are taken by one Lua script each (Redis
// expires nothing in the middle of a script), and a stream missing from the count after the ends must be
// provably past its TTL by Redis's own clock; the wait for the expiry polls DBSIZE under a generous deadline.
import { concat, concatMap, defer, from, lastValueFrom, map, Observable, of, tap, timer, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { redisForSuite } from './redis-server';

jest.setTimeout(300_000);

const STREAMS = 1000;
const DELTAS = 10;
const PREFIX = 'scale:';
// The streams end together (see above): the TTL only has to outlast the delivery of the terminal events to
// readers already following them (1-5 s from the gate here, with two CPU hogs running), and it is about what
// the test waits for after the readers are done.
const TTL_MS = 20_000;
// A live stream's keys expire too (pushed back by every write): long, so that none goes while the test runs.
const LIVE_TTL_MS = 600_000;
/** The bound on the waits (for readers to catch up, for the expiry): generous, a busy machine is slow. */
const DEADLINE_MS = 120_000;

const redis = redisForSuite();

/**
 * Redis's used_memory less its replication backlog (about 1 MiB, which Redis may set up during a run and keeps
 * for repl-backlog-ttl: not the log's data, seen under two CPU hogs).
 */
const usedMemory = async (): Promise<number> => {
  const info = await redis.admin.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]) - Number(/mem_replication_backlog:(\d+)/.exec(info)?.[1] ?? 0);
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Redis's clock, in ms: the one its expiries follow. */
const redisNow = async (): Promise<number> => {
  const [s, us] = await redis.admin.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
};

/** One generated stream: created, DELTAS deltas, completed. */
const eventsOf = (id: string): ResponseStreamEvent[] => [created(id), ...Array.from({ length: DELTAS }, (_, i) => delta(i + 1, `${id}:${i + 1}`)), completed(id, DELTAS + 1)];

/** The stream as a provider would send it: the events a few ms apart (jittered so the streams interleave), the terminal one once `gate` resolves. */
const paced = (events: ResponseStreamEvent[], i: number, gate: Promise<void>): Observable<ResponseStreamEvent> =>
  concat(
    from(events.slice(0, -1)).pipe(concatMap((e, k) => (k === 0 ? of(e) : timer(1 + ((i * 7 + k * 13) % 9)).pipe(map(() => e))))),
    defer(() => gate).pipe(map(() => events.at(-1)!)),
  );

/** Per stream, as one script sees the keys (so, at one instant for the expiry): which exist, their PTTLs, the meta fields. */
interface Snapshot {
  readonly now: number;
  /** Keys in Redis, but for the log's tail wake streams (`<prefix>tail:…`). */
  readonly dbsize: number;
  /** The PTTLs of the tail's wake streams (one per log instance, while it lives): each must expire. */
  readonly wakes: number[];
  readonly streams: { readonly pttl: [number, number, number]; readonly end: string | null; readonly last: string | null; readonly holder: string | null }[];
}
const SNAPSHOT = `
local out = {}
for i = 1, #KEYS, 3 do
  local m = redis.call('HMGET', KEYS[i], 'end', 'last', 'holder')
  out[#out + 1] = {redis.call('PTTL', KEYS[i]), redis.call('PTTL', KEYS[i + 1]), redis.call('PTTL', KEYS[i + 2]), m[1] or '', m[2] or '', m[3] or ''}
end
local wakes = {}
for _, k in ipairs(redis.call('KEYS', ARGV[1])) do wakes[#wakes + 1] = redis.call('PTTL', k) end
local t = redis.call('TIME')
return {tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)), redis.call('DBSIZE') - #wakes, out, wakes}
`;
async function snapshot(ids: readonly string[]): Promise<Snapshot> {
  const keys = ids.flatMap((id) => {
    const k = redisStreamKeys(PREFIX, { responseId: id });
    return [k.meta, k.events, k.end];
  });
  const [now, dbsize, rows, wakes] = (await redis.admin.eval(SNAPSHOT, keys.length, ...keys, `${PREFIX}tail:*`)) as [string, number, [number, number, number, string, string, string][], number[]];
  return {
    now: Number(now),
    dbsize,
    wakes,
    streams: rows.map(([a, b, c, end, last, holder]) => ({ pttl: [a, b, c], end: end || null, last: last || null, holder: holder || null })),
  };
}
/** A PTTL is an expiry no longer than `ttl` (-1: none, -2: no such key). */
const expiresWithin = (pttl: number, ttl: number): boolean => pttl > 0 && pttl <= ttl;

test(`${STREAMS} concurrent streams persisted and tailed in one process: all correct; every key expires; keys and memory return to the baseline after the TTL`, async () => {
  await redis.admin.flushall();
  expect(await redis.admin.dbsize()).toBe(0);
  const baseline = await usedMemory();
  // One connection carries every command of 2,000 producers and readers, under jest's open-handle tracking: a
  // command may wait long behind the others on a busy machine, so the bound on one is generous.
  const log = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, ttlMs: TTL_MS, liveTtlMs: LIVE_TTL_MS, commandTimeoutMs: 60_000 });
  const started = Date.now();
  let releasedAt = 0;
  let readAt = 0;
  let live: Snapshot | undefined;
  let ended: Snapshot | undefined;
  let peakMemory = 0;
  try {
    const ids = Array.from({ length: STREAMS }, (_, i) => `resp_scale_${i}`);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Resolves once every reader has every event but the terminal one.
    let caughtUp = 0;
    let allCaughtUp!: () => void;
    const caughtUpAll = new Promise<void>((r) => (allCaughtUp = r));
    // The readers first: none of their streams exists yet, so each one waits for its first event.
    const readers = ids.map((id) => {
      let n = 0;
      const counted = tap<ResponseStreamEvent>(() => {
        if (++n === DELTAS + 1 && ++caughtUp === STREAMS) allCaughtUp();
      });
      return lastValueFrom(fromEventLog(log, id, { notFoundTimeoutMs: DEADLINE_MS }).pipe(counted, toArray()));
    });
    const producers = ids.map((id, i) => lastValueFrom(paced(eventsOf(id), i, gate).pipe(persistTo(log, { leaseMs: 60_000 }), toArray())));
    // A reader or producer that fails ends the wait at once (none of them can complete before the gate opens).
    const failed = Promise.all([...readers, ...producers]).then(() => new Promise<never>(() => undefined));
    let bound: ReturnType<typeof setTimeout> | undefined;
    const tooLong = new Promise<never>((_, reject) => {
      bound = setTimeout(() => reject(new Error(`after ${DEADLINE_MS} ms only ${caughtUp} of ${STREAMS} readers had every delta`)), DEADLINE_MS);
    });
    try {
      await Promise.race([caughtUpAll, failed, tooLong]);
    } finally {
      clearTimeout(bound);
    }

    // Every stream is live: its meta and events keys exist (its end key comes with the end), each with an expiry.
    live = await snapshot(ids);
    peakMemory = await usedMemory();
    expect(live.dbsize).toBe(2 * STREAMS);
    expect(live.wakes.filter((p) => expiresWithin(p, 10_000))).toEqual(live.wakes);
    expect(live.streams.filter((st) => expiresWithin(st.pttl[0], LIVE_TTL_MS) && expiresWithin(st.pttl[1], LIVE_TTL_MS) && st.pttl[2] === -2)).toHaveLength(STREAMS);
    expect(live.streams.filter((st) => st.end === null && st.last === String(DELTAS) && st.holder !== null)).toHaveLength(STREAMS);

    // The ends: no key can expire before releasedAt + TTL_MS (Redis's clock), every terminal append being later.
    releasedAt = await redisNow();
    release();
    const produced = await Promise.all(producers);
    const read = await Promise.all(readers);
    readAt = await redisNow();
    for (const [i, id] of ids.entries()) {
      expect(produced[i]).toEqual(eventsOf(id));
      expect(read[i]).toEqual(eventsOf(id));
    }
    // Each ended stream holds meta, events and end, all expiring within the TTL; or, only once the TTL since the
    // gate opened has run out, none of them: nothing else, and nothing without an expiry. Its lease is released
    // soon after its end (persistTo does not wait for the release): watched until then.
    const leaseDeadline = Date.now() + DEADLINE_MS;
    for (;;) {
      ended = await snapshot(ids);
      const whole = ended.streams.filter((st) => st.pttl.every((p) => expiresWithin(p, TTL_MS)) && st.end === 'completed' && st.last === String(DELTAS + 1));
      const gone = ended.streams.filter((st) => st.pttl.every((p) => p === -2));
      expect(whole.length + gone.length).toBe(STREAMS);
      expect(ended.dbsize).toBe(3 * whole.length);
      expect(ended.wakes.filter((p) => expiresWithin(p, 10_000))).toEqual(ended.wakes);
      if (gone.length > 0) expect(ended.now).toBeGreaterThanOrEqual(releasedAt + TTL_MS);
      const held = whole.filter((st) => st.holder !== null).length;
      if (held === 0) break;
      if (Date.now() > leaseDeadline) throw new Error(`${held} leases still held ${DEADLINE_MS} ms after the ends`);
      await sleep(100);
    }
  } finally {
    await log.close();
  }
  const elapsed = Date.now() - started;

  // TTL_MS after the ends every key is gone (Redis expires them actively, without reads), and the memory with them.
  const deadline = Date.now() + TTL_MS + DEADLINE_MS;
  while ((await redis.admin.dbsize()) > 0 && Date.now() < deadline) await sleep(200);
  expect(await redis.admin.dbsize()).toBe(0);
  const [cursor, left] = await redis.admin.scan('0', 'COUNT', 10_000);
  expect([cursor, left]).toEqual(['0', []]);
  let after = await usedMemory();
  // Its own wait: on a starved machine the expiry above can use up `deadline` (seen: keys gone 141 s after the
  // gate, TTL 20 s, and the memory, freed by Redis's cron, measured once right after).
  const memoryDeadline = Date.now() + 60_000;
  while (after > baseline + 1024 * 1024 && Date.now() < memoryDeadline) {
    await sleep(200);
    after = await usedMemory();
  }
  const waited = (await redisNow()) - releasedAt;
  console.log(
    `scale: ${STREAMS} streams × ${DELTAS + 2} events in ${elapsed} ms; keys live ${live.dbsize}, at the ends ${ended.dbsize} (${ended.now - releasedAt} ms after the gate; readers done after ${readAt - releasedAt} ms); ` +
      `all gone ${waited} ms after the gate (TTL ${TTL_MS}); used_memory baseline ${baseline}, peak ${peakMemory}, after TTL ${after}`,
  );
  expect(peakMemory).toBeGreaterThan(baseline);
  // Back to about the baseline: within 1 MiB (the scripts' cache, allocator slack), far below the peak.
  expect(after).toBeLessThan(baseline + 1024 * 1024);
});
