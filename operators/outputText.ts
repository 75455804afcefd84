import { Observable, Subject, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { accumulateText } from './accumulateText.js';
import { Joined } from './internal/joined.js';
import { isTerminalType } from './internal/parts.js';

/** A part's place in output order. */
interface Slot {
  readonly outputIndex: number;
  readonly contentIndex: number;
}

const before = (a: Slot, oi: number, ci: number): boolean => a.outputIndex < oi || (a.outputIndex === oi && a.contentIndex < ci);

/**
 * The whole answer as one growing string: every `output_text` part of the response concatenated in
 * output order (as the API's `output_text` convenience field is), emitted each time it changes. When a
 * `.done` text corrects what the deltas said, the corrected string is emitted. Refusals and reasoning
 * are not part of it (use `accumulateText`). Meant for one response per subscription.
 *
 * An answer without text (only tool calls, say) emits `''` once: at its terminal event
 * (`response.completed` / `.incomplete` / `.failed` / `error`), or at completion when none came. So there
 * is always a value for `lastValueFrom` / `async` pipes; an error emits nothing more.
 *
 * ```
 * events:  --d(He)--d(llo)--done(Hello)--completed--|
 *   outputText()
 * out:     --a------b-----------------------------|
 *   a = 'He', b = 'Hello'
 *
 * events:  --added(call)--args--item.done--completed--|
 *   outputText()
 * out:     ------------------------------e----------|
 *   e = ''
 * ```
 *
 * ```ts
 * events$.pipe(outputText()).subscribe((text) => (answer.textContent = text));
 * ```
 */
export function outputText(): OperatorFunction<ResponseStreamEvent, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      // Parts in output order, their texts joined: a delta or a `.done` costs the same however many parts
      // there are (O(1) on the last part, O(log n) on another; see Joined).
      const slots: Slot[] = [];
      const text = new Joined();

      // Nothing emitted yet: the terminal event (or completion) emits '' once.
      let emitted = false;
      const emptyOnce = (): void => {
        if (emitted) return;
        emitted = true;
        subscriber.next('');
      };

      // The events go through accumulateText first (synchronously), so a terminal event's own text is seen
      // before deciding that there was none.
      const events = new Subject<ResponseStreamEvent>();
      subscriber.add(events.pipe(accumulateText()).subscribe({
        next(snap) {
          const oi = snap.outputIndex;
          const ci = snap.contentIndex;
          // The part: usually the last one (parts stream in order), else found by binary search.
          let i = slots.length - 1;
          const last = slots[i];
          if (last === undefined || last.outputIndex !== oi || last.contentIndex !== ci) {
            i = lowerBound(slots.length, (k) => slots[k]!, oi, ci);
            const found = slots[i];
            if (found === undefined || found.outputIndex !== oi || found.contentIndex !== ci) {
              slots.splice(i, 0, { outputIndex: oi, contentIndex: ci });
              text.insert(i, '');
            }
          }
          if (!snap.done) {
            if (snap.delta === '') return;
          } else if (snap.text === text.at(i)) {
            return; // the deltas already said it
          }
          text.set(i, snap.text);
          emitted = true;
          subscriber.next(text.full);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          emptyOnce();
          subscriber.complete();
        },
      }));
      subscriber.add(source.subscribe({
        next(e) {
          events.next(e);
          const type = (e as { type?: unknown } | null)?.type;
          if (!emitted && !subscriber.closed && typeof type === 'string' && isTerminalType(type)) emptyOnce();
        },
        error: (err: unknown) => events.error(err),
        complete: () => events.complete(),
      }));
    });
}

/** The first position in `slots` not before (oi, ci). */
function lowerBound(n: number, at: (k: number) => Slot, oi: number, ci: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(at(mid), oi, ci)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
