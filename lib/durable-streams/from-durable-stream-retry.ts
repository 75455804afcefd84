import { asyncScheduler, retry, throwError, timer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { durationMs, invalidOption, nested, nonNegativeInt } from '../options.js';

/** Milliseconds to wait before reconnect `attempt` (1-based, counted since the last progress) after `error`. */
export type DurableStreamRetryDelay = (attempt: number, error: unknown) => number;

/** How `fromDurableStream` reconnects after a network error, a 408, 429 or 5xx. */
export interface DurableStreamRetryOptions {
  /** Reconnects in a row without progress (data, or a new offset or cursor) before the error passes. Default 5; 0: none. */
  readonly maxAttempts?: number;
  /**
   * Fixed ms, or a function of the attempt and the error. Default: 500 ms doubling to 8 s, ±20% jitter, and never
   * less than the server's `Retry-After` (up to 60 s).
   */
  readonly delayMs?: number | DurableStreamRetryDelay;
  /** Where the waits are timed (a `TestScheduler` in tests). Default `asyncScheduler`: real timers, cleared on unsubscribe. */
  readonly scheduler?: SchedulerLike;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly delay: DurableStreamRetryDelay;
  readonly scheduler: SchedulerLike;
}

const MAX_RETRY_AFTER_MS = 60_000;

/** The default delay: exponential from 500 ms to 8 s, jittered so that many readers do not come back in step. */
export function defaultRetryDelay(attempt: number, error: unknown, random: () => number = Math.random): number {
  const base = Math.min(8000, 500 * 2 ** Math.min(attempt - 1, 16));
  const jittered = base * (0.8 + 0.4 * random());
  const asked = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof asked === 'number' && Number.isFinite(asked) ? Math.max(jittered, Math.min(asked, MAX_RETRY_AFTER_MS)) : jittered;
}

/** The `retry` option checked (`InvalidOptionError` naming `retry.maxAttempts`, …). */
export function retryPolicyOf(options: DurableStreamRetryOptions | undefined): RetryPolicy {
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw invalidOption('retry', 'an object', options);
  return nested('retry', () => {
    const o = options ?? {};
    const maxAttempts = nonNegativeInt('maxAttempts', o.maxAttempts, 5);
    const d = o.delayMs;
    let delay: DurableStreamRetryDelay;
    if (typeof d === 'function') delay = d;
    else if (d === undefined) delay = (attempt, error) => defaultRetryDelay(attempt, error);
    else {
      const fixed = durationMs('delayMs', d, 0);
      delay = () => fixed;
    }
    const scheduler = o.scheduler ?? asyncScheduler;
    if (typeof scheduler !== 'object' || typeof (scheduler as SchedulerLike).schedule !== 'function') throw invalidOption('scheduler', 'an rxjs scheduler', scheduler);
    return { maxAttempts, delay, scheduler };
  });
}

/** Whether trying again can help (duck-typed, so that errors of a second copy of the library count too). */
function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/**
 * Resubscribes the source after a retryable error, up to `maxAttempts` times in a row; any value the source emits
 * (the reader's progress) resets the count. The wait is a `timer` on the policy's scheduler: unsubscribing clears it.
 */
export function retryReads<T>(policy: RetryPolicy): MonoTypeOperatorFunction<T> {
  return retry<T>({
    count: policy.maxAttempts,
    resetOnSuccess: true,
    delay: (error: unknown, attempt: number) => {
      if (!isRetryable(error)) return throwError(() => error);
      const ms = policy.delay(attempt, error);
      return timer(Number.isFinite(ms) && ms > 0 ? ms : 0, policy.scheduler);
    },
  });
}
