// One accumulateText subscription's state and per-event path (not exported from the package).
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import { DecodeError } from '../../lib/errors.js';
import type { TextKind, TextSnapshot } from '../accumulateText.js';
import { grow } from './grow.js';
import { ItemBook } from './items.js';
import { OperatorSubscriber } from './operator-subscriber.js';
import { asRecord, field, isIndex, isTerminalType, partText, sortedKeys, stringField } from './parts.js';
import { ResponseSeams } from './response-seams.js';
import { contentKind, type WantedKinds } from './text-kinds.js';

/**
 * Where the snapshots go: accumulateText's subscriber, or outputText, which also hears where a response ends
 * (`ended`, after its terminal event's final snapshots) and where the next begins (`seam`, after the final
 * snapshots of what the previous one left open, before the new one's first).
 */
export interface TextSink {
  next(snapshot: TextSnapshot): void;
  error(err: unknown): void;
  complete(): void;
  seam?(): void;
  ended?(): void;
}

interface Part {
  readonly kind: TextKind;
  readonly summary: boolean;
  readonly outputIndex: number;
  readonly index: number;
  itemId: string;
  text: string;
  done: boolean;
  /** What closed it (see `Closing`): only a later, more authoritative closing may correct its text. */
  closedBy: Closing;
  /** Concatenations since the text was last flattened (see grow). */
  n: number;
}

/** Closings by authority: the closed item and the terminal output are the response's own final state. */
const Closing = { source: 0, done: 1, item: 2, terminal: 3 } as const;
type Closing = (typeof Closing)[keyof typeof Closing];

// Maps, not arrays: the cost must not depend on the index value (content_index 1e9 is one entry).
interface ItemParts {
  readonly content: Map<number, Part>;
  readonly summary: Map<number, Part>;
}

/**
 * One subscription's text parts: the source's subscriber. A class, not closures made per subscription, so that
 * the optimised code of the per-event path lives as long as the module and survives a full GC between
 * streams (see SSEScannerCore); a Subscriber rather than an observer object, which `subscribe()` would wrap in
 * two more layers that every event crosses (see EventRelay). Fields are set in the constructor, in one order.
 */
export class TextAccumulation extends OperatorSubscriber<ResponseStreamEvent, TextSink> {
  private items: Map<number, ItemParts>;
  private readonly book: ItemBook;
  /** Deltas come in runs on one part: skip the map lookups then. */
  private last: Part | undefined;
  private readonly seams: ResponseSeams;

  constructor(
    sink: TextSink,
    private readonly wanted: WantedKinds,
  ) {
    super(sink);
    this.items = new Map();
    this.book = new ItemBook();
    this.last = undefined;
    this.seams = new ResponseSeams();
  }

  protected override _next(ev: ResponseStreamEvent): void {
    // An event whose fields throw when read (a getter, a Proxy) ends the stream with that error: thrown from
    // here it would reach the producer, or escape as an uncaught exception.
    try {
      this.step(ev);
    } catch (err) {
      this.error(err);
    }
  }

  private step(ev: ResponseStreamEvent): void {
    const e = asRecord(ev);
    if (e === undefined) return;
    const type = e['type'];
    if (this.seams.starts(e)) {
      // Another response: what the last one left open closes with what streamed, and its parts are forgotten.
      this.closeAll(undefined);
      this.sink.seam?.();
    }
    if (!this.book.admits(e)) return; // aimed at an item of another type
    const w = this.wanted;
    switch (type) {
      case 'response.output_text.delta':
        if (w.output) this.onDelta(e, e['output_index'], e['content_index'], e['item_id'], false, 'output_text', e['delta']);
        return;
      case 'response.refusal.delta':
        if (w.refusal) this.onDelta(e, e['output_index'], e['content_index'], e['item_id'], false, 'refusal', e['delta']);
        return;
      case 'response.reasoning_text.delta':
        if (w.reasoning) this.onDelta(e, e['output_index'], e['content_index'], e['item_id'], false, 'reasoning_text', e['delta']);
        return;
      case 'response.reasoning_summary_text.delta':
        if (w.summary) this.onDelta(e, e['output_index'], e['summary_index'], e['item_id'], true, 'reasoning_summary_text', e['delta']);
        return;
      case 'response.output_text.done':
        if (w.output) this.onDone(e['output_index'], e['content_index'], e['item_id'], false, 'output_text', e['text']);
        return;
      case 'response.refusal.done':
        if (w.refusal) this.onDone(e['output_index'], e['content_index'], e['item_id'], false, 'refusal', e['refusal']);
        return;
      case 'response.reasoning_text.done':
        if (w.reasoning) this.onDone(e['output_index'], e['content_index'], e['item_id'], false, 'reasoning_text', e['text']);
        return;
      case 'response.reasoning_summary_text.done':
        if (w.summary) this.onDone(e['output_index'], e['summary_index'], e['item_id'], true, 'reasoning_summary_text', e['text']);
        return;
      case 'response.content_part.added':
      case 'response.content_part.done': {
        const part = e['part'];
        const kind = contentKind(field(part, 'type'));
        if (!w.has(kind)) return;
        if (type === 'response.content_part.done') this.onDone(e['output_index'], e['content_index'], e['item_id'], false, kind, partText(part));
        else this.seed(this.located(e['output_index'], e['content_index'], e['item_id'], false, kind), partText(part));
        return;
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done': {
        if (!w.summary) return;
        if (type === 'response.reasoning_summary_part.done') this.onDone(e['output_index'], e['summary_index'], e['item_id'], true, 'reasoning_summary_text', partText(e['part']));
        else this.seed(this.located(e['output_index'], e['summary_index'], e['item_id'], true, 'reasoning_summary_text'), partText(e['part']));
        return;
      }
      case 'response.output_item.added': {
        const oi = e['output_index'];
        if (!isIndex(oi)) return;
        this.book.noteItem(oi, e['item']);
        this.openItem(oi, e['item']);
        return;
      }
      case 'response.output_item.done': {
        const oi = e['output_index'];
        if (!isIndex(oi)) return;
        this.book.noteItem(oi, e['item']);
        this.closeItem(oi, e['item'], Closing.item);
        return;
      }
      default:
        if (typeof type === 'string' && isTerminalType(type)) {
          this.closeAll(field(e['response'], 'output'));
          this.sink.ended?.();
        }
    }
  }

