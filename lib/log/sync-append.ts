import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from './types.js';

// A log whose append needs no I/O (memoryEventLog) may acknowledge a writer's append at once: at one event per
// append (the gateway's recording, `maxBatchDelayMs: 0`) the promise of an `async append`, the wrappers' chained
// reactions and the writer's own were most of what an append cost. Registered per log object, as packed appends
// are (lib/log/packed.ts): a wrapper of the log is not the log unless it forwards the registration (`forwardSync`)
// with its own work around the append.

/**
 * As `EventLog.append`, answering `undefined` when the append is stored and acknowledged already, or a promise
 * (a rejected one when it failed) to wait for as for `append`'s. A failure is never thrown, so that it reaches the
 * writer when and as an `append`'s rejection would.
 */
export type SyncAppend = (scope: LogScope, token: number, events: readonly ResponseStreamEvent[]) => Promise<void> | undefined;

const sync = new WeakMap<EventLog, SyncAppend>();

/** @internal Says that `log` can acknowledge appends at once, through `append`. */
export function appendsSync<L extends EventLog>(log: L, append: SyncAppend): L {
  sync.set(log, append);
  return log;
}

/** @internal The synchronous appends of `log`, when it has them. */
export const syncAppendOf = (log: EventLog): SyncAppend | undefined => sync.get(log);

/**
 * @internal Registers `wrapper`, a wrapper of `log`, as appending synchronously exactly when `log` does, through
 * `wrap(log's)`, which must do around such an append what the wrapper's own `append` does around an append.
 */
export function forwardSync<L extends EventLog>(wrapper: L, log: EventLog, wrap: (append: SyncAppend) => SyncAppend): L {
  const s = sync.get(log);
  if (s !== undefined) sync.set(wrapper, wrap(s));
  return wrapper;
}
