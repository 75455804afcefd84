import { excerpt, InvalidOptionError } from './errors.js';

// The checks of option values, written once: every option of the package is refused alike, with an
// InvalidOptionError naming it (a path such as 'upstream.baseURL') and what was wrong, before anything starts.
// A value is shown as a number, a short masked excerpt of a string, or its type: a key is never quoted.

/** How a refused value appears in a message. */
export function shownValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  // A URL may carry credentials where no pattern finds them: its length only.
  if (typeof v === 'string') return /[@:]/.test(v) ? `a string of ${v.length} characters` : `the string ${excerpt(v, 40)}`;
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}

/** The error for `option`, with what was expected and what came. */
export function invalidOption(option: string, expected: string, got: unknown): InvalidOptionError {
  return new InvalidOptionError(option, `expected ${expected}, got ${shownValue(got)}`);
}

type Checked<F> = number | F;

function numberCheck(test: (v: number) => boolean, expected: string) {
  return <F extends number | undefined = undefined>(option: string, v: unknown, fallback?: F): Checked<F> => {
    if (v === undefined) return fallback as F;
    if (typeof v !== 'number' || !test(v)) throw invalidOption(option, expected, v);
    return v;
  };
}

/** A finite number ≥ 0 (a size, a limit), `fallback` when absent. */
export const nonNegativeNumber = /* @__PURE__ */ numberCheck((v) => Number.isFinite(v) && v >= 0, 'a finite number ≥ 0');
/** A finite number > 0. */
export const positiveNumber = /* @__PURE__ */ numberCheck((v) => Number.isFinite(v) && v > 0, 'a finite number > 0');
/** An integer ≥ 0 (up to `Number.MAX_SAFE_INTEGER`). */
export const nonNegativeInt = /* @__PURE__ */ numberCheck((v) => Number.isSafeInteger(v) && v >= 0, 'an integer ≥ 0');
/** An integer ≥ 1 (up to `Number.MAX_SAFE_INTEGER`). */
export const positiveInt = /* @__PURE__ */ numberCheck((v) => Number.isSafeInteger(v) && v >= 1, 'an integer ≥ 1');
/** A duration in ms: a finite number ≥ 0. */
export const durationMs = /* @__PURE__ */ numberCheck((v) => Number.isFinite(v) && v >= 0, 'a duration in ms (a finite number ≥ 0)');
/** A duration in ms that cannot be 0 (a poll interval, a lease). */
export const positiveDurationMs = /* @__PURE__ */ numberCheck((v) => Number.isFinite(v) && v > 0, 'a duration in ms > 0');

/** A TCP port to listen on (0: any free one). */
export const portNumber = /* @__PURE__ */ numberCheck((v) => Number.isSafeInteger(v) && v >= 0 && v <= 65535, 'a port number (an integer from 0 to 65535)');

/** One of `allowed`, `fallback` when absent. */
export function oneOf<T extends string | boolean, F extends T | undefined = undefined>(option: string, v: unknown, allowed: readonly T[], fallback?: F): T | F {
  if (v === undefined) return fallback as F;
  if (!(allowed as readonly unknown[]).includes(v)) throw invalidOption(option, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, v);
  return v as T;
}

/** Runs the checks of a nested object of options, naming what they refuse under `prefix` (`upstream.baseURL`). */
export function nested<T>(prefix: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    throw e instanceof InvalidOptionError ? new InvalidOptionError(`${prefix}.${e.option}`, e.reason) : e;
  }
}

/** A function or nothing. */
export function optionalFunction<T>(option: string, v: T | undefined): T | undefined {
  if (v !== undefined && typeof v !== 'function') throw invalidOption(option, 'a function', v);
  return v;
}
