import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../lib/events/chat.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { isKnownEvent } from '../lib/events/guards.js';
import { ResponseStreamTracker } from '../lib/decode/tracker.js';
import { eventError, isRecord, num, str, type Rec } from './internal/chat-fields.js';
import { ItemBook } from './internal/items.js';
import { isIndex, partText } from './internal/parts.js';
import { SentText } from './internal/text-sent.js';
import { ChatToolCalls, callKind, type ToolCallDelta } from './internal/to-chat-calls.js';
import { completionUsage } from './internal/usage.js';

export interface ToChatChunksOptions {
  /** Adds a last chunk with `choices: []` and `usage` (as `stream_options.include_usage` does). Default `false`. */
  readonly includeUsage?: boolean;
  /**
   * The delta field reasoning text goes into: `'reasoning_content'` (default), another name
   * (e.g. `'reasoning'`), or `false` to drop reasoning.
   */
  readonly reasoningField?: string | false;
}

/**
 * What this operator puts in a delta. The codec-derived `ChatCompletionChunkDelta` lists every key as
 * present, so deltas are built with this looser shape and typed as chunks once, in `chunk()`.
 */
interface Delta {
  role?: string;
  content?: string | null;
  refusal?: string;
  tool_calls?: ToolCallDelta[];
  annotations?: Array<Record<string, unknown>>;
  [reasoningField: string]: unknown;
}

/**
 * Turns a Responses event stream into Chat Completions chunks, as a chat client expects them: a role
 * chunk first, text as `content`, refusals as `refusal`, function calls as `tool_calls` of `type: 'function'`
 * and custom tool calls as `tool_calls` of `type: 'custom'` (`custom: { name, input }`), with dense indexes
 * across both in opening order, reasoning as `reasoning_content`, `url_citation` annotations, a
 * `finish_reason` chunk and, with `includeUsage`, a usage chunk. `response.failed` / `error` end it with the
 * transport's `ResponseStreamError` and no finish chunk; events with no chat equivalent are skipped.
 * Text and refusals that only arrive whole (a `.done`, a closed part or item, the final response's
 * `output`, matched to the streamed items by id) are sent as far as the deltas did not carry them, so
 * `content` ends as `outputText()` does. The role chunk's `content` is `''` when the answer starts with
 * text and `null` otherwise, so an answer without text (a refusal, tool calls only) ends with
 * `content: null`, as a chat provider's does.
 *
 * Events are read defensively (they may come from `validate: 'off'`): a malformed `response` (metadata)
 * or annotation is skipped, an event aimed at an item of another type (text at a function call) is
 * ignored, and any other field it needs of the wrong type ends the stream with a `DecodeError` naming
 * the event type, `sequence_number` and field path. Indices are only Map keys.
 *
 * ```
 * --created--text(Hi)--completed--|
 *   toChatChunks()
 * -----------(rc)------f|
 *   r = {role:'assistant',content:''}, c = {content:'Hi'}, f = finish_reason 'stop'
 * ```
 *
 * ```ts
 * streamResponse(body, config).pipe(toChatChunks({ includeUsage: true }), toChatSSE())
 * ```
 */
