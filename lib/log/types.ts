import type { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';

// The contract of a durable event log: the events of response streams, keyed by response id (and the
// application's `owner`), written by one leased producer at a time and read by any number of readers,
// from any process connected to the same store. `memoryEventLog` and `redisEventLog` implement it and pass
// one shared contract suite.

/** Who may read and write a stream: keys derive from it, so another owner's stream is simply not found. */
export interface LogScope {
  readonly responseId: string;
  /** Supplied by the application (e.g. a hash of the caller's credentials). Default `''`. */
  readonly owner?: string;
}

/** A producer's hold on a stream. `token` fences: appends with an older token are refused atomically. */
export interface Lease {
  readonly token: number;
  /** Epoch ms when the lease lapses unless renewed. */
  readonly expiresAt: number;
}

/** How a stream ended in the log: at a terminal event, or closed by `cancel`. */
export type LogEnd = 'completed' | 'cancelled';

/** What a reader sees of a stream right now. */
export interface LogState {
  /** Highest stored `sequence_number`, `undefined` while none. */
  readonly lastSequenceNumber: number | undefined;
  /** Set once the stream ended (terminal event stored, or cancelled). */
  readonly end: LogEnd | undefined;
  /** The current lease, `undefined` when none is held or it lapsed. */
  readonly lease: Lease | undefined;
}

/** Where a follower's news goes (`EventLog.follow`). */
export interface FollowHandlers {
  /** The next stored events after the last ones handed over (in order, each once; a batch is never empty). */
  readonly events: (batch: ResponseStreamEvent[]) => void;
  /** The stream ended (terminal event stored or cancelled); the events before it may still be in flight. */
  readonly end: () => void;
  /** The log failed; nothing more is called. */
  readonly error: (e: EventLogError) => void;
  /**
   * Every event stored before `at` (a `Date.now()`) has been handed to `events`, the follower is caught up as
   * of then. A log may call it after each read of the stream; the reader uses it to tell a follow that is
   * slow (keep waiting) from one that has stalled (read the log itself).
   */
  readonly synced?: (at: number) => void;
}

export interface EventLog {
  /**
   * Claims the lease on a stream for `leaseMs`. Succeeds when no live lease is held (a lapsed one may be
   * taken over); the new token is greater than every earlier one. Fails with `EventLogError('lease_held')`.
   * The stream exists from then on (`state` shows the lease, `lastSequenceNumber` still `undefined`).
   */
  acquire(scope: LogScope, leaseMs: number): Promise<Lease>;
  /** Extends a held lease. Fails with `EventLogError('fenced')` when `token` is no longer the current one (or its lease lapsed). */
  renew(scope: LogScope, token: number, leaseMs: number): Promise<Lease>;
  /** Gives the lease up (after the terminal event, or on unsubscribe). A stale token is ignored. */
  release(scope: LogScope, token: number): Promise<void>;
  /**
   * Appends events in order, atomically with the fencing check: all or none. Events at or below the stored
   * `lastSequenceNumber` are skipped (a replay after takeover). A terminal event ends the stream and starts
   * its retention TTL. Fails with `EventLogError('fenced')`, `('limit')` past the per-stream limits, or
   * `('unavailable')` when the store cannot be reached.
   */
  append(scope: LogScope, token: number, events: readonly ResponseStreamEvent[]): Promise<void>;
  /**
   * Stored events with `sequence_number` > `after` (all when `undefined`), at most `limit`, in order. An `after` that
   * is not an integer ≥ 0 (`NaN`, `1e20`, `-1`, `2.5`) fails with `InvalidOptionError`, on every log alike.
   */
  read(scope: LogScope, after: number | undefined, limit?: number): Promise<ResponseStreamEvent[]>;
  /**
   * Resolves when the stream has events after `after`, has ended, or `timeoutMs` passed (then `false`). Also
   * on a stream that does not exist yet (it resolves at its first event). An abort of `signal` settles it at
   * once (`false`; the contract suite also accepts a rejection). `after` is checked as `read` checks it.
   */
  wait(scope: LogScope, after: number | undefined, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** The stream's state; `undefined` when it does not exist (or belongs to another owner). */
  state(scope: LogScope): Promise<LogState | undefined>;
  /**
   * Ends the stream as cancelled, so every reader ends, and drops the lease, so the producer's next append or
   * renew is fenced. A completed stream stays completed; a stream not started yet is created ended.
   */
  cancel(scope: LogScope): Promise<void>;
  /** Releases the log's own resources (connections it opened, timers). */
  close(): Promise<void>;
  /**
   * Optional: hands the events stored after `after` (all when `undefined`) to `handlers.events` as they are
   * appended, until the returned function is called, and calls `handlers.end` once when the stream ends. Throws
   * `InvalidOptionError` at once for an `after` that `read` refuses. A log that has it spares each reader a
   * `wait` then `read` per wake-up (`fromEventLog` uses it when present: `canFollow`). A wrapper of a log must
   * pass it through when the wrapped log has it (and only then), or its readers fall back to polling.
   */
  follow?(scope: LogScope, after: number | undefined, handlers: FollowHandlers): () => void;
}
