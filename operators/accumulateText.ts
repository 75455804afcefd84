import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { keepWarm } from '../lib/warmup.js';
import { invalidOption } from '../lib/options.js';
import { TextAccumulation } from './internal/text-accumulation.js';
import { WantedKinds } from './internal/text-kinds.js';

/** The streamed text parts of a response, by the name of their delta event. */
export type TextKind = 'output_text' | 'refusal' | 'reasoning_text' | 'reasoning_summary_text';

export const TEXT_KINDS: readonly TextKind[] = ['output_text', 'refusal', 'reasoning_text', 'reasoning_summary_text'];

/** One part's text so far. */
export interface TextSnapshot {
  readonly kind: TextKind;
  /** The item id the latest event for this part carried (some providers rotate it; parts are not keyed by it). */
  readonly itemId: string;
  readonly outputIndex: number;
  /** `content_index`, or `summary_index` for `reasoning_summary_text`. */
  readonly contentIndex: number;
  /** What this event added (`''` on the final snapshot). */
  readonly delta: string;
  /** Everything so far for this part; on the final snapshot, the authoritative text. */
  readonly text: string;
  /** `true` once, on the part's final snapshot. */
  readonly done: boolean;
}

export interface AccumulateTextOptions {
  /** Which parts to follow: one kind, several, or `'all'`. Default `'output_text'`. */
  readonly kind?: TextKind | readonly TextKind[] | 'all';
}

/**
 * Assembles the text parts of a response as they stream: one snapshot per delta (`done: false`) carrying
 * the part's whole text so far, then one final snapshot per part (`done: true`), and another only when the
 * closed item or the terminal output later says otherwise than the `.done` event (their text is final).
 *
 * Parts are keyed by `output_index` and `content_index` (`summary_index` for reasoning summaries), never
 * by `item_id`, so providers that rotate item ids and items that interleave are handled. The final text
 * is the `.done` event's when there is one; otherwise the part is closed by `content_part.done`, by
 * `response.output_item.done` (whose content is authoritative), by the end of the response
 * (`response.completed` / `.incomplete` / `.failed` / `error`, from its `output` when present) or by the source
 * completing. That `output` may leave out or reorder items that streamed: its items are matched to the
 * streamed ones by `id`, never by list position alone, and parts it leaves out close with what streamed.
 * Parts that only appear in a closed item or in the final response get a final snapshot too. Text that an
 * opening event already carries (a `content_part.added` whose part has text, an item added with content) is
 * streamed text too: a snapshot with it as `delta`, which later deltas extend.
 * An error passes through untouched, without final snapshots.
 *
 * Several responses on one stream (`runAgent`'s turns, a resumed or WebSocket stream): each response's parts
 * are its own. Another response begins at `response.created`, at a `queued` / `in_progress` event naming another
 * response id (a terminal event naming another ends the current one: runAgent's `asOneResponse` view does so),
 * or at the first response event after a terminal event (`agent.*` and unknown events never begin one;
 * `sequence_number` is not read, as providers skip numbers). Every part of a response has its final snapshot
 * before the next response's first snapshot, so the snapshots of one (output_index, content_index) after a
 * `done: true` one are a new part's, whose text starts afresh.
 *
 * Events are read without trusting their shape (they may come from `validate: 'off'` or a hand-built
 * source). A delta whose index is not a non-negative safe integer, or whose delta is not a string, would
 * lose text: it ends the stream with a `DecodeError` naming the event type, `sequence_number` and field. Other
 * events with such indices are ignored, as unknown events are; a `.done` without a string text closes the part
 * with what was accumulated. An event aimed at an item of another type (text at a function call) is ignored.
 *
 * ```
 * events:  --added--d(He)--d(llo)--done(Hello!)--item.done--completed--|
 *   accumulateText()
 * out:     ---------a------b-------c-----------------------------------|
 *   a = { delta: 'He',  text: 'He',     done: false }
 *   b = { delta: 'llo', text: 'Hello',  done: false }
 *   c = { delta: '',    text: 'Hello!', done: true }
 * ```
 *
 * ```ts
 * events$.pipe(accumulateText({ kind: ['output_text', 'refusal'] }))
 *   .subscribe((s) => render(s.outputIndex, s.contentIndex, s.text));
 * ```
 */
export function accumulateText(options: AccumulateTextOptions = {}): OperatorFunction<ResponseStreamEvent, TextSnapshot> {
  const k = options.kind ?? 'output_text';
  const kinds: readonly TextKind[] = k === 'all' ? TEXT_KINDS : typeof k === 'string' ? [k] : k;
  if (!Array.isArray(kinds) || !kinds.every((x) => (TEXT_KINDS as readonly unknown[]).includes(x))) {
    throw invalidOption('kind', `'all', one of ${TEXT_KINDS.map((x) => `'${x}'`).join(', ')} or a list of them`, k);
  }
  const wanted = new WantedKinds(kinds.includes('output_text'), kinds.includes('refusal'), kinds.includes('reasoning_text'), kinds.includes('reasoning_summary_text'));
  return (source) =>
    new Observable<TextSnapshot>((subscriber) => {
      keepWarm('accumulateText', textShapes);
      return source.subscribe(new TextAccumulation(subscriber, wanted));
    });
}

/**
 * One accumulation kept open (on a source that sent one empty delta and never ends) once the first one starts,
 * unless warm-ups are off (lib/warmup.ts): the hidden classes (maps) of what a subscription is made of (its RxJS
 * subscribers, the accumulation, its ItemBook, a part) then survive a full GC while no stream is open, and so
 * does the optimised code that checks for them (V8 drops code whose embedded maps are collected). Nothing of a
 * user's stream is kept.
 */
const textShapes = (): Subscription =>
  new Observable<ResponseStreamEvent>((s) => {
    s.next({ type: 'response.output_item.added', output_index: 0, sequence_number: 0, item: { type: 'message', id: '', role: 'assistant', status: 'in_progress', content: [] } } as unknown as ResponseStreamEvent);
    s.next({ type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: '', delta: '', sequence_number: 1, logprobs: [] } as unknown as ResponseStreamEvent);
  })
    .pipe(accumulateText())
    .subscribe({ next: () => undefined, error: () => undefined, complete: () => undefined });
