import type { FollowableEventLog } from './follow.js';
import { takesPacked } from './packed.js';
import { encodeFlat, redisAppend } from './redis-append.js';
import { redisConnections } from './redis-connection.js';
import { evictionCheck } from './redis-eviction.js';
import { redisFollow } from './redis-follow.js';
import { streamKeyList } from './redis-keys.js';
import { redisLease } from './redis-lease.js';
import { type RedisEventLogOptions, redisLogSettings } from './redis-options.js';
import { redisRead } from './redis-read.js';
import { scriptRunner } from './redis-run-script.js';
import { scriptSender } from './redis-script-send.js';
import { CANCEL } from './redis-scripts.js';
import type { EventLog, LogScope } from './types.js';

export { redisStreamKeys } from './redis-keys.js';
export type { RedisEventLogOptions } from './redis-options.js';

/**
 * The event log in Redis (7 or later; Redis Cluster too): one Redis stream per response (`XADD`, `XRANGE`,
 * `XREAD BLOCK`), so producers and readers in any number of processes share it. Implements {@link EventLog}:
 * every write is one Lua script that checks the lease's fencing token, skips replayed sequence numbers,
 * enforces `maxEvents` / `maxBytes` and sets the keys' expiries, all atomically. Every key expires: a live
 * stream after `liveTtlMs` without a write, an ended one `ttlMs` after its end. The keys of a response derive
 * from its id and `owner` and share a `{hash tag}` (one Cluster slot), so another owner's stream is not
 * found. When Redis cannot be reached, every call fails with `EventLogError('unavailable')` within about
 * `commandTimeoutMs` (the client reconnects in the background). Events without a non-negative integer
 * `sequence_number` cannot be placed and are not stored.
 *
 * ioredis is loaded on first use, so importing `openai-rx` in a browser does not pull it in.
 *
 * ```ts
 * const log = redisEventLog({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });
 * streamResponse({ model, input, background: true }, config).pipe(persistTo(log)).subscribe();
 * // in another process, later, or after a reconnect:
 * fromEventLog(log, responseId, { startingAfter: 41 }).subscribe(render);
 * await log.close();
 * ```
 */
export function redisEventLog(options: RedisEventLogOptions = {}): EventLog & FollowableEventLog {
  const settings = redisLogSettings(options);
  const conn = redisConnections({ url: options.url, client: options.client, timeoutMs: settings.timeoutMs, keyPrefix: settings.keyPrefix, subscribe: settings.subscribe });
  const keysOf = (scope: LogScope): string[] => streamKeyList(settings.keyPrefix, scope);
  const run = scriptRunner(conn, keysOf, settings.retryBudgetMs);
  // The write path (appends, lease calls): batched per slot, per node on a Cluster, confirmed by `replicas`.
  const send = scriptSender(conn, settings, { first: evictionCheck(settings) });
  const { acquire, renew, release, flush } = redisLease(conn, send, keysOf, settings);
  const { read, wait, state } = redisRead(conn, send, settings);
  const { append, appendPacked } = redisAppend(conn, send, keysOf, settings);

  // A writer of this log queues its events as the JSON stored (lib/log/packed.ts).
  return takesPacked<EventLog & FollowableEventLog>({
    acquire,
    renew,
    release,
    append,
    read,
    wait,
    follow: redisFollow(conn, run, settings),
    state,

    async cancel(scope) {
      conn.ensureOpen(scope);
      // On a Cluster (and with liveReads 'subscribe') the end is published too, for the live readers subscribed to the stream.
      const live = conn.publishes(await conn.timed(conn.client(), scope));
      await run(CANCEL, scope, live ? [settings.ttlMs, 1] : [settings.ttlMs]);
    },

    close: () => {
      flush(); // lease calls still waiting for their batch (a writer's release) go before the connection closes
      return conn.close();
    },
  }, { encode: encodeFlat, append: appendPacked });
}
