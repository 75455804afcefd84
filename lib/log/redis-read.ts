import { checkAfter } from '../cursor.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { Cluster, Redis } from 'ioredis';
import { asOwnError, type RedisConnections } from './redis-connection.js';
import { redisStreamKeys } from './redis-keys.js';
import type { RedisLogSettings } from './redis-options.js';
import { exhausted, withRetry } from './redis-retry.js';
import type { RunScript } from './redis-run-script.js';
import { STATE } from './redis-scripts.js';
import type { StreamEntry } from './redis-stream-id.js';
import { type TailRoute, waitRiding } from './redis-tail-retry.js';
import type { EventLog, LogEnd, LogScope, LogState } from './types.js';

// The read side of `redisEventLog`: `read` (XRANGE), `wait` (XREAD BLOCK: the shared tail reader on a single
// Redis; on a Cluster the subscriber of the stream's master) and `state`, and the stream entries' decoding. Each rides
// through transient failures (a restart, a failover) within the log's retry budget.

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

/** The stream's state (the STATE script): `undefined` when it does not exist. */
export async function stateOf(run: RunScript, scope: LogScope): Promise<LogState | undefined> {
  const r = await run(STATE, scope, []);
  if (r.length === 0) return undefined;
  const [, holder, until, endOf, last, now] = r as [string, string, string, string, string, string];
  const live = holder !== '' && until !== '' && Number(until) > Number(now);
  return {
    lastSequenceNumber: last === '' ? undefined : Number(last),
    end: endOf === '' ? undefined : (endOf as LogEnd),
    lease: live ? { token: Number(holder), expiresAt: Number(until) } : undefined,
  };
}

/** The tails of `conn`, as the readers ride through their failures (lib/log/redis-tail-retry.ts). */
export const tailRoute = (conn: RedisConnections, settings: RedisLogSettings): TailRoute => ({
  tail: conn.tail,
  budgetMs: settings.retryBudgetMs,
  isClosed: conn.isClosed,
  closing: conn.closing,
});

export function redisRead(conn: RedisConnections, run: RunScript, settings: RedisLogSettings): Pick<EventLog, 'read' | 'wait' | 'state'> {
  const { keyPrefix, retryBudgetMs } = settings;
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

  return {
    async read(scope, after, limit) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (limit !== undefined && limit <= 0) return [];
      const { events } = redisStreamKeys(keyPrefix, scope);
      const start = after === undefined || after < 0 ? '-' : `${Math.floor(after) + 1}-0`;
      const entries = await retrying(scope, (c) => (limit === undefined ? c.xrange(events, start, '+') : c.xrange(events, start, '+', 'COUNT', Math.floor(limit))));
      return parseEntries(entries);
    },

    async wait(scope, after, waitMs, signal) {
      conn.ensureOpen(scope);
      checkAfter(after);
      if (signal?.aborted) return false;
      const { events, end } = redisStreamKeys(keyPrefix, scope);
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

    state: (scope) => stateOf(run, scope),
  };
}
