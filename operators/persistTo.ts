import { Observable, Subscriber, type MonoTypeOperatorFunction } from 'rxjs';
import { EventLogError, ResponseMismatchError } from '../lib/errors.js';
import { responseIdOf } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import type { EventLog } from '../lib/log/types.js';
import { checkLogWriterOptions, LogWriter, type LogWriterOptions } from '../lib/log/writer.js';
import { oneOf, optionalFunction } from '../lib/options.js';

export interface PersistToOptions extends LogWriterOptions {
  /**
   * The response the stream belongs to, for a stream that does not start with `response.created` (a resumed one:
   * `retrieveResponseStream(id, { startingAfter })`, a takeover): its events are recorded under this id from
   * the first one. A lifecycle event naming another response ends the stream with `ResponseMismatchError`.
   */
  readonly responseId?: string;
  /** The application's owner of the stream (e.g. a hash of the caller's credentials). Default `''`. */
  readonly owner?: string;
  /**
   * What a failed write does. `'error'` (default): the stream ends with the `EventLogError`. `'continue'`:
   * the lease is given up and the events go on passing through, without durability.
   */
  readonly onWriteError?: 'error' | 'continue';
  /**
   * Told once when a write fails (either mode), before the stream errors or goes on unrecorded: in `'continue'`
   * mode the only sign that the log stopped holding the stream (the gateway keeps its client's events in memory
   * from then on instead of reading them back from the log).
   */
  readonly onWriteFailed?: (e: EventLogError) => void;
}

/**
 * Records every event of a Responses stream in an {@link EventLog} and passes the events on unchanged, at
 * once. The key is the id of `response.created` or the `responseId` option (and `owner`); the lease is acquired at the first event to record, renewed every
 * third of `leaseMs` and released at the end or on unsubscribe. Writes are batched: while one append is in
 * flight the next events queue and go together, and a lone event goes at the end of the turn it came in
 * (with every event of that turn; on Redis, every stream's in one script call), or after `maxBatchDelayMs` ms
 * when that is set. Past
 * `maxPending` queued events the stream ends with `EventLogError('limit')`, and a failed write with its
 * `EventLogError` (unless `onWriteError: 'continue'`). Completion (and a source error) waits until the
 * last append is acknowledged: "completed" means "durable". Readers follow the stream with
 * {@link fromEventLog}, from this process or another one connected to the same store.
 *
 * Nothing is skipped in silence, so "completed" never means "nothing stored":
 * - A stream that does not start with `response.created` (a resumed one) is recorded under the `responseId`
 *   option. Without it, events before `response.created` wait for it (up to `maxPending`); a stream that ends
 *   without one has no id to be recorded under, and instead of completing it fails with
 *   `EventLogError('invalid')` (a write failure: in `'continue'` mode `onWriteFailed` is told and it completes).
 *   With `responseId`, a stream with no event at all completes (nothing to record).
 * - An event whose `sequence_number` is not an integer ≥ 0 cannot be placed in the log: `EventLogError('invalid')`
 *   naming its type and position (0 first), a write failure like any other.
 * - A lifecycle event (`response.created`, …) naming another response than the `responseId` option (or than
 *   the first `response.created`) ends the stream with `ResponseMismatchError` naming both, whatever
 *   `onWriteError` says: the source is another answer, not a log that failed.
 *
 * ```
 * source:   -a-b-c|          (a = response.created; an append takes 3 frames)
 * appends:    -[a]-[bc]--✓    (a after maxBatchDelayMs; b and c queue while [a] is in flight)
 *   persistTo(log, { maxBatchDelayMs: 1 })
 * result:   -a-b-c--|        (events at once; completion once [bc] is acknowledged)
 * ```
 *
 * ```ts
 * const log = memoryEventLog();
 * streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello', background: true }, config)
 *   .pipe(persistTo(log, { owner: userId }))
 *   .subscribe();
 * // a reader elsewhere:
 * fromEventLog(log, responseId, { owner: userId }).pipe(outputText()).subscribe(render);
 * // the rest of an interrupted stream, recorded after what the log holds:
 * retrieveResponseStream(responseId, { startingAfter: lastStored }, config)
 *   .pipe(persistTo(log, { owner: userId, responseId }))
 *   .subscribe();
 * ```
 */
