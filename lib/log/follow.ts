import type { EventLog, FollowHandlers, LogScope } from './types.js';

// The follow capability, an optional member of the contract (`EventLog.follow`, lib/log/types.ts): pushing a
// stream's new events to a reader as they are stored, instead of the reader's `wait` then `read` per wake-up.
// `redisEventLog` has it (the entries come straight from its shared XREAD's reply); `fromEventLog` uses it
// when a log has it and falls back to `wait` / `read` otherwise. Wrappers pass it through (`followOf`).

export type { FollowHandlers } from './types.js';

/** An {@link EventLog} whose `follow` is there. */
export interface FollowableEventLog extends EventLog {
  follow(scope: LogScope, after: number | undefined, handlers: FollowHandlers): () => void;
}

export function canFollow(log: EventLog): log is FollowableEventLog {
  return typeof (log as Partial<FollowableEventLog>).follow === 'function';
}

/**
 * The `follow` member for a wrapper of `log`: `{ follow }` calling the wrapped log's (with `handlers` as
 * `wrap` makes them, e.g. to count errors) when it has one, `{}` when not, so a wrapper spreads it into the
 * log it returns and keeps the capability exactly when the wrapped log has it.
 */
export function followOf(log: EventLog, wrap: (handlers: FollowHandlers) => FollowHandlers = (h) => h): Pick<EventLog, 'follow'> {
  if (!canFollow(log)) return {};
  return { follow: (scope, after, handlers) => log.follow(scope, after, wrap(handlers)) };
}
