import { defer, Observable, timer, type MonoTypeOperatorFunction, type Subscription } from 'rxjs';
import { isCancellation, ResponseMismatchError } from '../lib/errors.js';
import { isTerminalType, responseIdOf } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { durationMs, invalidOption, nonNegativeInt, optionalFunction } from '../lib/options.js';
import { OperatorSubscriber } from './internal/operator-subscriber.js';

/** Where a response stream stands: the last `sequence_number` delivered downstream. */
export interface ResumeCursor {
  readonly responseId: string;
  readonly sequenceNumber: number;
}

/** Opens a fresh stream of the events after `cursor`. */
export type Reconnect = (cursor: ResumeCursor) => Observable<ResponseStreamEvent>;

/** Milliseconds to wait before reconnect attempt `attempt` (1-based) after `error`. */
export type ResumeDelay = (attempt: number, error: unknown) => number;

export interface ResumeOptions {
  /** Reconnects in a row (without a new `sequence_number` delivered in between) before the error passes through. Default 5. */
  readonly maxAttempts?: number;
  /** Fixed ms, or a function of the attempt and the error. Default `exponentialBackoff()` (≈0.5 s doubling to 8 s, jittered). */
  readonly delayMs?: number | ResumeDelay;
  /**
   * A cursor saved by an earlier process (what `onCursor` was given). Events at or below it are dropped, and a
   * failure before any new event is already resumable. An object, not a number as the transports' and
   * `fromEventLog`'s `startingAfter`: those are told the response id, this operator learns it from the cursor.
   */
  readonly cursor?: ResumeCursor;
  /**
   * Called after each event that moves the cursor has been delivered downstream: persist it here. If it
   * throws, the stream ends with what it threw (the source is let go).
   */
  readonly onCursor?: (cursor: ResumeCursor) => void;
  /** Which errors are worth a reconnect. Default `isRetryableError`. A cancellation (`ResponseCancelledError`) never is. */
  readonly retryable?: (error: unknown) => boolean;
}

/**
 * The `resume` option of what puts `resumeFrom` in for you (`runAgent`'s HTTP turns, Angular's `injectResponse`):
 * `true` for the defaults, or resumeFrom's options with the reconnect to use. There is no saved `cursor` here: each
 * stream resumes from its own last event.
 */
export interface AutoResumeOptions extends Omit<ResumeOptions, 'cursor'> {
  /** Default: `retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config)` with the caller's config. */
  readonly reconnect?: Reconnect;
}

/** `resume: true | false | {…}` as options, `undefined` when off. */
export function autoResumeOf(resume: boolean | AutoResumeOptions | undefined): AutoResumeOptions | undefined {
  return resume === true ? {} : resume === false || resume === undefined ? undefined : resume;
}

/**
 * Whether an error says that trying again can help: network errors, interrupted bodies, idle timeouts,
 * HTTP 408/409/429/5xx. Duck-typed on `retryable === true` so that errors from a second copy of the
 * library (ESM next to CJS) count too.
 */
export function isRetryableError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

export interface BackoffOptions {
  /** First delay in ms. Default 500. */
  readonly initialMs?: number;
  /** Largest delay in ms. Default 8000. */
  readonly maxMs?: number;
  /** Longest `Retry-After` honoured, in ms (a longer one is cut to this). Default 60000. */
  readonly maxRetryAfterMs?: number;
  /** Fraction of the delay randomised either way (0 = none). Default 0.2. */
  readonly jitter?: number;
  /** Source of randomness in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** `initialMs · 2^(attempt−1)` capped at `maxMs`, spread by ±`jitter` so that many clients do not reconnect in step. */
export function exponentialBackoff(options: BackoffOptions = {}): ResumeDelay {
  const initial = durationMs('initialMs', options.initialMs, 500);
  const max = durationMs('maxMs', options.maxMs, 8000);
  const jitter = options.jitter ?? 0.2;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) throw invalidOption('jitter', 'a number from 0 to 1', jitter);
  const random = optionalFunction('random', options.random) ?? Math.random;
  const ceiling = durationMs('maxRetryAfterMs', options.maxRetryAfterMs, 60_000);
  return (attempt, error) => {
    const base = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
    const backoff = Math.max(0, Math.round(base * (1 - jitter + 2 * jitter * random())));
    // A server that says how long to wait (429 / 503 with Retry-After) is waited for, up to a ceiling.
    const asked = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    return typeof asked === 'number' && asked > backoff ? Math.min(asked, ceiling) : backoff;
  };
}