  protected override beforeComplete(): void {
    this.closeAll(undefined);
  }

  /**
   * For fromChatChunks when this is its direct subscriber (`fromChatChunks(), accumulateText()`): whether an
   * `output_text` delta at (`oi`, `ci`) would, as an event, only extend the part of the last delta, the commonest
   * case (the same response, a run of text deltas on one item, the same part). Changes nothing. When `true`,
   * `chatText` does with the delta's text what `step` does with the event, without the event being built.
   */
  continues(oi: number, ci: number): boolean {
    const p = this.last;
    return p !== undefined && p.index === ci && p.outputIndex === oi && !p.summary && this.wanted.output && !this.isStopped &&
      this.seams.inResponse() && this.book.inRun('response.output_text.delta', oi);
  }

  /** The text delta of the part `continues` answered for: what `next` of its event does (see `continues`). */
  chatText(itemId: string, delta: string): void {
    try {
      const p = this.last!;
      p.itemId = itemId;
      this.emitDelta(p, delta);
    } catch (err) {
      this.error(err);
    }
  }

  private itemAt(outputIndex: number): ItemParts {
    let it = this.items.get(outputIndex);
    if (it === undefined) {
      it = { content: new Map(), summary: new Map() };
      this.items.set(outputIndex, it);
    }
    return it;
  }

  private partAt(outputIndex: number, summary: boolean, index: number, kind: TextKind, itemId: string | undefined): Part {
    let p = this.last;
    if (p === undefined || p.index !== index || p.outputIndex !== outputIndex || p.summary !== summary) {
      const it = this.itemAt(outputIndex);
      const parts = summary ? it.summary : it.content;
      p = parts.get(index);
      if (p === undefined) {
        p = { kind, summary, outputIndex, index, itemId: itemId ?? '', text: '', done: false, closedBy: Closing.source, n: 0 };
        parts.set(index, p);
        return (this.last = p);
      }
      this.last = p;
    }
    if (itemId !== undefined) p.itemId = itemId;
    return p;
  }

  // The part an event names, or undefined when its indices are not indices.
  private located(oi: unknown, ci: unknown, id: unknown, summary: boolean, kind: TextKind): Part | undefined {
    return isIndex(oi) && isIndex(ci) ? this.partAt(oi, summary, ci, kind, typeof id === 'string' ? id : undefined) : undefined;
  }

  // A delta that cannot be placed would silently lose text: that is a typed error, not a skip.
  private onDelta(e: Record<string, unknown>, oi: unknown, ci: unknown, id: unknown, summary: boolean, kind: TextKind, delta: unknown): void {
    const bad = typeof delta !== 'string' ? 'delta' : !isIndex(oi) ? 'output_index' : !isIndex(ci) ? (summary ? 'summary_index' : 'content_index') : undefined;
    if (bad !== undefined) {
      const seq = e['sequence_number'];
      this.sink.error(new DecodeError(bad === 'delta' ? 'expected a string' : 'expected a non-negative integer index', String(e['type']), typeof seq === 'number' ? seq : undefined, bad));
      return;
    }
    this.emitDelta(this.partAt(oi as number, summary, ci as number, kind, typeof id === 'string' ? id : undefined), delta as string);
  }

