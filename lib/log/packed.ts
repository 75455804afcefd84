import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from './types.js';

// A log that stores each event as its JSON may take a writer's events encoded as they are pushed: a queued
// event then waits for its append (a round trip, while the one before is in flight) as one flat string instead
// of its object graph, which the garbage collector would copy and promote (much of a bulk producer's CPU).
// Registered per log object, not a property of it: a wrapper of the log (`{ ...log, append }`) is not the log,
// and its own `append` keeps being called, unless the wrapper forwards the registration (`forwardPacked`) with
// its own work around the packed append, as around its object append.

/** What `append` takes: the events' marks (`seq`, or `-1 - seq` for a terminal event) and their JSON, in order. */
export interface PackedEvents {
  readonly marks: readonly number[];
  readonly jsons: readonly string[];
}

export interface PackedAppend {
  /** The JSON the log stores for `e` (a placeable event); throws as `JSON.stringify` does. */
  readonly encode: (e: ResponseStreamEvent) => string;
  /** As `EventLog.append`, for events encoded by `encode`. */
  readonly append: (scope: LogScope, token: number, events: PackedEvents) => Promise<void>;
}

const packed = new WeakMap<EventLog, PackedAppend>();

/** @internal Says that `log` takes packed appends. */
export function takesPacked<L extends EventLog>(log: L, p: PackedAppend): L {
  packed.set(log, p);
  return log;
}

/** @internal The packed appends of `log`, when it is one that takes them. */
export const packedAppendOf = (log: EventLog): PackedAppend | undefined => packed.get(log);

/**
 * @internal Registers `wrapper`, a wrapper of `log`, as taking packed appends exactly when `log` does: `log`'s
 * packed appends as `wrap` makes them. `wrap` must do around a packed append what the wrapper's own `append` does
 * around an object append (counting, timing, watching for a cancel): a writer of `wrapper` calls one or the other,
 * never both.
 */
export function forwardPacked<L extends EventLog>(wrapper: L, log: EventLog, wrap: (p: PackedAppend) => PackedAppend): L {
  const p = packed.get(log);
  if (p !== undefined) packed.set(wrapper, wrap(p));
  return wrapper;
}
