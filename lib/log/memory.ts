import { checkAfter } from '../cursor.js';
import { EventLogError } from '../errors.js';
import { nonNegativeInt, nonNegativeNumber, optionalFunction, positiveDurationMs } from '../options.js';
import { rawDataOf } from '../decode/raw-data.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { byteLength, mostBytes, StoredEvents } from './memory-events.js';
import { isTerminalEvent, scopeKey } from './scope.js';
import type { EventLog, Lease, LogEnd, LogScope, LogState } from './types.js';
import { appendsSync, type SyncAppend } from './sync-append.js';
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_STREAM_BYTES, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_TTL_MS } from './defaults.js';

export interface MemoryEventLogOptions {
  /** How long an ended stream (terminal event or cancel) is kept, in ms. Default 24 h. */
  readonly ttlMs?: number;
  /**
   * How long a stream that has not ended is kept after its last acquire, renew or append, in ms (at least twice
   * the lease): a producer gone without a terminal event leaves nothing behind for good. Default 24 h.
   */
  readonly liveTtlMs?: number;
  /** Most events one stream may hold; an append past it fails with `EventLogError('limit')`. Default 100 000. */
  readonly maxEvents?: number;
  /** Most bytes (UTF-8 JSON of the events) one stream may hold; past it: `EventLogError('limit')`. Default 64 MiB. */
  readonly maxBytes?: number;
  /**
   * Most bytes (UTF-8 JSON of the events) the whole log may hold. An append that would pass it first drops ended
   * streams, the earliest ended first (as their TTL would, sooner); if the live streams alone would pass it, the
   * append fails with `EventLogError('limit')`. Default 512 MiB.
   */
  readonly maxTotalBytes?: number;
  /** The clock leases are measured with, in epoch ms. Default `Date.now`. (Retention runs on real timers.) */
  readonly now?: () => number;
}

interface Stream {
  /** Its key in the log's map (`scopeKey`). */
  readonly key: string;
  /** Taken out of the log's map (expired, or the log closed): a writer's scope bound to it looks it up again. */
  dropped: boolean;
  /** The events, as their UTF-8 JSON (lib/log/memory-events.ts); their size in bytes is `events.bytes`. */
  readonly events: StoredEvents;
  last: number | undefined;
  end: LogEnd | undefined;
  lease: Lease | undefined;
  /** When the stream is dropped (Date.now ms), pushed back by writes while it is live. */
  expiresAt: number;
  /** The armed expiry timer, and when it fires: it re-arms itself while `expiresAt` is later (no timer churn per append). */
  timer: ReturnType<typeof setTimeout> | undefined;
  timerAt: number;
}

/** setTimeout's longest delay: a longer one fires at once (TimeoutOverflowWarning). */
const MAX_DELAY = 2 ** 31 - 1;
/** The text an event is stored as: its JSON, the upstream's own text when the decoder kept it (not serialised again). */
const textOf = (e: ResponseStreamEvent): string => rawDataOf(e) ?? JSON.stringify(e);

/**
 * The embedded event log: the streams live in this process's memory, so readers and writers must share
 * it (one server, tests, a worker that replays to reconnecting browsers). Implements {@link EventLog}:
 * leases with increasing fencing tokens, fenced all-or-none appends that skip replayed sequence numbers,
 * terminal events and `cancel` end a stream, which is then kept `ttlMs` (timers are `unref`'d and cleared
 * by `close()`); a stream that never ends is dropped `liveTtlMs` after its last write. Events without a numeric `sequence_number` cannot be placed and are not stored.
 * Events are kept as their JSON (as the Redis log keeps them: few objects for the garbage collector, however many
 * events are kept): a read gives new objects, parsed again, each with its stored text as {@link rawDataOf}.
 *
 * ```ts
 * const log = memoryEventLog({ ttlMs: 60 * 60 * 1000 });
 * streamResponse({ model, input, background: true }, config).pipe(persistTo(log)).subscribe();
 * // elsewhere, later, or after a reconnect:
 * fromEventLog(log, responseId, { startingAfter: 41 }).subscribe(render);
 * ```
 */
