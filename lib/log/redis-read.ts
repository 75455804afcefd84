import { checkAfter } from '../cursor.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { Cluster, Redis } from 'ioredis';
import { asOwnError, type RedisConnections } from './redis-connection.js';
import { redisStreamKeys } from './redis-keys.js';
import type { RedisLogSettings } from './redis-options.js';
import { exhausted, withRetry } from './redis-retry.js';
import type { SendScript } from './redis-script-send.js';
import { batchedState } from './redis-state.js';
import { parseEntries } from './redis-entries.js';
import type { StreamEntry } from './redis-stream-id.js';
import { type TailRoute, waitRiding } from './redis-tail-retry.js';
import type { EventLog, LogScope } from './types.js';

// The read side of `redisEventLog`: `read` (XRANGE), `wait` (XREAD BLOCK: the shared tail reader on a single
// Redis; on a Cluster the subscriber of the stream's master) and `state`, and the stream entries' decoding. Each rides
// through transient failures (a restart, a failover) within the log's retry budget.

/** The XREAD id after which the events after sequence number `after` come (all of them when `undefined`). */
export const xreadIds = (after: number | undefined): string => (after === undefined || after < 0 ? '0-0' : `${Math.floor(after)}-1`);

/** The tails of `conn`, as the readers ride through their failures (lib/log/redis-tail-retry.ts). */
export const tailRoute = (conn: RedisConnections, settings: RedisLogSettings): TailRoute => ({
  tail: conn.tail,
  budgetMs: settings.retryBudgetMs,
  isClosed: conn.isClosed,
  closing: conn.closing,
});

export function redisRead(conn: RedisConnections, send: SendScript, settings: RedisLogSettings): Pick<EventLog, 'read' | 'wait' | 'state'> {
  const { keyPrefix, retryBudgetMs, replicas } = settings;
  const { timed } = conn;
  const route = tailRoute(conn, settings);

  /** `command` on the main client, tried again through transient failures within the budget (a read is idempotent). */
  const retrying = async <T>(scope: LogScope, command: (c: Redis | Cluster) => Promise<T>): Promise<T> => {
    const once = async (): Promise<T> => command(await timed(conn.client(), scope));
    try {
      return await withRetry(() => timed(once(), scope), { budgetMs: retryBudgetMs, stopped: conn.isClosed });
    } catch (e) {
      throw exhausted(e, retryBudgetMs, scope);
    }
  };

  /**
   * `wait` with `replicas`: true once a confirmation covers an event after `after`, or the stream was cancelled
   * or completed and confirmed; each look after a wake-up (any new entry: an event, a mark) is a new round, so
   * unconfirmed entries do not make it spin.
   */
  const waitConfirmed = async (scope: LogScope, after: number | undefined, waitMs: number, signal?: AbortSignal): Promise<boolean> => {
    const { meta, events, end } = redisStreamKeys(keyPrefix, scope);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const [m, top] = await retrying(scope, (c) => metaAndTop(c, meta, events));
      const [durable, ended, last] = m.map((v) => (v === null ? undefined : v));
      if (durable !== undefined && (after === undefined || Number(durable) > after)) return true;
      if (ended === 'cancelled' || (ended !== undefined && durable !== undefined && last !== undefined && Number(durable) >= Number(last))) return true;
      const left = deadline - Date.now();
      if (conn.isClosed() || signal?.aborted || left <= 0) return false;
      // Ended but not confirmed yet: the end key has its entry already; wait on the events alone (a key that never
      // exists, same hash tag, stands in for the end key).
      const endKey = ended === undefined ? end : `${end}:none`;
      try {
        if (!(await waitRiding(route, events, endKey, top, left, signal))) return false;
      } catch (e) {
        throw asOwnError(e, scope);
      }
    }
  };

  return {
    async read(scope, after, limit) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (limit !== undefined && limit <= 0) return [];
      const { events } = redisStreamKeys(keyPrefix, scope);
      const start = after === undefined || after < 0 ? '-' : `${Math.floor(after) + 1}-0`;
      if (replicas === 0) {
        const entries = await retrying(scope, (c) => (limit === undefined ? c.xrange(events, start, '+') : c.xrange(events, start, '+', 'COUNT', Math.floor(limit))));
        // An entry may hold several events (lib/log/redis-entries.ts): COUNT entries are at least as many events,
        // and no more than `limit` are parsed.
        return parseEntries(entries, after, limit === undefined ? Infinity : Math.floor(limit));
      }
      // With `replicas`: only what is confirmed (meta `durable`, read first: what it covers is stored). The
      // confirmations' marks are entries too: room for them in COUNT.
      const { meta } = redisStreamKeys(keyPrefix, scope);
      const [durable, entries] = await retrying(scope, (c) => durableAndEntries(c, meta, events, start, limit === undefined ? undefined : 2 * Math.floor(limit) + 2));
      const out = durable === undefined ? [] : parseEntries(entries, after).filter((e) => (e.sequence_number ?? 0) <= durable);
      return limit === undefined || out.length <= limit ? out : out.slice(0, Math.floor(limit));
    },

    async wait(scope, after, waitMs, signal) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (signal?.aborted) return false;
      const { events, end } = redisStreamKeys(keyPrefix, scope);
      if (replicas > 0) return waitConfirmed(scope, after, waitMs, signal);
      const ids = [xreadIds(after), '0-0'];
      // Without blocking first: already there, or already ended (the `end` stream has an entry).
      const now = await retrying(scope, (c) => c.xread('COUNT', 1, 'STREAMS', events, end, ...ids));
      if (now !== null && now.length > 0) return true;
      if (conn.isClosed() || signal?.aborted) return false;
      try {
        // The tail of its stream (the shared one on a single Redis, its master's on a Cluster), through failures.
        return await waitRiding(route, events, end, ids[0] as string, waitMs, signal);
      } catch (e) {
        // One failure settles every waiter: each gets an error of its own, naming its response.
        throw asOwnError(e, scope);
      }
    },

    state: batchedState(conn, send, (scope) => redisStreamKeys(keyPrefix, scope).meta),
  };
}

/** The results of a pipeline, or its first error. */
const results = async (p: ReturnType<Redis['pipeline']>): Promise<unknown[]> => {
  const r = (await p.exec()) ?? [];
  for (const [e] of r) if (e) throw e;
  return r.map(([, v]) => v);
};

/** Meta `durable` (a number, `undefined` for none) and the entries from `start` (one round trip, one slot). */
async function durableAndEntries(c: Redis | Cluster, meta: string, events: string, start: string, count: number | undefined): Promise<[number | undefined, StreamEntry[]]> {
  const p = c.pipeline().hget(meta, 'durable');
  if (count === undefined) p.xrange(events, start, '+');
  else p.xrange(events, start, '+', 'COUNT', count);
  const [durable, entries] = (await results(p)) as [string | null, StreamEntry[]];
  return [durable === null ? undefined : Number(durable), entries];
}

/** Meta `durable`, `end`, `last`, and the id of the events' top entry ('0-0' for none). */
async function metaAndTop(c: Redis | Cluster, meta: string, events: string): Promise<[(string | null)[], string]> {
  const [m, top] = (await results(c.pipeline().hmget(meta, 'durable', 'end', 'last').xrevrange(events, '+', '-', 'COUNT', 1))) as [(string | null)[], StreamEntry[]];
  return [m, top[0]?.[0] ?? '0-0'];
}
