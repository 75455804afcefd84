import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk, CompletionUsage } from '../lib/events/chat.js';
import type { Response } from '../lib/events/response.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { isKnownEvent } from '../lib/events/guards.js';
import { ResponseStreamTracker } from '../lib/decode/tracker.js';

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
  content?: string;
  refusal?: string;
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }>;
  annotations?: Array<Record<string, unknown>>;
  [reasoningField: string]: unknown;
}

interface Call {
  readonly k: number;
  /** How many characters of the arguments were emitted: the `.done` text and final item fill the rest. */
  sent: number;
}

/**
 * Turns a Responses event stream into Chat Completions chunks, as a chat client expects them: a role
 * chunk first, text as `content`, refusals as `refusal`, function calls as `tool_calls` (dense indexes
 * in opening order), reasoning as `reasoning_content`, `url_citation` annotations, a `finish_reason`
 * chunk and, with `includeUsage`, a usage chunk. `response.failed` / `error` end it with the
 * transport's `ResponseStreamError` and no finish chunk; events with no chat equivalent are skipped.
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
      const callsByOutput = new Map<number, Call>();
      const callsById = new Map<string, Call>();
      // Reasoning parts are told apart by (output_index, summary/content index, kind).
      let reasoningSent = false;
      let lastReasoningOutput = -1;
      let lastReasoningIndex = -1;
      let lastReasoningKind = 0;
      // Annotation offsets are per text part, chat's are over the whole content.
      let contentLength = 0;
      let lastTextOutput = -1;
      let lastTextIndex = -1;
      let partStarts: Map<string, number> | undefined;

      const chunk = (delta: Delta, finish: string | null): ChatCompletionChunk =>
        ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
      const emit = (delta: Delta, finish: string | null = null): void => {
        if (!roleSent) {
          roleSent = true;
          subscriber.next(chunk({ role: 'assistant', content: '' }, null));
        }
        subscriber.next(chunk(delta, finish));
      };
      const adopt = (r: Response): void => {
        id = r.id;
        if (typeof r.created_at === 'number') created = r.created_at;
        if (typeof r.model === 'string') model = r.model;
      };
      const openCall = (outputIndex: number, callId: string, name: string, itemId: string | undefined): Call => {
        const call: Call = { k: callCount++, sent: 0 };
        if (outputIndex >= 0) callsByOutput.set(outputIndex, call);
        callsById.set(callId, call);
        if (itemId !== undefined) callsById.set(itemId, call);
        emit({ tool_calls: [{ index: call.k, id: callId, type: 'function', function: { name, arguments: '' } }] });
        return call;
      };
      const sendArgs = (call: Call, args: string): void => {
        if (args.length === 0) return;
        call.sent += args.length;
        emit({ tool_calls: [{ index: call.k, function: { arguments: args } }] });
      };
      // `.done` and the finished item are authoritative: send what the deltas did not carry.
      const sendRest = (call: Call, full: string): void => {
        if (full.length > call.sent) sendArgs(call, full.slice(call.sent));
      };
      const finishItem = (item: { type: string; [key: string]: unknown }, outputIndex: number): void => {
        if (item.type !== 'function_call') return;
        const f = item as unknown as { call_id: string; name: string; arguments: string; id?: string };
        let call = (outputIndex >= 0 ? callsByOutput.get(outputIndex) : undefined) ?? callsById.get(f.call_id);
        if (call === undefined && typeof f.id === 'string') call = callsById.get(f.id);
        if (call === undefined) call = openCall(outputIndex, f.call_id, f.name, f.id);
        sendRest(call, f.arguments);
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
      const terminate = (r: Response, finish: string): void => {
        done = true;
        adopt(r);
        if (r.output) for (let i = 0; i < r.output.length; i++) finishItem(r.output[i]!, i);
        emit({}, finish === 'stop' && callCount > 0 ? 'tool_calls' : finish);
        if (includeUsage && r.usage) {
          const u = r.usage;
          const usage: CompletionUsage = {
            prompt_tokens: u.input_tokens,
            completion_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
            prompt_tokens_details: { cached_tokens: u.input_tokens_details?.cached_tokens ?? 0 },
            completion_tokens_details: { reasoning_tokens: u.output_tokens_details?.reasoning_tokens ?? 0 },
          };
          subscriber.next({ id, object: 'chat.completion.chunk', created, model, choices: [], usage } as unknown as ChatCompletionChunk);
        }
        subscriber.complete();
      };

      return source.subscribe({
        next(e) {
          if (done || !isKnownEvent(e)) return;
          switch (e.type) {
            case 'response.created':
            case 'response.queued':
            case 'response.in_progress':
              adopt(e.response);
              return;
            case 'response.output_text.delta': {
              if (e.delta.length === 0) return;
              if (e.output_index !== lastTextOutput || e.content_index !== lastTextIndex) {
                lastTextOutput = e.output_index;
                lastTextIndex = e.content_index;
                (partStarts ??= new Map()).set(`${e.output_index}:${e.content_index}`, contentLength);
              }
              contentLength += e.delta.length;
              emit({ content: e.delta });
              return;
            }
            case 'response.refusal.delta':
              if (e.delta.length > 0) emit({ refusal: e.delta });
              return;
            case 'response.output_text.annotation.added': {
              const a = e.annotation as { type: string; start_index?: number; end_index?: number; url?: string; title?: string } | null;
              if (a === null || a.type !== 'url_citation') return;
              const offset = partStarts?.get(`${e.output_index}:${e.content_index}`) ?? 0;
              emit({
                annotations: [
                  {
                    type: 'url_citation',
                    url_citation: { start_index: (a.start_index ?? 0) + offset, end_index: (a.end_index ?? 0) + offset, url: a.url ?? '', title: a.title ?? '' },
                  },
                ],
              });
              return;
            }
            case 'response.output_item.added': {
              const item = e.item;
              if (item.type !== 'function_call') return;
              if (callsById.has(item.call_id)) return;
              openCall(e.output_index, item.call_id, item.name, item.id);
              return;
            }
            case 'response.function_call_arguments.delta': {
              const call = callsByOutput.get(e.output_index) ?? callsById.get(e.item_id);
              // A delta for a call never opened (a resumed stream) waits for the finished item.
              if (call !== undefined) sendArgs(call, e.delta);
              return;
            }
            case 'response.function_call_arguments.done': {
              const call = callsByOutput.get(e.output_index) ?? callsById.get(e.item_id);
              if (call !== undefined) sendRest(call, e.arguments);
              return;
            }
            case 'response.output_item.done':
              finishItem(e.item, e.output_index);
              return;
            case 'response.reasoning_summary_text.delta':
              reasoning(e.delta, e.output_index, e.summary_index, 1);
              return;
            case 'response.reasoning_text.delta':
              reasoning(e.delta, e.output_index, e.content_index, 2);
              return;
            case 'response.completed':
              terminate(e.response, 'stop');
              return;
            case 'response.incomplete':
              terminate(e.response, e.response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length');
              return;
            case 'response.failed':
            case 'error':
              // The transport ends with this error right after; kept for sources that complete instead.
              done = true;
              failure = new ResponseStreamTracker().errorOf(e);
              return;
            default:
              return;
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
