import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../lib/events/chat.js';
import { DecodeError } from '../lib/errors.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { isKnownEvent } from '../lib/events/guards.js';
import { ResponseStreamTracker } from '../lib/decode/tracker.js';
import { eventError, isRecord, num, optStr, str, type Rec } from './internal/chat-fields.js';
import { ItemBook } from './internal/items.js';
import { grow, type Growth } from './internal/grow.js';
import { isIndex, partText } from './internal/parts.js';
import { SentText } from './internal/text-sent.js';
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
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }>;
  annotations?: Array<Record<string, unknown>>;
  [reasoningField: string]: unknown;
}

interface Call extends Growth {
  /** The chat `index`, dense in opening order; -1 until the call's first chunk is sent. */
  k: number;
  callId: string;
  name: string;
  /** How many characters of the arguments were emitted: the `.done` text and final item fill the rest. */
  sent: number;
  /** Arguments that arrived before the call could open (its id or name not known yet). */
  held: string;
}

/**
 * Turns a Responses event stream into Chat Completions chunks, as a chat client expects them: a role
 * chunk first, text as `content`, refusals as `refusal`, function calls as `tool_calls` (dense indexes
 * in opening order), reasoning as `reasoning_content`, `url_citation` annotations, a `finish_reason`
 * chunk and, with `includeUsage`, a usage chunk. `response.failed` / `error` end it with the
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
      let callCount = 0;
      // Calls by output index and by item id; by call_id only for an event without a usable output index
      // (two calls may share a call_id, and each keeps its own arguments).
      const callsByOutput = new Map<number, Call>();
      const callsByItem = new Map<string, Call>();
      const callsById = new Map<string, Call>();
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
      const adopt = (r: unknown): void => {
        // Metadata only: a missing or malformed `response` leaves the defaults.
        if (!isRecord(r)) return;
        if (typeof r['id'] === 'string') id = r['id'];
        if (typeof r['created_at'] === 'number') created = r['created_at'];
        if (typeof r['model'] === 'string') model = r['model'];
      };
      // A call is tracked from its first event and sent from when its id and name are both known: the chat
      // client must get the whole name and the real id on the call's first chunk (the SDK binds a call's
      // identity there), so a call whose `added` item lacks them waits, holding its arguments, until the
      // `.done` event or the closed item says them.
      const track = (outputIndex: number, callId: string, name: string, itemId: string | undefined): Call => {
        const call: Call = { k: -1, callId, name, sent: 0, held: '', n: 0 };
        if (outputIndex >= 0) callsByOutput.set(outputIndex, call);
        if (callId !== '' && !callsById.has(callId)) callsById.set(callId, call);
        if (itemId !== undefined) callsByItem.set(itemId, call);
        return call;
      };
      const openCall = (call: Call, force: boolean): void => {
        if (call.k >= 0 || (!force && (call.callId === '' || call.name === ''))) return;
        call.k = callCount++;
        if (call.callId === '') call.callId = `call_${id}_${call.k}`; // none ever came
        emit({ tool_calls: [{ index: call.k, id: call.callId, type: 'function', function: { name: call.name, arguments: '' } }] });
        const held = call.held;
        call.held = '';
        sendArgs(call, held);
      };
      const findCall = (outputIndex: number, itemId: string | undefined, callId?: string): Call | undefined =>
        (outputIndex >= 0 ? callsByOutput.get(outputIndex) : undefined) ??
        (itemId !== undefined ? callsByItem.get(itemId) : undefined) ??
        (!isIndex(outputIndex) && callId !== undefined ? callsById.get(callId) : undefined);
      const sendArgs = (call: Call, args: string): void => {
        if (args.length === 0) return;
        if (call.k < 0) {
          call.held = grow(call, call.held, args);
          return;
        }
        call.sent += args.length;
        emit({ tool_calls: [{ index: call.k, function: { arguments: args } }] });
      };
      // `.done` and the finished item are authoritative: send what the deltas did not carry.
      const sendRest = (call: Call, full: string): void => {
        const have = call.sent + call.held.length;
        if (full.length > have) sendArgs(call, full.slice(have));
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
        if (item['type'] !== 'function_call') return;
        const callId = str(e, item, 'call_id', `${path}.call_id`);
        const args = str(e, item, 'arguments', `${path}.arguments`);
        const itemId = optStr(e, item, 'id', `${path}.id`);
        const name = str(e, item, 'name', `${path}.name`);
        const call = findCall(outputIndex, itemId, callId) ?? track(outputIndex, callId, name, itemId);
        // The closed item says the id and name for sure (a call that waited for them opens with them now).
        if (call.k < 0) {
          if (callId !== '') call.callId = callId;
          if (name !== '') call.name = name;
          openCall(call, true);
        }
        sendRest(call, args);
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
        emit({}, finish === 'stop' && callCount > 0 ? 'tool_calls' : finish);
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
          case 'response.content_part.added':
            if (isRecord(e['part']) && e['part']['type'] === 'output_text') sawText = true;
            return;
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
            if (item['type'] !== 'function_call') return;
            const callId = optStr(e, item, 'call_id', 'item.call_id') ?? '';
            const name = optStr(e, item, 'name', 'item.name') ?? '';
            const oi = num(e, e, 'output_index');
            const itemId = optStr(e, item, 'id', 'item.id');
            if (findCall(oi, itemId) !== undefined) return; // the same item again
            openCall(track(oi, callId, name, itemId), false);
            return;
          }
          case 'response.function_call_arguments.delta': {
            const delta = str(e, e, 'delta');
            const call = findCall(num(e, e, 'output_index'), optStr(e, e, 'item_id'));
            // A delta for a call never opened (a resumed stream) waits for the finished item.
            if (call !== undefined) sendArgs(call, delta);
            return;
          }
          case 'response.function_call_arguments.done': {
            const args = str(e, e, 'arguments');
            const call = findCall(num(e, e, 'output_index'), optStr(e, e, 'item_id'));
            if (call === undefined) return;
            const name = optStr(e, e, 'name');
            if (call.k < 0 && name !== undefined && name !== '') {
              call.name = name;
              openCall(call, false);
            }
            sendRest(call, args);
            return;
          }
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
            // Only the field readers throw here: a malformed event ends the stream with its DecodeError.
            if (!(err instanceof DecodeError)) throw err;
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
