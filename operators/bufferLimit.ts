import { from, Observable, type ObservableInput, type OperatorFunction, type Subscription } from 'rxjs';
import { LimitExceededError } from '../lib/errors.js';
import { invalidOption } from '../lib/options.js';

/**
 * A bounded queue in front of asynchronous work: runs `work` for one value at a time, in order (as
 * `concatMap` does), and emits what it produces. Values that arrive while `work` is busy wait in a queue of
 * at most `max`; one more ends the stream with `LimitExceededError('maxQueue', max)` instead of letting memory
 * grow without bound when the consumer is slower than the server. The running work is cancelled then.
 *
 * Why a limit and not a pause: an SSE server cannot be slowed from the client, and RxJS pushes values
 * synchronously, so a synchronous consumer already stalls the reading; only an asynchronous consumer that
 * queues values (which `concatMap` does without a bound) makes memory grow.
 *
 * ```
 * source:  -abcd|
 * work(v): ---(V|)               (3 frames each)
 *   bufferLimit(3, work)
 * output:  ----A--B--C--(D|)
 *   bufferLimit(1, work)         (c arrives while a runs and b waits)
 * output:  ---#                  (# = LimitExceededError maxQueue 1)
 * ```
 *
 * ```ts
 * streamResponse(body, config).pipe(ofType('response.output_text.delta'), bufferLimit(1000, (e) => saveDelta(e)))
 * ```
 */
export function bufferLimit<T, R>(max: number, work: (value: T, index: number) => ObservableInput<R>): OperatorFunction<T, R> {
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0) throw invalidOption('max', 'an integer ≥ 0', max);
  if (typeof work !== 'function') throw invalidOption('work', 'a function', work);
  return (source) =>
    new Observable<R>((subscriber) => {
      const queue: T[] = [];
      let head = 0; // index of the next queued value (shifting an array is linear)
      let running: Subscription | undefined;
      let busy = false;
      let sourceDone = false;
      let index = 0;

      const drain = (): void => {
        // A loop, not recursion: work that completes synchronously must not grow the stack.
        while (!busy && !subscriber.closed) {
          if (head === queue.length) {
            queue.length = 0;
            head = 0;
            if (sourceDone) subscriber.complete();
            return;
          }
          const value = queue[head] as T;
          queue[head++] = undefined as T; // release it now
          busy = true;
          let inner: Observable<R>;
          try {
            inner = from(work(value, index++));
          } catch (e) {
            subscriber.error(e);
            return;
          }
          let subscribed = false;
          let completedSync = false;
          const sub = inner.subscribe({
            next: (r) => subscriber.next(r),
            error: (e: unknown) => subscriber.error(e),
            complete: () => {
              busy = false;
              running = undefined;
              if (subscribed) drain();
              else completedSync = true;
            },
          });
          subscribed = true;
          // Still running: its `complete` drains the queue. Done already: the loop goes on.
          if (!completedSync) {
            if (busy) running = sub;
            return;
          }
        }
      };

      const upstream = source.subscribe({
        next(v) {
          if (busy && queue.length - head >= max) {
            running?.unsubscribe();
            subscriber.error(new LimitExceededError('maxQueue', max));
            return;
          }
          queue.push(v);
          drain();
        },
        error: (e: unknown) => subscriber.error(e),
        complete() {
          sourceDone = true;
          drain();
        },
      });
      return () => {
        upstream.unsubscribe();
        running?.unsubscribe();
        queue.length = 0;
      };
    });
}