export function toChatChunks(options: ToChatChunksOptions = {}): OperatorFunction<ResponseStreamEvent, ChatCompletionChunk> {
  const includeUsage = options.includeUsage === true;
  const reasoningField = options.reasoningField === undefined ? 'reasoning_content' : options.reasoningField;
  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      let id = '';
      let created = 0;
      let model = '';
      let roleSent = false;
      let done = false;
      let failure: Error | undefined;
      // Reasoning parts are told apart by (output_index, summary/content index, kind).
      let reasoningSent = false;
      let lastReasoningOutput = -1;
      let lastReasoningIndex = -1;
      let lastReasoningKind = 0;
      // Text per part: `.done`, closed items and the final output send only what the deltas did not.
      const sent = new SentText();
      const book = new ItemBook();
      // An answer with text starts its message with content '' (as a chat provider does), any other with null.
      let sawText = false;

      const chunk = (delta: Delta, finish: string | null): ChatCompletionChunk =>
        ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
      const emit = (delta: Delta, finish: string | null = null): void => {
        if (!roleSent) {
          roleSent = true;
          subscriber.next(chunk({ role: 'assistant', content: sawText || delta.content !== undefined ? '' : null }, null));
        }
        subscriber.next(chunk(delta, finish));
      };
      // Function and custom tool calls: each sent from when its whole name and real id are known.
      const calls = new ChatToolCalls((toolCalls) => emit({ tool_calls: toolCalls }), () => id);
      const adopt = (r: unknown): void => {
        // Metadata only: a missing or malformed `response` leaves the defaults.
        if (!isRecord(r)) return;
        if (typeof r['id'] === 'string') id = r['id'];
        if (typeof r['created_at'] === 'number') created = r['created_at'];
        if (typeof r['model'] === 'string') model = r['model'];
      };
      const sendText = (refusal: boolean, oi: number, ci: number, delta: string): void => {
        if (delta.length === 0) return;
        sent.add(refusal, oi, ci, delta);
        if (refusal) emit({ refusal: delta });
        else {
          sawText = true;
          emit({ content: delta });
        }
      };
      // An authoritative text (`.done`, a closed part or item, the final output): what the deltas did not carry.
      const sendFull = (refusal: boolean, oi: number, ci: number, full: unknown): void => {
        if (!refusal && full !== undefined) sawText = true;
        if (typeof full === 'string') sendText(refusal, oi, ci, sent.rest(refusal, oi, ci, full));
      };
      const sendPart = (oi: number, ci: number, part: unknown): void => {
        const type = isRecord(part) ? part['type'] : undefined;
        if (type === 'output_text' || type === 'refusal') sendFull(type === 'refusal', oi, ci, partText(part));
      };
      const finishItem = (e: Rec, item: unknown, outputIndex: number, path: string): void => {
        if (!isRecord(item)) throw eventError(e, path, 'not an object');
        if (item['type'] === 'message') {
          const content = item['content'];
          if (Array.isArray(content)) for (let ci = 0; ci < content.length; ci++) sendPart(outputIndex, ci, content[ci]);
          return;
        }
        const kind = callKind(item['type']);
        if (kind !== undefined) calls.finish(e, item, kind, outputIndex, path);
      };
      const reasoning = (text: string, outputIndex: number, index: number, kind: number): void => {
        if (reasoningField === false || text.length === 0) return;
        let out = text;
        if (outputIndex !== lastReasoningOutput || index !== lastReasoningIndex || kind !== lastReasoningKind) {
          if (reasoningSent) out = `\n\n${text}`;
          lastReasoningOutput = outputIndex;
          lastReasoningIndex = index;
          lastReasoningKind = kind;
        }
        reasoningSent = true;
        emit({ [reasoningField]: out });
      };
      const terminate = (e: Rec, finish: string): void => {
        const r = isRecord(e['response']) ? e['response'] : {};
        adopt(r);
        const output = r['output'];
        if (output !== undefined && output !== null) {
          if (!Array.isArray(output)) throw eventError(e, 'response.output', 'not an array');
          // Matched to the streamed items by id (the list may leave out or reorder items), sent in output order.
          const at = book.place(output);
          const order = output.map((_, i) => i).sort((a, b) => at[a]! - at[b]!);
          for (const i of order) finishItem(e, output[i], at[i]!, `response.output[${i}]`);
        }
        const u = includeUsage && isRecord(r['usage']) ? completionUsage(e, r['usage']) : undefined;
        done = true;
        emit({}, finish === 'stop' && calls.count > 0 ? 'tool_calls' : finish);
        if (u !== undefined) subscriber.next({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: u } as unknown as ChatCompletionChunk);
        subscriber.complete();
      };
      const onEvent = (e: Rec, type: string): void => {
        switch (type) {
          case 'response.created':
          case 'response.queued':
          case 'response.in_progress':
            adopt(e['response']);
            return;
          case 'response.output_text.delta':
          case 'response.refusal.delta': {
            const delta = str(e, e, 'delta');
            sendText(type === 'response.refusal.delta', num(e, e, 'output_index'), num(e, e, 'content_index'), delta);
            return;
          }
          case 'response.output_text.done':
          case 'response.refusal.done': {
            const refusal = type === 'response.refusal.done';
            sendFull(refusal, num(e, e, 'output_index'), num(e, e, 'content_index'), e[refusal ? 'refusal' : 'text']);
            return;
          }
          case 'response.content_part.added': {
            const part = e['part'];
            if (isRecord(part) && part['type'] === 'output_text') sawText = true;
            // A part that opens with text: streamed text, which the deltas extend.
            if (partText(part)) sendPart(num(e, e, 'output_index'), num(e, e, 'content_index'), part);
            return;
          }
          case 'response.content_part.done':
            sendPart(num(e, e, 'output_index'), num(e, e, 'content_index'), e['part']);
            return;
          case 'response.output_text.annotation.added': {
            // Only well-formed url citations have a chat equivalent; anything else is skipped.
            const a = e['annotation'];
            if (!isRecord(a) || a['type'] !== 'url_citation') return;
            const offset = sent.startOf(num(e, e, 'output_index'), num(e, e, 'content_index'));
            const at = (k: string): number => (typeof a[k] === 'number' ? (a[k] as number) : 0) + offset;
            const text = (k: string): string => (typeof a[k] === 'string' ? (a[k] as string) : '');
            emit({ annotations: [{ type: 'url_citation', url_citation: { start_index: at('start_index'), end_index: at('end_index'), url: text('url'), title: text('title') } }] });
            return;
          }
          case 'response.output_item.added': {
            const item = e['item'];
            if (!isRecord(item)) throw eventError(e, 'item', 'not an object');
            if (isIndex(e['output_index'])) book.noteItem(e['output_index'], item);
            const kind = callKind(item['type']);
            if (kind !== undefined) calls.added(e, item, kind);
            else if (item['type'] === 'message' && Array.isArray(item['content'])) {
              // A message that opens with its content: what its parts carry is streamed text.
              const content = item['content'] as unknown[];
              for (let ci = 0; ci < content.length; ci++) if (partText(content[ci])) sendPart(num(e, e, 'output_index'), ci, content[ci]);
            }
            return;
          }
          case 'response.function_call_arguments.delta':
            calls.delta(e, 'function');
            return;
          case 'response.custom_tool_call_input.delta':
            calls.delta(e, 'custom');
            return;
          case 'response.function_call_arguments.done':
            calls.done(e, 'function');
            return;
          case 'response.custom_tool_call_input.done':
            calls.done(e, 'custom');
            return;
          case 'response.output_item.done': {
            const oi = num(e, e, 'output_index');
            if (isIndex(oi)) book.noteItem(oi, e['item']);
            finishItem(e, e['item'], oi, 'item');
            return;
          }
          case 'response.reasoning_summary_text.delta':
            reasoning(str(e, e, 'delta'), num(e, e, 'output_index'), num(e, e, 'summary_index'), 1);
            return;
          case 'response.reasoning_text.delta':
            reasoning(str(e, e, 'delta'), num(e, e, 'output_index'), num(e, e, 'content_index'), 2);
            return;
          case 'response.completed':
            terminate(e, 'stop');
            return;
          case 'response.incomplete': {
            const r = e['response'];
            const details = isRecord(r) ? r['incomplete_details'] : undefined;
            terminate(e, isRecord(details) && details['reason'] === 'content_filter' ? 'content_filter' : 'length');
            return;
          }
          case 'response.failed':
          case 'error':
            // The transport ends with this error right after; kept for sources that complete instead.
            done = true;
            failure = new ResponseStreamTracker().errorOf(e as unknown as ResponseStreamEvent);
            return;
          default:
            return;
        }
      };

      return source.subscribe({
        next(e) {
          if (done) return;
          try {
            if (!isRecord(e)) throw eventError(e, '', 'the event is not an object');
            const type = e['type'];
            if (typeof type !== 'string' || !isKnownEvent(e as ResponseStreamEvent)) return;
            if (!book.admits(e)) return; // aimed at an item of another type
            onEvent(e, type);
          } catch (err) {
            // A malformed event ends the stream with its DecodeError; what an event's getters (a Proxy) throw, with
            // that error: thrown from here it would escape as an uncaught exception.
            done = true;
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          if (failure !== undefined) subscriber.error(failure);
          else subscriber.complete();
        },
      });
    });
}
