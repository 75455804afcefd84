import { Observable, type OperatorFunction } from 'rxjs';
import type { KnownResponseStreamEvent, ResponseStreamEvent } from '../lib/events/responses.js';
import { field, isTerminalType, partText, sortedKeys, stringField } from './internal/parts.js';

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

interface Part {
  readonly kind: TextKind;
  readonly outputIndex: number;
  readonly index: number;
  itemId: string;
  text: string;
  done: boolean;
}

interface ItemParts {
  readonly content: Array<Part | undefined>;
  readonly summary: Array<Part | undefined>;
}

function contentKind(partType: unknown): TextKind | undefined {
  return partType === 'output_text' || partType === 'refusal' || partType === 'reasoning_text' ? partType : undefined;
}

/**
 * Assembles the text parts of a response as they stream: one snapshot per delta (`done: false`) carrying
 * the part's whole text so far, then one final snapshot per part (`done: true`).
 *
 * Parts are keyed by `output_index` and `content_index` (`summary_index` for reasoning summaries), never
 * by `item_id`, so providers that rotate item ids and items that interleave are handled. The final text
 * is the `.done` event's when there is one; otherwise the part is closed by `content_part.done`, by
 * `response.output_item.done` (whose content is authoritative), by the end of the response
 * (`response.completed` / `.incomplete` / `.failed` / `error`, from its `output` when present) or by the source
 * completing. Parts that only appear in a closed item or in the final response get a final snapshot too.
 * An error passes through untouched, without final snapshots.
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
  const wantOutput = kinds.includes('output_text');
  const wantRefusal = kinds.includes('refusal');
  const wantReasoning = kinds.includes('reasoning_text');
  const wantSummary = kinds.includes('reasoning_summary_text');
  const wants = (kind: TextKind | undefined): kind is TextKind =>
    kind === 'output_text' ? wantOutput : kind === 'refusal' ? wantRefusal : kind === 'reasoning_text' ? wantReasoning : kind === 'reasoning_summary_text' && wantSummary;

  return (source) =>
    new Observable<TextSnapshot>((subscriber) => {
      let items = new Map<number, ItemParts>();

      const itemAt = (outputIndex: number): ItemParts => {
        let it = items.get(outputIndex);
        if (it === undefined) {
          it = { content: [], summary: [] };
          items.set(outputIndex, it);
        }
        return it;
      };

      const partAt = (outputIndex: number, summary: boolean, index: number, kind: TextKind, itemId: string): Part => {
        const it = itemAt(outputIndex);
        const list = summary ? it.summary : it.content;
        let p = list[index];
        if (p === undefined) {
          p = { kind, outputIndex, index, itemId, text: '', done: false };
          list[index] = p;
        } else {
          p.itemId = itemId;
        }
        return p;
      };

      const emitDelta = (p: Part, delta: string): void => {
        if (p.done) return; // a delta after the part closed: the closed text stands
        p.text += delta; // V8 concatenation builds a rope: linear over a million deltas
        subscriber.next({ kind: p.kind, itemId: p.itemId, outputIndex: p.outputIndex, contentIndex: p.index, delta, text: p.text, done: false });
      };

      const finish = (p: Part, text: string | undefined, itemId?: string): void => {
        if (p.done) return;
        p.done = true;
        if (itemId !== undefined) p.itemId = itemId;
        const final = text ?? p.text;
        p.text = ''; // the emitted snapshot keeps it; free ours
        subscriber.next({ kind: p.kind, itemId: p.itemId, outputIndex: p.outputIndex, contentIndex: p.index, delta: '', text: final, done: true });
      };

      // Closes every part of one item from its authoritative shape (or what was accumulated when absent).
      // Idempotent: a part already closed keeps its first final text.
      const closeItem = (outputIndex: number, item: unknown): void => {
        const it = itemAt(outputIndex);
        const id = stringField(item, 'id') ?? '';
        const isReasoning = field(item, 'type') === 'reasoning';
        const content = field(item, 'content');
        if (Array.isArray(content)) {
          for (let i = 0; i < content.length; i++) {
            const c: unknown = content[i];
            const kind = contentKind(field(c, 'type'));
            if (!wants(kind)) continue;
            finish(it.content[i] ?? partAt(outputIndex, false, i, kind, id), partText(c), id);
          }
        }
        const summary = isReasoning ? field(item, 'summary') : undefined;
        if (Array.isArray(summary) && wantSummary) {
          for (let i = 0; i < summary.length; i++) {
            finish(it.summary[i] ?? partAt(outputIndex, true, i, 'reasoning_summary_text', id), partText(summary[i]), id);
          }
        }
        for (const p of it.content) if (p !== undefined) finish(p, undefined);
        for (const p of it.summary) if (p !== undefined) finish(p, undefined);
      };

      const closeAll = (output: unknown): void => {
        const list = Array.isArray(output) ? (output as unknown[]) : [];
        for (let i = 0; i < list.length; i++) closeItem(i, list[i]);
        for (const oi of sortedKeys(items)) closeItem(oi, undefined);
        items = new Map(); // a later response on the same stream starts afresh
      };

      return source.subscribe({
        next(ev) {
          const e = ev as KnownResponseStreamEvent;
          switch (e.type) {
            case 'response.output_text.delta':
              if (wantOutput) emitDelta(partAt(e.output_index, false, e.content_index, 'output_text', e.item_id), e.delta);
              return;
            case 'response.refusal.delta':
              if (wantRefusal) emitDelta(partAt(e.output_index, false, e.content_index, 'refusal', e.item_id), e.delta);
              return;
            case 'response.reasoning_text.delta':
              if (wantReasoning) emitDelta(partAt(e.output_index, false, e.content_index, 'reasoning_text', e.item_id), e.delta);
              return;
            case 'response.reasoning_summary_text.delta':
              if (wantSummary) emitDelta(partAt(e.output_index, true, e.summary_index, 'reasoning_summary_text', e.item_id), e.delta);
              return;
            case 'response.output_text.done':
              if (wantOutput) finish(partAt(e.output_index, false, e.content_index, 'output_text', e.item_id), e.text);
              return;
            case 'response.refusal.done':
              if (wantRefusal) finish(partAt(e.output_index, false, e.content_index, 'refusal', e.item_id), e.refusal);
              return;
            case 'response.reasoning_text.done':
              if (wantReasoning) finish(partAt(e.output_index, false, e.content_index, 'reasoning_text', e.item_id), e.text);
              return;
            case 'response.reasoning_summary_text.done':
              if (wantSummary) finish(partAt(e.output_index, true, e.summary_index, 'reasoning_summary_text', e.item_id), e.text);
              return;
            case 'response.content_part.added': {
              const kind = contentKind(e.part.type);
              if (wants(kind)) partAt(e.output_index, false, e.content_index, kind, e.item_id);
              return;
            }
            case 'response.reasoning_summary_part.added':
              if (wantSummary) partAt(e.output_index, true, e.summary_index, 'reasoning_summary_text', e.item_id);
              return;
            case 'response.content_part.done': {
              const kind = contentKind(e.part.type);
              if (wants(kind)) finish(partAt(e.output_index, false, e.content_index, kind, e.item_id), partText(e.part));
              return;
            }
            case 'response.reasoning_summary_part.done':
              if (wantSummary) finish(partAt(e.output_index, true, e.summary_index, 'reasoning_summary_text', e.item_id), partText(e.part));
              return;
            case 'response.output_item.done':
              closeItem(e.output_index, e.item);
              return;
            default:
              if (isTerminalType(e.type)) closeAll(field(field(e, 'response'), 'output'));
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          closeAll(undefined);
          subscriber.complete();
        },
      });
    });
}
