import { Observable, type OperatorFunction } from 'rxjs';
import { JsonTextError } from '../lib/errors.js';
import { checkPartialJsonOptions, createPartialJsonParser, type PartialJsonOptions } from '../lib/json/partial-json.js';

export type { PartialJsonOptions };

/**
 * A JSON value as it is being written: every object's properties optional, all the way down (an array's
 * elements too). What `partialJson` emits before the text is complete.
 */
export type PartialValue<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends readonly (infer E)[]
    ? PartialValue<E>[]
    : T extends object
      ? { [K in keyof T]?: PartialValue<T[K]> }
      : T;

/**
 * From growing JSON text (each value the whole text so far, as {@link outputText} emits it) to the value parsed
 * so far. What it shows is always part of the final value: a string grows as a prefix of its final text
 * (never half an escape or half a surrogate pair), a number, `true`, `false` or `null` appears only once
 * complete, an object holds only keys whose value has begun, an array only elements that have begun (see
 * `createPartialJsonParser` for the exact rules). It emits only when the value changed, each time a new object
 * along the changed path sharing every unchanged branch with the previous value (so signals and OnPush change
 * detection see the change). At completion the last value equals `JSON.parse` of the whole text (emitted then
 * if it was not yet); text that is not JSON is a {@link JsonTextError} with the position, as soon as it cannot
 * become JSON or at completion when it is unfinished.
 *
 * Incremental: only each snapshot's new characters are parsed (a snapshot is taken to extend the previous one;
 * only its length is checked: a shorter one is a JsonTextError), and the copies made to show changes are paid
 * from a credit earned per character, so the total cost is linear in the text; a huge document shows fewer,
 * still correct, intermediate values.
 *
 * ```
 * text:  --a---------b------------c-------------------|
 *   partialJson()
 * out:   --x---------y------------z-------------------|
 *   a = '{"city": "Pa', b = '{"city": "Paris", "days": [', c = '{"city": "Paris", "days": [3]}'
 *   x = { city: 'Pa' }, y = { city: 'Paris', days: [] }, z = { city: 'Paris', days: [3] }
 *
 * text:  --a--b--|                     text:  --a--|
 *   partialJson()                        partialJson()
 * out:   --x-----#                     out:   --x--#
 *   a = '{"n": 1', b = '{"n": 12'      a = '{"n": 1', # = JsonTextError (unexpected end) at completion
 *   x = {}: the number is not complete, b adds nothing shown
 * ```
 *
 * @example
 * ```ts
 * const forecast$ = events$.pipe(outputText(), partialJson<{ city: string; days: number[] }>());
 * forecast$.subscribe((f) => render(f.city ?? '…', f.days ?? []));
 * ```
 */
export function partialJson<T = unknown>(options?: PartialJsonOptions): OperatorFunction<string, PartialValue<T>> {
  checkPartialJsonOptions(options);
  return (source) =>
    new Observable<PartialValue<T>>((subscriber) => {
      const parser = createPartialJsonParser(options);
      let length = 0;
      let last: unknown;
      const emit = (v: unknown) => {
        last = v;
        subscriber.next(v as PartialValue<T>);
      };
      return source.subscribe({
        next(text) {
          let changed: boolean;
          try {
            if (text.length === length) return;
            if (text.length < length) throw new JsonTextError(`a snapshot of ${text.length} characters after one of ${length}: partialJson expects each text to extend the previous`, text.length);
            changed = parser.write(text.slice(length));
          } catch (e) {
            subscriber.error(e);
            return;
          }
          length = text.length;
          if (changed) emit(parser.value);
        },
        error: (e: unknown) => subscriber.error(e),
        complete() {
          let final: unknown;
          try {
            final = parser.end();
          } catch (e) {
            subscriber.error(e);
            return;
          }
          if (final !== last) emit(final);
          subscriber.complete();
        },
      });
    });
}
