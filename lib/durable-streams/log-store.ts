import { EventLogError } from '../errors.js';
import type { EventLog } from '../log/types.js';
import { Access } from './log-store-access.js';
import { Appender } from './log-store-append.js';
import { CallOrder } from './log-store-order.js';
import { Directory } from './log-store-directory.js';
import { KeepAlive } from './log-store-keepalive.js';
import { createStream, deleteStream, infoOf, type Lifecycle, liveAt } from './log-store-lifecycle.js';
import { type EventLogStreamStoreOptions, logStoreSettings } from './log-store-options.js';
import { dataState, readEntries, segmentsOf } from './log-store-read.js';
import { formatOffset, parseOffset, START_OFFSET, TAIL_OFFSET } from './offsets.js';
import type { DurableStreamStore } from './store.js';

export type { EventLogStreamStoreOptions } from './log-store-options.js';

const NOT_FOUND = { status: 'not_found' } as const;
const GONE = { status: 'gone' } as const;
const TOO_LARGE = { status: 'too_large' } as const;

/**
 * The log refused the append past its per-stream limits (`maxEvents`, `maxBytes`): nothing of it was stored (the
 * log's append is all or none), so it is the request's answer (413), not an outage (503, which clients retry).
 * Appends waiting together in one process are stored in one log append: one over the limit refuses them all.
 */
function limitIsTooLarge(e: unknown): typeof TOO_LARGE {
  if (e instanceof EventLogError && e.reason === 'limit') return TOO_LARGE;
  throw e;
}

/**
 * A {@link DurableStreamStore} whose whole state lives in an `EventLog` (`memoryEventLog`, `redisEventLog` on one
 * Redis or a Cluster): any process connected to the same log serves any stream. Per path, a directory stream in the
 * log records its incarnations (created, deleted, fork references); each incarnation's entries are the events of
 * its own data stream (an entry's sequence number is the offset after it; the close is a terminal event after the
 * last entry, stored with it in one append). Writes to a stream are serialized across processes by the log's lease
 * (and batched within a process, stored in the order they were called); in-process caches (directory views, producer
 * state) are validated against the log's last sequence number on every use. docs/durable-streams-store.md: the
 * guarantees, the log's retention, the cost.
 *
 * ```ts
 * const store = eventLogStreamStore(redisEventLog({ url }), { namespace: 'streams' });
 * ```
 */
export function eventLogStreamStore(log: EventLog, options: EventLogStreamStoreOptions = {}): DurableStreamStore {
  const settings = logStoreSettings(log, options);
  const c: Lifecycle = { log, settings, dir: new Directory(log, settings), access: new Access(log, settings), keepAlive: new KeepAlive(log, settings) };
  const appender = new Appender(log, settings);
  const order = new CallOrder();

  return {
    async info(path, touch) {
      const inc = await liveAt(c, path, touch);
      if (inc === 'not_found') return NOT_FOUND;
      if (inc === 'gone') return GONE;
      return infoOf(c, inc);
    },

    async read(path, offset, { maxBytes }) {
      const inc = await liveAt(c, path, true);
      if (inc === 'not_found') return NOT_FOUND;
      if (inc === 'gone') return GONE;
      const info = await infoOf(c, inc);
      const tail = parseOffset(info.tail) ?? 0;
      const from = offset === START_OFFSET ? 0 : offset === TAIL_OFFSET ? tail : parseOffset(offset);
      if (from === undefined) return { status: 'bad_request', reason: `malformed offset` };
      const entries = from >= tail ? [] : await readEntries(log, settings, segmentsOf(inc, tail), from, maxBytes);
      const next = from + entries.length;
      const upToDate = next >= tail;
      return { info, entries, next: next > tail ? offset : formatOffset(next), upToDate, closed: info.closed && upToDate };
    },

    async wait(path, offset, timeoutMs, signal) {
      const inc = await liveAt(c, path, false);
      if (typeof inc === 'string') return true; // the read that follows answers 404 / 410
      const d = await dataState(log, settings, inc);
      const at = offset === START_OFFSET ? 0 : offset === TAIL_OFFSET ? d.tail : parseOffset(offset);
      if (at === undefined || d.closed || at < d.tail) return true;
      if (signal.aborted) return false;
      try {
        return await log.wait(settings.scopes.get(inc.data), Math.max(at, inc.base), timeoutMs, signal);
      } catch (e) {
        if (signal.aborted) return false;
        throw e;
      }
    },

    create: (path, request) => createStream(c, path, request).catch(limitIsTooLarge),

    // In call order per path (log-store-order.ts): the look-up before the writer's queue takes varying time.
    append: (path, request) =>
      order.run(path, liveAt(c, path, true), (inc) => {
        if (inc === 'not_found') return NOT_FOUND;
        if (inc === 'gone') return GONE;
        return appender.append(inc, request).catch(limitIsTooLarge);
      }),

    delete: (path) => deleteStream(c, path),
  };
}