/** The response an event names: a lifecycle event's `response.id`, else its own `response_id`. */
function namedResponseId(e: ResponseStreamEvent): string | undefined {
  const direct = (e as { response_id?: unknown }).response_id;
  return responseIdOf(e) ?? (typeof direct === 'string' ? direct : undefined);
}

/**
 * Survives dropped connections: on a retryable failure it waits, then subscribes to `reconnect(cursor)`
 * for the events after the last one delivered, and drops anything at or below the cursor. Downstream
 * sees every `sequence_number` once, in order, and never sees the seam. Non-retryable failures
 * (other 4xx, `response.failed`, `error` events, decode errors), failures before the response id is
 * known, and the failure after `maxAttempts` reconnects in a row pass through. Only an event that moves
 * the cursor (a higher `sequence_number`) resets the attempt count. A cancelled response is over for good:
 * `ResponseCancelledError` passes through whatever `retryable` says, and so does any failure after a
 * terminal event (`response.cancelled`, `.completed`…) was delivered, as nothing can follow it.
 *
 * Every event that names its response (`response.id`, `response_id`) must name the one being resumed:
 * another id (a reconnect answering for another response) ends the stream with `ResponseMismatchError`
 * (not retryable) rather than splicing two answers together.
 *
 * Events without a `sequence_number` cannot be placed against the cursor. On the first stream they
 * pass; on a reconnected stream (and with `cursor`) they count as replay and are dropped until
 * that stream has delivered an event past the cursor, and pass after it.
 *
 * ```
 * source:     -0-1-2-#                       (# = StreamInterruptedError)
 * reconnect(2):         --2-3-4-|            (after the delay; 2 is a duplicate)
 *   resumeFrom(reconnect, { delayMs: 3 })
 * result:     -0-1-2-------3-4-|
 * ```
 *
 * ```ts
 * streamResponse({ model, input, background: true }, config).pipe(
 *   resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config),
 *     { onCursor: (c) => localStorage.setItem('cursor', JSON.stringify(c)) }),
 * )
 * ```
 */
