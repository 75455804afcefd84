// Marble assertions that compare errors as the library's users tell them apart. jest's `toEqual` compares two
// Errors by message only, so `toBe('--#', values, new StreamInterruptedError(…))` would also pass for a
// NetworkError with the same message, or for one whose `code` or `retryable` regressed. `marbleScheduler()`
// runs the usual deep equality and then, for every error notification whose expected error is an Error,
// compares its class, name, message, `code`, `retryable` and other own enumerable properties.
import { TestScheduler } from 'rxjs/testing';

interface Message {
  readonly frame?: number;
  readonly notification?: { readonly kind?: string; readonly error?: unknown };
}

/** What identifies an error: its class and the fields a caller branches on (`code`, `retryable`), then the rest. */
export function errorShape(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const own: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) own[k] = v instanceof Error ? errorShape(v) : v;
  const r = e as Error & { code?: unknown; retryable?: unknown };
  return { class: e.constructor.name, name: e.name, message: e.message, code: r.code, retryable: r.retryable, ...own };
}

/** Asserts that `actual` is the same error as `expected`: class, name, message, `code`, `retryable` and own properties. */
export function expectSameError(actual: unknown, expected: Error): void {
  expect(actual).toBeInstanceOf(expected.constructor);
  expect(errorShape(actual)).toEqual(errorShape(expected));
}

/** The assertion for a TestScheduler: deep equality, and errors compared by {@link expectSameError}. */
export function assertMarbles(actual: unknown, expected: unknown): void {
  expect(actual).toEqual(expected);
  if (!Array.isArray(actual) || !Array.isArray(expected)) return;
  expected.forEach((m: Message, i) => {
    const want = m?.notification?.kind === 'E' ? m.notification.error : undefined;
    if (!(want instanceof Error)) return; // strings, asymmetric matchers (`expect.any(DecodeError)`): toEqual above
    const got = (actual[i] as Message | undefined)?.notification?.error;
    try {
      expectSameError(got, want);
    } catch (e) {
      throw new Error(`the error at frame ${m.frame ?? '?'} is not the expected one:\n${(e as Error).message}`);
    }
  });
}

/** A TestScheduler whose expectations compare errors by class, code and retryable, not by message only. */
export const marbleScheduler = (): TestScheduler => new TestScheduler(assertMarbles);
