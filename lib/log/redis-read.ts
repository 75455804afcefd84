import { checkAfter } from '../cursor.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { asOwnError, isCluster, type RedisConnections } from './redis-connection.js';
import { redisStreamKeys } from './redis-keys.js';
import type { RedisLogSettings } from './redis-options.js';
import type { RunScript } from './redis-run-script.js';
import { STATE } from './redis-scripts.js';
import type { StreamEntry } from './redis-stream-id.js';
import type { EventLog, LogEnd, LogState } from './types.js';

// The read side of `redisEventLog`: `read` (XRANGE), `wait` (XREAD BLOCK: the shared tail reader on a single
// Redis, a pooled connection of its own on a Cluster) and `state`, and the stream entries' decoding.

/** The XREAD id after which the events after sequence number `after` come (all of them when `undefined`). */
export const xreadIds = (after: number | undefined): string => (after === undefined || after < 0 ? '0-0' : `${Math.floor(after)}-1`);

/** The events of stream entries; the entry a cancel adds (no `e` field) is skipped. */
export const parseEntries = (entries: StreamEntry[]): ResponseStreamEvent[] => {
  const out: ResponseStreamEvent[] = [];
  for (const [, fields] of entries) {
    const at = fields.indexOf('e');
    if (at >= 0 && at % 2 === 0) out.push(JSON.parse(fields[at + 1] as string) as ResponseStreamEvent);
  }
  return out;
};

/** Whether entries hold the one a cancel adds to the events stream. */
export const hasEnd = (entries: StreamEntry[]): boolean => entries.some(([, fields]) => fields[0] === 'end');

export function redisRead(conn: RedisConnections, run: RunScript, settings: RedisLogSettings): Pick<EventLog, 'read' | 'wait' | 'state'> {
  const { keyPrefix, timeoutMs } = settings;
  const { timed } = conn;
  return {
    async read(scope, after, limit) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (limit !== undefined && limit <= 0) return [];
      const { events } = redisStreamKeys(keyPrefix, scope);
      const start = after === undefined || after < 0 ? '-' : `${Math.floor(after) + 1}-0`;
      const c = await timed(conn.client(), scope);
      const entries = await timed(
        limit === undefined ? c.xrange(events, start, '+') : c.xrange(events, start, '+', 'COUNT', Math.floor(limit)),
        scope,
      );
      return parseEntries(entries);
    },

    async wait(scope, after, waitMs, signal) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (signal?.aborted) return false;
      const { events, end } = redisStreamKeys(keyPrefix, scope);
      const ids = [xreadIds(after), '0-0'];
      // Without blocking first: already there, or already ended (the `end` stream has an entry).
      const c = await timed(conn.client(), scope);
      const now = await timed(c.xread('COUNT', 1, 'STREAMS', events, end, ...ids), scope);
      if (now !== null && now.length > 0) return true;
      if (conn.isClosed() || signal?.aborted) return false;
      if (!isCluster(c)) {
        try {
          return await conn.tailOf(c).wait(events, end, ids[0] as string, waitMs, signal);
        } catch (e) {
          // One failure settles every waiter: each gets an error of its own, naming its response.
          throw asOwnError(e, scope);
        }
      }
      // A Cluster: the streams live in different slots, so each wait blocks on a connection of its own.
      const deadline = Date.now() + waitMs;
      while (!conn.isClosed() && !signal?.aborted) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return false;
        const blocking = await conn.takeBlocking(scope);
        if (conn.isClosed() || signal?.aborted) {
          blocking.disconnect();
          return false;
        }
        conn.lend(blocking);
        const onAbort = (): void => blocking.disconnect();
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          const got = await timed(blocking.xread('COUNT', 1, 'BLOCK', Math.max(1, Math.ceil(remaining)), 'STREAMS', events, end, ...ids), scope, remaining + timeoutMs);
          if (got !== null && got.length > 0) return true;
        } catch (e) {
          if (conn.isClosed() || signal?.aborted) return false;
          blocking.disconnect();
          throw e;
        } finally {
          signal?.removeEventListener('abort', onAbort);
          conn.giveBack(blocking, true);
        }
      }
      return false;
    },

    async state(scope): Promise<LogState | undefined> {
      const r = await run(STATE, scope, []);
      if (r.length === 0) return undefined;
      const [, holder, until, endOf, last, now] = r as [string, string, string, string, string, string];
      const live = holder !== '' && until !== '' && Number(until) > Number(now);
      return {
        lastSequenceNumber: last === '' ? undefined : Number(last),
        end: endOf === '' ? undefined : (endOf as LogEnd),
        lease: live ? { token: Number(holder), expiresAt: Number(until) } : undefined,
      };
    },
  };
}