export function persistTo(log: EventLog, options: PersistToOptions = {}): MonoTypeOperatorFunction<ResponseStreamEvent> {
  // A bad option throws here, at the call, not once per stream.
  checkLogWriterOptions(options);
  const carryOn = oneOf('onWriteError', options.onWriteError, ['error', 'continue'], 'error') === 'continue';
  optionalFunction('onWriteFailed', options.onWriteFailed);
  const maxPending = options.maxPending ?? 10_000;
  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      const recording = new Recording(subscriber, log, options, carryOn, maxPending);
      source.subscribe(recording);
      // Downstream may have unsubscribed during a synchronous emission, before the teardown below is in place.
      if (subscriber.closed) recording.stop();
      return recording.teardown;
    });
}

/**
 * One stream being recorded: the source's subscriber, a class (one object per stream, its handlers shared by every
 * stream, where an observer object made a subscriber, its observer and three handler closures per stream, kept
 * for as long as the stream is open).
 */
class Recording extends Subscriber<ResponseStreamEvent> {
  private writer: LogWriter | undefined;
  /** False once a write failed in 'continue' mode. */
  private durable = true;
  /** Events before response.created (without the responseId option). */
  private early: ResponseStreamEvent[] = [];
  /** The id the stream is recorded under, once known. */
  private recordedId: string | undefined;
  private ending: (() => void) | undefined;
  /** The teardown the downstream subscription ends this one with: the source let go, the writer stopped. */
  readonly teardown = (): void => this.stop();
  private readonly onWriteError = (e: EventLogError): void => this.writeFailed(e);

  constructor(
    private readonly out: Subscriber<ResponseStreamEvent>,
    private readonly log: EventLog,
    private readonly options: PersistToOptions,
    private readonly carryOn: boolean,
    private readonly maxPending: number,
  ) {
    super();
    this.recordedId = options.responseId;
  }

  /** Lets the source go and stops the writer (its lease released). */
  stop(): void {
    this.unsubscribe();
    this.writer?.stop(true);
    this.writer = undefined;
  }

  private writeFailed(e: EventLogError): void {
    this.writer = undefined;
    this.durable = false;
    this.early = [];
    this.options.onWriteFailed?.(e);
    if (this.carryOn) {
      const end = this.ending;
      this.ending = undefined;
      end?.();
      return;
    }
    this.unsubscribe();
    this.out.error(e);
  }

  private end(finalize: () => void): void {
    if (!this.writer) return finalize();
    this.ending = finalize;
    this.writer.finish(() => {
      this.ending = undefined;
      finalize();
    });
  }

  private mismatch(carried: string, e: ResponseStreamEvent): void {
    this.writer?.stop(true);
    this.writer = undefined;
    this.durable = false;
    this.unsubscribe();
    this.out.error(new ResponseMismatchError(this.recordedId!, carried, e.type));
  }

  protected override _next(e: ResponseStreamEvent): void {
    const out = this.out;
    out.next(e);
    if (out.closed) return;
    const carried = responseIdOf(e);
    // Another answer than the one recorded: not a failure of the log, so never carried on past.
    if (carried !== undefined && this.recordedId !== undefined && carried !== this.recordedId) return this.mismatch(carried, e);
    if (!this.durable) return;
    if (!this.writer) {
      if (this.recordedId === undefined && e.type === 'response.created') this.recordedId = carried;
      if (this.recordedId === undefined) {
        this.early.push(e);
        if (this.early.length > this.maxPending) this.writeFailed(new EventLogError('limit', `more than ${this.maxPending} events before response.created (maxPending)`));
        return;
      }
      const w = new LogWriter(this.log, { responseId: this.recordedId, owner: this.options.owner }, this.options, this.onWriteError);
      this.writer = w;
      w.acquire();
      const before = this.early;
      this.early = [];
      for (const x of before) w.push(x);
    }
    this.writer?.push(e);
  }

  // The source is done: let go (its teardown runs) once its end is passed on; the downstream's waits for the last appends.
  protected override _error(err: unknown): void {
    try {
      this.end(() => this.out.error(err));
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      this.completed();
    } finally {
      this.unsubscribe();
    }
  }

  private completed(): void {
    if (!this.writer && this.durable && this.recordedId === undefined) {
      // Nothing could be recorded: completing would tell the subscriber that the stream is durable.
      const n = this.early.length;
      this.writeFailed(new EventLogError('invalid', `the stream ended after ${n} event${n === 1 ? '' : 's'} without response.created and without the responseId option: nothing was recorded`));
      return this.out.complete(); // 'continue' mode: told, then completed (after the error: nothing)
    }
    this.end(() => this.out.complete());
  }
}