export function resumeFrom(reconnect: Reconnect, options: ResumeOptions = {}): MonoTypeOperatorFunction<ResponseStreamEvent> {
  const maxAttempts = nonNegativeInt('maxAttempts', options.maxAttempts, 5);
  if (typeof reconnect !== 'function') throw invalidOption('reconnect', 'a function', reconnect);
  if (typeof options.delayMs !== 'function') durationMs('delayMs', options.delayMs);
  optionalFunction('retryable', options.retryable);
  optionalFunction('onCursor', options.onCursor);
  const delayOption = options.delayMs ?? exponentialBackoff();
  const delayOf: ResumeDelay = typeof delayOption === 'number' ? () => delayOption : delayOption;
  const retryable = options.retryable ?? isRetryableError;
  const onCursor = options.onCursor;

  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      const saved = options.cursor;
      let responseId = saved?.responseId;
      let last = saved?.sequenceNumber;
      let attempt = 0;
      // A terminal event went downstream: the response is over, a reconnect could bring nothing.
      let ended = false;
      let current: Subscription | undefined;
      let waiting: Subscription | undefined;

      const fail = (error: unknown): void => {
        if (subscriber.closed) return;
        let retry: boolean;
        try {
          retry = !ended && !isCancellation(error) && retryable(error);
        } catch (e) {
          // A predicate that throws ends the stream with what it threw, as a throwing `delayMs` does.
          subscriber.error(e);
          return;
        }
        if (!retry || responseId === undefined || last === undefined || attempt >= maxAttempts) {
          subscriber.error(error);
          return;
        }
        attempt++;
        const cursor: ResumeCursor = { responseId, sequenceNumber: last };
        let ms: number;
        try {
          ms = delayOf(attempt, error);
        } catch (e) {
          subscriber.error(e);
          return;
        }
        waiting = timer(Math.max(0, ms)).subscribe(() => {
          waiting = undefined;
          // defer: a reconnect function that throws becomes an error of that attempt.
          follow(defer(() => reconnect(cursor)), true);
        });
      };

      const follow = (events: Observable<ResponseStreamEvent>, replay: boolean): void => {
        // On a reconnected stream, unsequenced events count as replay until the cursor moves.
        let fresh = !replay;
        const leg: Leg = new Leg({
          next(e) {
            // Downstream gone (or the output ended) during a synchronous emission, before the teardown exists.
            if (subscriber.closed) return leg.unsubscribe();
            const n = e.sequence_number;
            const seq = typeof n === 'number' && Number.isFinite(n) ? n : undefined;
            const carried = namedResponseId(e);
            // Checked before the cursor filter: a replayed `response.created` is where a wrong answer shows first.
            if (carried !== undefined && responseId !== undefined && carried !== responseId) {
              subscriber.error(new ResponseMismatchError(responseId, carried, typeof e.type === 'string' ? e.type : undefined));
              return leg.unsubscribe();
            }
            if (seq === undefined ? !fresh : last !== undefined && seq <= last) return;
            const id = responseId === undefined ? carried : undefined;
            if (id !== undefined) responseId = id;
            if (seq !== undefined) {
              // Only progress earns more attempts: a stream that replays and drops must run out of them.
              last = seq;
              attempt = 0;
              fresh = true;
            }
            if (isTerminalType(e.type)) ended = true;
            subscriber.next(e);
            if (onCursor && (seq !== undefined || id !== undefined) && responseId !== undefined && last !== undefined) {
              try {
                onCursor({ responseId, sequenceNumber: last });
              } catch (err) {
                // Thrown here it would escape as an uncaught exception (RxJS reports it asynchronously): the stream's error instead.
                subscriber.error(err);
              }
            }
            // The event is delivered (and its cursor told) even to a downstream that leaves on it.
            if (subscriber.closed) leg.unsubscribe();
          },
          error: fail,
          complete: () => subscriber.complete(),
        });
        // Set before subscribing, so that the teardown reaches it whenever it runs.
        current = leg;
        events.subscribe(leg);
      };

      follow(source, saved !== undefined);
      return () => {
        waiting?.unsubscribe();
        current?.unsubscribe();
      };
    });
}

/**
 * One subscription to the source or a reconnect: a Subscriber made before subscribing (not an observer object,
 * which `subscribe()` wraps and only hands back once a synchronous source has finished).
 */
class Leg extends OperatorSubscriber<ResponseStreamEvent, { next(e: ResponseStreamEvent): void; error(e: unknown): void; complete(): void }> {
  protected override _next(e: ResponseStreamEvent): void {
    this.sink.next(e);
  }
}

/**
 * Resumes a response from a cursor saved by an earlier process: `reconnect(cursor)` piped through
 * `resumeFrom` with `cursor`.
 *
 * ```ts
 * resumeFromCursor(saved, (c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config))
 * ```
 */
export function resumeFromCursor(
  cursor: ResumeCursor,
  reconnect: Reconnect,
  options: Omit<ResumeOptions, 'cursor'> = {},
): Observable<ResponseStreamEvent> {
  return defer(() => reconnect(cursor)).pipe(resumeFrom(reconnect, { ...options, cursor }));
}
