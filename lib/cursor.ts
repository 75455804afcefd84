import type { InvalidOptionError } from './errors.js';
import { invalidOption } from './options.js';

// A cursor names the last event a reader has (`startingAfter` of a transport or `fromEventLog`, `after` of an
// EventLog's read/wait/follow): `undefined` (from the start) or a sequence number. One check for every reader, so
// each refuses the same values with the same typed error, before anything is sent or read: a value such as
// `1e20` or `NaN` would otherwise reach a store as an invalid id (and fail as if the store were down).

/**
 * @internal `undefined` when `after` is a cursor (`undefined`, or an integer ≥ 0 up to `Number.MAX_SAFE_INTEGER`),
 * else an `InvalidOptionError` naming `param` and the value.
 */
export function checkCursor(after: unknown, param = 'startingAfter'): InvalidOptionError | undefined {
  if (after === undefined || (typeof after === 'number' && Number.isSafeInteger(after) && after >= 0)) return undefined;
  return invalidOption(param, 'a sequence number (an integer ≥ 0)', after);
}

/**
 * @internal Throws the `InvalidOptionError` of an EventLog's `after` that is not a cursor. Every log checks it
 * before its store sees it: on Redis, an id such as `1e+20-1` would fail the XREAD shared by every reader.
 */
export function checkAfter(after: unknown): void {
  const invalid = checkCursor(after, 'after');
  if (invalid) throw invalid;
}