  private onDone(oi: unknown, ci: unknown, id: unknown, summary: boolean, kind: TextKind, text: unknown): void {
    const p = this.located(oi, ci, id, summary, kind);
    if (p !== undefined) this.finish(p, typeof text === 'string' ? text : undefined, Closing.done);
  }

  /**
   * Text an opening event already carries (a `content_part.added` whose part has text, an item added with its
   * content): streamed text like a delta's, which later deltas extend. Only what it adds to the part is sent.
   */
  private seed(p: Part | undefined, text: string | undefined): void {
    if (p === undefined || text === undefined || text.length <= p.text.length || !text.startsWith(p.text)) return;
    this.emitDelta(p, text.slice(p.text.length));
  }

  /** The parts an added item already carries with text. */
  private openItem(outputIndex: number, item: unknown): void {
    const content = field(item, 'content');
    const id = stringField(item, 'id');
    if (Array.isArray(content)) {
      for (let i = 0; i < content.length; i++) {
        const c: unknown = content[i];
        const kind = contentKind(field(c, 'type'));
        const text = partText(c);
        if (this.wanted.has(kind) && text !== undefined && text !== '') this.seed(this.partAt(outputIndex, false, i, kind, id), text);
      }
    }
    const summary = field(item, 'type') === 'reasoning' && this.wanted.summary ? field(item, 'summary') : undefined;
    if (Array.isArray(summary)) {
      for (let i = 0; i < summary.length; i++) {
        const text = partText(summary[i]);
        if (text !== undefined && text !== '') this.seed(this.partAt(outputIndex, true, i, 'reasoning_summary_text', id), text);
      }
    }
  }

  private emitDelta(p: Part, delta: string): void {
    if (p.done) return; // a delta after the part closed: the closed text stands
    p.text = grow(p, p.text, delta); // a rope, flattened now and then: linear in time and memory
    this.sink.next({ kind: p.kind, itemId: p.itemId, outputIndex: p.outputIndex, contentIndex: p.index, delta, text: p.text, done: false });
  }

  private finish(p: Part, text: string | undefined, by: Closing, itemId?: string): void {
    // The closed item or the terminal output saying otherwise than an earlier `.done` is the response's
    // final state: a corrected final snapshot, so the text agrees with accumulateResponse.
    if (p.done && (text === undefined || text === p.text || by < Closing.item || by < p.closedBy)) return;
    p.done = true;
    p.closedBy = by;
    if (itemId !== undefined) p.itemId = itemId;
    const final = text ?? p.text;
    p.text = final; // the same string as the snapshot's: kept to compare, not copied
    this.sink.next({ kind: p.kind, itemId: p.itemId, outputIndex: p.outputIndex, contentIndex: p.index, delta: '', text: final, done: true });
  }

  // Closes every part of one item from its authoritative shape (or what was accumulated when absent).
  // A part already closed with the same text emits nothing again.
  private closeItem(outputIndex: number, item: unknown, by: Closing): void {
    const it = this.itemAt(outputIndex);
    const id = stringField(item, 'id');
    const isReasoning = field(item, 'type') === 'reasoning';
    const content = field(item, 'content');
    if (Array.isArray(content)) {
      for (let i = 0; i < content.length; i++) {
        const c: unknown = content[i];
        const kind = contentKind(field(c, 'type'));
        if (!this.wanted.has(kind)) continue;
        this.finish(it.content.get(i) ?? this.partAt(outputIndex, false, i, kind, id), partText(c), by, id ?? '');
      }
    }
    const summary = isReasoning ? field(item, 'summary') : undefined;
    if (Array.isArray(summary) && this.wanted.summary) {
      for (let i = 0; i < summary.length; i++) {
        this.finish(it.summary.get(i) ?? this.partAt(outputIndex, true, i, 'reasoning_summary_text', id), partText(summary[i]), by, id ?? '');
      }
    }
    // In index order (parts may have opened out of order); an item holds a handful.
    for (const i of sortedKeys(it.content)) this.finish(it.content.get(i)!, undefined, by);
    for (const i of sortedKeys(it.summary)) this.finish(it.summary.get(i)!, undefined, by);
  }

  // The final output's items are matched to the streamed ones by id (see ItemBook.place), then closed in
  // output order; parts it leaves out close with what streamed.
  private closeAll(output: unknown): void {
    const list = Array.isArray(output) ? (output as unknown[]) : [];
    const at = this.book.place(list);
    const order = list.map((_, i) => i).sort((a, b) => at[a]! - at[b]!);
    for (const i of order) this.closeItem(at[i]!, list[i], Closing.terminal);
    for (const oi of sortedKeys(this.items)) this.closeItem(oi, undefined, Closing.source);
    this.items = new Map(); // a later response on the same stream starts afresh
    this.book.clear();
    this.last = undefined;
  }
}
