import type { CompletionUsage } from '../../lib/events/chat.js';
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import { isRecord, own, type Rec } from './chat-fields.js';
import { MessageItem } from './chat-message.js';
import { ReasoningItem } from './chat-reasoning.js';

// The Responses side of fromChatChunks: sequence numbers, the response envelope, output indices, and
// which items are open. The items themselves live in chat-message, chat-reasoning and chat-tool-calls.

export type Json = Record<string, unknown>;
export type ResponseEvent = Json & { type: string };

// A Map, so that a finish_reason such as "constructor" finds nothing.
const INCOMPLETE: ReadonlyMap<string, string> = new Map([['length', 'max_output_tokens'], ['content_filter', 'content_filter']]);

export class ChatOutput {
  private seq = 0;
  private started = false;
  /** Taken from the first chunk that has each (Azure opens with `id: ""`, `model: ""`, `created: 0`). */
  id = '';
  private model = '';
  private created = 0;
  finish: string | undefined;
  usage: CompletionUsage | undefined;
  private readonly items: Array<Json | undefined> = [];
  /** The open items by output index; insertion order is output order, as indices only grow. */
  private readonly open = new Map<number, () => void>();
  readonly message: MessageItem;
  readonly reasoning: ReasoningItem;
  /** Run before any item opens and before everything closes: opens a tool call still waiting for its name. */
  beforeOpen: (() => void) | undefined;

  /** `sink`: the operator's subscriber (an object, not a closure per subscription; see ChatChunks). */
  constructor(private readonly sink: { next(e: ResponseStreamEvent): void }) {
    this.message = new MessageItem(this);
    this.reasoning = new ReasoningItem(this);
  }

  next(e: ResponseEvent): void {
    e['sequence_number'] = this.seq++;
    this.sink.next(e as unknown as ResponseStreamEvent);
  }

  /**
   * The next sequence number, for an event that carries it in its literal (then emitted with `emit`): the hot
   * text delta, whose hidden class is then the literal's own, which V8 keeps with the code, instead of one more
   * transition, which a full GC between streams collects (and the code that checks for it is thrown away).
   */
  sequence(): number {
    return this.seq++;
  }

  /** Emits an event that already has its sequence number. */
  emit(e: ResponseEvent): void {
    this.sink.next(e as unknown as ResponseStreamEvent);
  }

  /** Whether `meta` has nothing left to fill. */
  metaKnown(): boolean {
    return this.id !== '' && this.model !== '' && this.created !== 0;
  }

  /** Fills the metadata still unknown from a chunk; empty strings and a zero time count as unknown. */
  meta(chunk: Rec): void {
    const id = own(chunk, 'id');
    const model = own(chunk, 'model');
    const created = own(chunk, 'created');
    if (this.id === '' && typeof id === 'string') this.id = id;
    if (this.model === '' && typeof model === 'string') this.model = model;
    if (this.created === 0 && typeof created === 'number' && Number.isFinite(created)) this.created = created;
  }

  /**
   * Emits `response.created` and `response.in_progress` once: at the first chunk with an id, or before the
   * first item when no chunk has one yet (Gemini sends none), so item ids carry the id whenever one is sent.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.next({ type: 'response.created', response: this.response('in_progress', [], null, null) });
    this.next({ type: 'response.in_progress', response: this.response('in_progress', [], null, null) });
  }

  /** An item id, derived from the response id and the output index. */
  itemId(prefix: string, oi: number): string {
    return this.id === '' ? `${prefix}_${oi}` : `${prefix}_${this.id}_${oi}`;
  }

  /** Opens an item: the next output index, `response.output_item.added`, and `close` run by closeAll. */
  openItem(prefix: string, item: (id: string, oi: number) => Json, close: () => void): { oi: number; id: string } {
    this.beforeOpen?.();
    this.start();
    const oi = this.items.length;
    this.items.push(undefined);
    const id = this.itemId(prefix, oi);
    this.open.set(oi, close);
    this.next({ type: 'response.output_item.added', output_index: oi, item: item(id, oi) });
    return { oi, id };
  }

  /** Closes an item with its final shape (`response.output_item.done`). */
  doneItem(oi: number, item: Json): void {
    this.open.delete(oi);
    this.items[oi] = item;
    this.next({ type: 'response.output_item.done', output_index: oi, item });
  }

  /** `incomplete` after a `length` / `content_filter` finish, else `completed`. */
  itemStatus(): string {
    return this.finish !== undefined && INCOMPLETE.has(this.finish) ? 'incomplete' : 'completed';
  }

  /** Closes reasoning and message: a tool call, or the other of the two, is opening. */
  closeText(): void {
    this.reasoning.close();
    this.message.close();
  }

  /** Closes every open item in output order. */
  closeAll(): void {
    this.beforeOpen?.();
    for (const close of [...this.open.values()]) close();
  }

  /** Everything open is closed, then the terminal event with the usage. */
  end(): void {
    this.start();
    this.closeAll();
    const u = this.usage;
    const usage = u
      ? {
          input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, total_tokens: u.total_tokens,
          input_tokens_details: { cached_tokens: detail(u.prompt_tokens_details, 'cached_tokens') },
          output_tokens_details: { reasoning_tokens: detail(u.completion_tokens_details, 'reasoning_tokens') },
        }
      : null;
    const output = this.items.filter((x): x is Json => x !== undefined);
    const reason = this.finish === undefined ? undefined : INCOMPLETE.get(this.finish);
    if (reason !== undefined) this.next({ type: 'response.incomplete', response: this.response('incomplete', output, usage, { reason }) });
    else this.next({ type: 'response.completed', response: this.response('completed', output, usage, null) });
  }

  private response(status: string, output: Json[], usage: Json | null, incomplete: Json | null): Json {
    return {
      id: this.id, object: 'response', created_at: this.created, status, model: this.model, output, usage, error: null,
      incomplete_details: incomplete, previous_response_id: null,
    };
  }
}

function detail(d: unknown, key: string): number {
  const v = isRecord(d) ? d[key] : undefined;
  return typeof v === 'number' ? v : 0;
}
