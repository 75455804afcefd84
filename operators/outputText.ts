import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { accumulateText } from './accumulateText.js';

interface Slot {
  readonly outputIndex: number;
  readonly contentIndex: number;
  text: string;
}

/**
 * The whole answer as one growing string: every `output_text` part of the response concatenated in
 * output order (as the API's `output_text` convenience field is), emitted each time it changes. When a
 * `.done` text corrects what the deltas said, the corrected string is emitted. Refusals and reasoning
 * are not part of it (use `accumulateText`). Meant for one response per subscription.
 *
 * ```
 * events:  --d(He)--d(llo)--done(Hello)--completed--|
 *   outputText()
 * out:     --a------b-----------------------------|
 *   a = 'He', b = 'Hello'
 * ```
 *
 * ```ts
 * events$.pipe(outputText()).subscribe((text) => (answer.textContent = text));
 * ```
 */
export function outputText(): OperatorFunction<ResponseStreamEvent, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      const slots: Slot[] = []; // sorted by (outputIndex, contentIndex); a handful at most
      let full = '';

      const rebuild = (): void => {
        let s = '';
        for (const slot of slots) s += slot.text; // ropes: no copy of the texts
        full = s;
      };

      return source.pipe(accumulateText()).subscribe({
        next(snap) {
          let i = slots.length - 1;
          while (i >= 0) {
            const s = slots[i]!;
            if (s.outputIndex < snap.outputIndex || (s.outputIndex === snap.outputIndex && s.contentIndex <= snap.contentIndex)) break;
            i--;
          }
          const found = slots[i];
          let slot: Slot;
          if (found !== undefined && found.outputIndex === snap.outputIndex && found.contentIndex === snap.contentIndex) {
            slot = found;
          } else {
            slot = { outputIndex: snap.outputIndex, contentIndex: snap.contentIndex, text: '' };
            slots.splice(i + 1, 0, slot);
          }
          const last = slot === slots[slots.length - 1];
          if (!snap.done) {
            if (snap.delta === '') return;
            slot.text = snap.text;
            if (last) full += snap.delta;
            else rebuild();
          } else {
            if (snap.text === slot.text) return; // the deltas already said it
            slot.text = snap.text;
            rebuild();
          }
          subscriber.next(full);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
