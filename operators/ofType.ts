import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEventMap, ResponseStreamEventType } from '../lib/events/responses.js';

/**
 * Lets through only the events of the given wire types, narrowed to their TypeScript types.
 *
 * ```
 * --created--delta(a)--delta(b)--done--completed--|
 *   ofType('response.output_text.delta')
 * -----------delta(a)--delta(b)--------------------|
 * ```
 *
 * ```ts
 * events$.pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 * ```
 */
export function ofType<K extends ResponseStreamEventType>(
  ...types: [K, ...K[]]
): OperatorFunction<{ readonly type: string }, ResponseStreamEventMap[K]> {
  const wanted = new Set<string>(types);
  return (source) =>
    new Observable<ResponseStreamEventMap[K]>((subscriber) =>
      source.subscribe({
        next(e) {
          if (wanted.has(e.type)) subscriber.next(e as ResponseStreamEventMap[K]);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
