import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import type { TextSnapshot } from './accumulateText.js';
import { OrderedText } from './internal/ordered-text.js';
import { TextAccumulation, type TextSink } from './internal/text-accumulation.js';
import { WantedKinds } from './internal/text-kinds.js';

/** Between the texts of two responses: each turn reads as its own paragraph. */
const RESPONSE_SEPARATOR = '\n\n';

const OUTPUT_TEXT = new WantedKinds(true, false, false, false);

/**
 * The whole answer as one growing string: every `output_text` part of the response concatenated in
 * output order (as the API's `output_text` convenience field is), emitted each time it changes. When a
 * `.done` text corrects what the deltas said, the corrected string is emitted. Text is read wherever it
 * comes: deltas, a part or item that opens with text, and the `.done` events, closed items and final
 * `output` that carry it whole. Refusals and reasoning are not part of it (use `accumulateText`).
 *
 * Several responses on one stream (`runAgent`'s turns, a WebSocket connection; see `accumulateText` for where
 * one ends): each response's parts are its own, and the string is the text of every response so far, in
 * order, the texts of two responses separated by a blank line (`'\n\n'`, only between responses that have
 * text). So a run's last value ends with its final answer, and a turn that only called tools adds nothing.
 * (`runAgent`'s `asOneResponse` view is one response: its turns' texts join with nothing, as parts do.)
 *
 * An answer without text (only tool calls, say) emits `''` once: at its terminal event
 * (`response.completed` / `.incomplete` / `.failed` / `error`), or at completion when none came. So there
 * is always a value for `lastValueFrom` / `async` pipes; an error emits nothing more.
 *
 * Cost: an event costs O(1) on the part that opened last (the streaming case) and O(log n) otherwise, in
 * whatever order the `output_index` / `content_index` of n parts come (see OrderedText).
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
 *
 * events:  --d(Hi)--completed--created--d(Bye)--completed--|
 *   outputText()
 * out:     --a-------------------------b------------------|
 *   a = 'Hi', b = 'Hi\n\nBye'
 * ```
 *
 * ```ts
 * events$.pipe(outputText()).subscribe((text) => (answer.textContent = text));
 * ```
 */
export function outputText(): OperatorFunction<ResponseStreamEvent, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      // The text of the responses before this one, joined; this one's parts in output order.
      let before = '';
      let parts = new OrderedText();
      const whole = (): string => (parts.full === '' ? before : before === '' ? parts.full : before + RESPONSE_SEPARATOR + parts.full);

      // Nothing emitted yet: the terminal event (or completion) emits '' once.
      let emitted = false;
      const emptyOnce = (): void => {
        if (emitted) return;
        emitted = true;
        subscriber.next('');
      };

      const sink: TextSink = {
        next(snap: TextSnapshot) {
          const oi = snap.outputIndex;
          const ci = snap.contentIndex;
          if (!snap.done) {
            if (snap.delta === '') return;
          } else if (snap.text === (parts.get(oi, ci) ?? '')) {
            return; // the deltas already said it
          }
          parts.set(oi, ci, snap.text);
          emitted = true;
          subscriber.next(whole());
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          emptyOnce();
          subscriber.complete();
        },
        seam: () => {
          before = whole();
          parts = new OrderedText();
        },
        // After the terminal event's own text: '' only when there was none.
        ended: emptyOnce,
      };
      return source.subscribe(new TextAccumulation(sink, OUTPUT_TEXT));
    });
}
