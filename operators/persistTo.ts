import { Observable, type MonoTypeOperatorFunction, type Subscription } from 'rxjs';
import { EventLogError } from '../lib/errors.js';
import { responseIdOf } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import type { EventLog } from '../lib/log/types.js';
import { LogWriter, type LogWriterOptions } from '../lib/log/writer.js';

export interface PersistToOptions extends LogWriterOptions {
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
 * once. The key is the id of `response.created` (and `owner`); the lease is acquired there, renewed every
 * third of `leaseMs` and released at the end or on unsubscribe. Writes are batched: while one append is in
 * flight the next events queue and go together, and a lone event goes at the end of the turn it came in
 * (with every event of that turn; on Redis, every stream's in one script call), or after `maxBatchDelay` ms
 * when that is set. Past
 * `maxPending` queued events the stream ends with `EventLogError('limit')`, and a failed write with its
 * `EventLogError` (unless `onWriteError: 'continue'`). Completion (and a source error) waits until the
 * last append is acknowledged: "completed" means "durable". Readers follow the stream with
 * {@link fromEventLog}, from this process or another one connected to the same store.
 *
 * ```
 * source:   -a-b-c|          (a = response.created; an append takes 3 frames)
 * appends:    -[a]-[bc]--✓    (a after maxBatchDelay; b and c queue while [a] is in flight)
 *   persistTo(log, { maxBatchDelay: 1 })
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
 * ```
 */
export function persistTo(log: EventLog, options: PersistToOptions = {}): MonoTypeOperatorFunction<ResponseStreamEvent> {
  const carryOn = options.onWriteError === 'continue';
  const maxPending = options.maxPending ?? 10_000;
  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      let writer: LogWriter | undefined;
      let durable = true; // false once a write failed in 'continue' mode (or the stream has no id)
      let early: ResponseStreamEvent[] = []; // events before response.created
      let ending: (() => void) | undefined;
      let upstream: Subscription | undefined;

      const onWriteError = (e: EventLogError): void => {
        writer = undefined;
        durable = false;
        early = [];
        options.onWriteFailed?.(e);
        if (carryOn) {
          const end = ending;
          ending = undefined;
          end?.();
          return;
        }
        upstream?.unsubscribe();
        subscriber.error(e);
      };

      const end = (finalize: () => void): void => {
        if (!writer) return finalize();
        ending = finalize;
        writer.finish(() => {
          ending = undefined;
          finalize();
        });
      };

      upstream = source.subscribe({
        next(e) {
          subscriber.next(e);
          if (!durable || subscriber.closed) return;
          if (!writer) {
            const id = e.type === 'response.created' ? responseIdOf(e) : undefined;
            if (id === undefined) {
              early.push(e);
              if (early.length > maxPending) onWriteError(new EventLogError('limit', `more than ${maxPending} events before response.created (maxPending)`));
              return;
            }
            writer = new LogWriter(log, { responseId: id, owner: options.owner }, options, onWriteError);
            writer.acquire();
            const before = early;
            early = [];
            for (const x of before) writer?.push(x);
          }
          writer?.push(e);
        },
        error: (err: unknown) => end(() => subscriber.error(err)),
        complete: () => end(() => subscriber.complete()),
      });
      // Downstream may have unsubscribed during a synchronous emission, before `upstream` was set.
      if (subscriber.closed) upstream.unsubscribe();

      return () => {
        upstream?.unsubscribe();
        writer?.stop(true);
        writer = undefined;
      };
    });
}
