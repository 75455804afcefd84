import type { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from './types.js';

// An optional capability of an EventLog, beyond the contract (lib/log/types.ts): pushing a stream's new events
// to a reader as they are stored, instead of the reader's `wait` then `read` per wake-up. `redisEventLog` has
// it (the entries come straight from its shared XREAD's reply); `fromEventLog` uses it when a log has it and
// falls back to `wait` / `read` otherwise.

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

export interface FollowableEventLog extends EventLog {
  /**
   * Hands the events stored after `after` (all when `undefined`) to `handlers.events` as they are appended,
   * until the returned function is called. Calls `handlers.end` once when the stream ends. Throws
   * `InvalidParameterError` at once for an `after` that `read` refuses.
   */
  follow(scope: LogScope, after: number | undefined, handlers: FollowHandlers): () => void;
}

export function canFollow(log: EventLog): log is FollowableEventLog {
  return typeof (log as Partial<FollowableEventLog>).follow === 'function';
}
