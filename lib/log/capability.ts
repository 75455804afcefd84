import type { EventLog } from './types.js';

// What a log can do beyond the EventLog contract (take packed appends, acknowledge appends at once), registered per
// log object, not a property of it: a wrapper of the log (`{ ...log, append }`) is not the log, and its own `append`
// keeps being called, unless the wrapper forwards the registration with its own work around the log's.

export interface LogCapability<T> {
  /** Says that `log` has it, as `value`. */
  give<L extends EventLog>(log: L, value: T): L;
  /** What `log` has, when it has it. */
  of(log: EventLog): T | undefined;
  /**
   * Registers `wrapper`, a wrapper of `log`, as having it exactly when `log` does: `log`'s as `wrap` makes it, which
   * must do around it what the wrapper's own `append` does around an append (counting, timing, watching for a
   * cancel): a writer of `wrapper` calls one or the other, never both.
   */
  forward<L extends EventLog>(wrapper: L, log: EventLog, wrap: (value: T) => T): L;
}

export function logCapability<T>(): LogCapability<T> {
  const by = new WeakMap<EventLog, T>();
  return {
    give(log, value) {
      by.set(log, value);
      return log;
    },
    of: (log) => by.get(log),
    forward(wrapper, log, wrap) {
      const v = by.get(log);
      if (v !== undefined) by.set(wrapper, wrap(v));
      return wrapper;
    },
  };
}