export function memoryEventLog(options: MemoryEventLogOptions = {}): EventLog {
  const ttlMs = positiveDurationMs('ttlMs', options.ttlMs, DEFAULT_TTL_MS);
  const liveTtlMs = positiveDurationMs('liveTtlMs', options.liveTtlMs, DEFAULT_TTL_MS);
  const maxEvents = nonNegativeInt('maxEvents', options.maxEvents, DEFAULT_MAX_EVENTS);
  const maxBytes = nonNegativeNumber('maxBytes', options.maxBytes, DEFAULT_MAX_STREAM_BYTES);
  const maxTotalBytes = nonNegativeNumber('maxTotalBytes', options.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES);
  const now = optionalFunction('now', options.now) ?? Date.now;
  const streams = new Map<string, Stream>();
  const waiters = new Map<string, Set<() => void>>();
  /** The events' bytes over every stream in the map, and the ended streams in the order they ended (the first to go). */
  let totalBytes = 0;
  const endedOrder = new Set<Stream>();
  let tokens = 0;
  let closed = false;

  const live = (s: Stream): Lease | undefined => (s.lease !== undefined && s.lease.expiresAt > now() ? s.lease : undefined);
  const ensureOpen = (scope: LogScope): void => {
    if (closed) throw new EventLogError('unavailable', 'the log is closed', scope.responseId);
  };
  const notify = (key: string): void => {
    if (waiters.size === 0) return; // (most appends: nobody waits, and no look-up is made for them)
    const set = waiters.get(key);
    if (!set) return;
    waiters.delete(key);
    for (const wake of set) wake();
  };
  /** Out of the map: a writer's scope that still names it looks the stream up again, and its events and timer are let go. */
  const dropped = (s: Stream): void => {
    s.dropped = true;
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    totalBytes -= s.events.bytes;
    endedOrder.delete(s);
    s.events.release();
  };
  /** Drops ended streams, the earliest ended first, until `bytes` more fit under maxTotalBytes; whether they do. */
  const roomFor = (bytes: number): boolean => {
    for (const s of endedOrder) {
      if (totalBytes + bytes <= maxTotalBytes) break;
      streams.delete(s.key);
      dropped(s);
    }
    return totalBytes + bytes <= maxTotalBytes;
  };
  const arm = (key: string, s: Stream): void => {
    const delay = Math.min(MAX_DELAY, Math.max(0, s.expiresAt - Date.now()));
    s.timerAt = Date.now() + delay;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (streams.get(key) !== s) return;
      if (s.expiresAt > Date.now()) arm(key, s);
      else {
        streams.delete(key);
        dropped(s);
      }
    }, delay);
    (s.timer as { unref?: () => void }).unref?.();
  };
  /** Drops the stream `ms` from now (not earlier, not later), re-arming only when the deadline moves forward. */
  const expireIn = (key: string, s: Stream, ms: number): void => {
    s.expiresAt = Date.now() + ms;
    if (s.timer !== undefined && s.timerAt <= s.expiresAt) return; // it fires first and re-arms for the rest
    if (s.timer !== undefined) clearTimeout(s.timer);
    arm(key, s);
  };
  const create = (key: string): Stream => {
    const s: Stream = { key, dropped: false, events: new StoredEvents(), last: undefined, end: undefined, lease: undefined, expiresAt: 0, timer: undefined, timerAt: 0 };
    streams.set(key, s);
    return s;
  };
  const ended = (key: string, s: Stream, end: LogEnd): void => {
    s.end = end;
    endedOrder.add(s);
    s.events.fit();
    expireIn(key, s, ttlMs);
    notify(key);
  };
  // A writer passes the same scope object to each call: the stream it names is kept with it, not looked up in the
  // map per append (a paced gateway's map look-up, cold in the cache among its thousand streams, cost ~0.5 us).
  const bound = new WeakMap<LogScope, { readonly owner: unknown; readonly responseId: unknown; readonly stream: Stream }>();
  const writersStream = (scope: LogScope): Stream | undefined => {
    const b = bound.get(scope);
    if (b !== undefined && !b.stream.dropped && b.owner === scope.owner && b.responseId === scope.responseId) return b.stream;
    const s = streams.get(scopeKey(scope));
    if (s !== undefined) bound.set(scope, { owner: scope.owner, responseId: scope.responseId, stream: s });
    return s;
  };
  const fencedStream = (scope: LogScope, token: number): Stream => {
    const s = writersStream(scope);
    const lease = s && live(s);
    if (!s || !lease || lease.token !== token) {
      throw new EventLogError('fenced', `token ${token} does not hold the lease`, scope.responseId);
    }
    return s;
  };

  /** An append, done before it returns (nothing to wait for in memory); throws what `append` rejects with. */
  const appendNow = (scope: LogScope, token: number, events: readonly ResponseStreamEvent[]): void => {
    ensureOpen(scope);
    const s = fencedStream(scope, token);
    const key = s.key;
    if (s.end !== undefined) return; // after the terminal event nothing more belongs to the stream
    // Staged, all checked, then all stored (or none): what is past a limit is counted, not staged.
    const stored = s.events;
    let last = s.last;
    let count = 0;
    let bytes = 0;
    let terminal = false;
    try {
      for (const e of events) {
        const n = e.sequence_number;
        if (typeof n !== 'number' || !Number.isFinite(n) || (last !== undefined && n <= last)) continue;
        const text = textOf(e);
        count++;
        last = n;
        // Far from maxBytes (the text's most bytes fit): encoded once, its size the bytes written; else measured first.
        if (stored.count + count > maxEvents) bytes += byteLength(text);
        else if (stored.bytes + bytes + mostBytes(text.length) <= maxBytes) bytes += stored.stage(n, text);
        else {
          const size = byteLength(text);
          bytes += size;
          if (stored.bytes + bytes <= maxBytes) stored.stage(n, text, size);
        }
        if (isTerminalEvent(e)) {
          terminal = true;
          break;
        }
      }
    } catch (e) {
      stored.drop(); // an event JSON.stringify refuses
      throw e;
    }
    if (count === 0) return;
    if (stored.count + count > maxEvents) {
      stored.drop();
      throw new EventLogError('limit', `the stream would hold ${stored.count + count} events (maxEvents ${maxEvents})`, scope.responseId);
    }
    if (stored.bytes + bytes > maxBytes) {
      stored.drop();
      throw new EventLogError('limit', `the stream would hold ${stored.bytes + bytes} bytes (maxBytes ${maxBytes})`, scope.responseId);
    }
    if (totalBytes + bytes > maxTotalBytes && !roomFor(bytes)) {
      stored.drop();
      throw new EventLogError('limit', `the log would hold ${totalBytes + bytes} bytes (maxTotalBytes ${maxTotalBytes})`, scope.responseId);
    }
    const before = stored.bytes;
    stored.commit();
    totalBytes += stored.bytes - before;
    s.last = last;
    if (terminal) ended(key, s, 'completed');
    else {
      expireIn(key, s, liveTtlMs);
      notify(key);
    }
  };

  /** The writers' append (lib/log/sync-append.ts): acknowledged at once, a failure as a rejected promise. */
  const syncAppend: SyncAppend = (scope, token, events) => {
    try {
      appendNow(scope, token, events);
      return undefined;
    } catch (e) {
      return Promise.reject(e);
    }
  };

  return appendsSync<EventLog>({
    async acquire(scope, leaseMs) {
      ensureOpen(scope);
      const key = scopeKey(scope);
      let s = streams.get(key);
      if (s && live(s)) throw new EventLogError('lease_held', 'another producer holds the lease', scope.responseId);
      s ??= create(key);
      s.lease = { token: ++tokens, expiresAt: now() + leaseMs };
      if (s.end === undefined) expireIn(key, s, Math.max(liveTtlMs, 2 * leaseMs));
      return s.lease;
    },

    async renew(scope, token, leaseMs) {
      ensureOpen(scope);
      const s = fencedStream(scope, token);
      const key = s.key;
      s.lease = { token, expiresAt: now() + leaseMs };
      if (s.end === undefined) expireIn(key, s, Math.max(liveTtlMs, 2 * leaseMs));
      return s.lease;
    },

    async release(scope, token) {
      ensureOpen(scope);
      const s = streams.get(scopeKey(scope));
      if (s?.lease?.token === token) s.lease = undefined;
    },

    async append(scope, token, events) {
      appendNow(scope, token, events);
    },

    async read(scope, after, limit) {
      ensureOpen(scope);
      checkAfter(after);
      const s = streams.get(scopeKey(scope));
      if (!s) return [];
      const stored = s.events;
      const i = after === undefined ? 0 : stored.firstAfter(after);
      return stored.read(i, limit === undefined ? stored.count : Math.min(stored.count, i + Math.max(0, limit)));
    },

    wait(scope, after, timeoutMs, signal) {
      return new Promise<boolean>((resolve, reject) => {
        try {
          ensureOpen(scope);
          checkAfter(after);
        } catch (e) {
          reject(e);
          return;
        }
        const key = scopeKey(scope);
        const ready = (): boolean => {
          const s = streams.get(key);
          return s !== undefined && (s.end !== undefined || (s.last !== undefined && (after === undefined || s.last > after)));
        };
        if (ready()) return resolve(true);
        if (signal?.aborted) return resolve(false);
        let set = waiters.get(key);
        if (!set) waiters.set(key, (set = new Set()));
        const done = (value: boolean): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const current = waiters.get(key);
          current?.delete(wake);
          if (current?.size === 0) waiters.delete(key);
          resolve(value);
        };
        const wake = (): void => {
          if (closed) return done(false);
          if (ready()) return done(true);
          // Woken for events at or below `after`: wait on.
          let again = waiters.get(key);
          if (!again) waiters.set(key, (again = new Set()));
          again.add(wake);
        };
        const onAbort = (): void => done(false);
        const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
        signal?.addEventListener('abort', onAbort, { once: true });
        set.add(wake);
      });
    },

    async state(scope): Promise<LogState | undefined> {
      ensureOpen(scope);
      const s = streams.get(scopeKey(scope));
      if (!s) return undefined;
      return { lastSequenceNumber: s.last, end: s.end, lease: s && live(s) };
    },

    async cancel(scope) {
      ensureOpen(scope);
      const key = scopeKey(scope);
      // Cancelled before its producer started: the producer's acquire finds it ended, readers end at once.
      const s = streams.get(key) ?? create(key);
      s.lease = undefined; // the producer's next append or renew is fenced off
      if (s.end === undefined) ended(key, s, 'cancelled');
    },

    async close() {
      closed = true;
      for (const s of streams.values()) dropped(s);
      streams.clear();
      for (const key of [...waiters.keys()]) notify(key);
    },
  }, syncAppend);
}
