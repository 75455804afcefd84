import { EventLogError } from '../errors.js';
import type { LogScope } from './types.js';

// Riding through what a Redis failover or restart looks like from a client: for a few seconds commands fail
// with redirections (MOVED/ASK while slots move, TRYAGAIN during a migration), CLUSTERDOWN until a replica is
// promoted, LOADING while a restarted server reads its data, READONLY from a demoted master, or a closed or
// refused connection and timeouts. Those are tried again, with backoff, within the log's retry budget; any
// other failure (a refusal, a script's own error, fencing) is final at once. Every call the log retries is
// idempotent: appends skip stored sequence numbers, an acquire carries a claim that makes its repeat a no-op.

/** What Redis or ioredis says of a failure that the same call can get past a moment later. */
const TRANSIENT =
  /^(?:[a-z]+: )?(?:Redis: )?(?:MOVED|ASK|TRYAGAIN|CLUSTERDOWN|LOADING|MASTERDOWN|READONLY|UNBLOCKED)\b|Connection is closed|Command aborted due to connection close|Too many Cluster redirections|Reached the max retries per request|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Stream isn't writeable|None of startup nodes is available|Failed to refresh slots cache|did not answer within|Command timed out|Connection in subscriber mode|Cluster isn't ready|replicas confirmed/;

/** Whether `e` is a failure the same call may get past by trying again (see above). */
export function isTransient(e: unknown): boolean {
  if (e instanceof EventLogError && e.reason !== 'unavailable') return false;
  const message = e instanceof Error ? e.message : String(e);
  return TRANSIENT.test(message);
}

export interface RetryOptions {
  /** How long, in ms from the first attempt, another attempt may still start. */
  readonly budgetMs: number;
  /** Stops trying (the last failure is thrown) once this is true: the log closed, the caller gave up. */
  readonly stopped?: () => boolean;
  /** The first pause; each next one doubles, up to `maxDelayMs`. Default 50. */
  readonly delayMs?: number;
  /** Default 1000. */
  readonly maxDelayMs?: number;
  /** Told of each failure that will be tried again (a slot map to refresh, a connection to drop). */
  readonly onRetry?: (e: unknown) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * `attempt()`, tried again after each transient failure (with backoff and jitter) until it succeeds, fails
 * otherwise, or `budgetMs` has passed; then its last failure is thrown.
 */
export async function withRetry<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const deadline = Date.now() + options.budgetMs;
  const max = options.maxDelayMs ?? 1000;
  let delay = options.delayMs ?? 50;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (!isTransient(e) || options.stopped?.() === true) throw e;
      // Jitter: the streams of a failed node do not all come back in the same millisecond.
      const pause = Math.round(delay * (0.5 + Math.random() / 2));
      if (Date.now() + pause > deadline) throw e;
      options.onRetry?.(e);
      await sleep(pause);
      if (options.stopped?.() === true) throw e;
      delay = Math.min(max, delay * 2);
    }
  }
}

/** A transient failure past the budget as the log says it (`unavailable`, naming how long it tried); any other as it is. */
export function exhausted(e: unknown, budgetMs: number, scope?: LogScope): unknown {
  if (!isTransient(e)) return e;
  const message = e instanceof Error ? e.message.replace(/^unavailable: /, '').replace(/ \(response [^)]*\)$/, '') : String(e);
  return new EventLogError('unavailable', `${message} (still failing after trying again for ${budgetMs} ms)`, scope?.responseId);
}
