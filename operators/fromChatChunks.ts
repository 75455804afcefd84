import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk, CompletionUsage } from '../lib/events/chat.js';
import { DecodeError } from '../lib/errors.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { chunkError, isRecord, type Rec } from './internal/chat-fields.js';

export interface FromChatChunksOptions {
  /** The choice to follow when the request asked for several (`n > 1`). Default `0`. */
  readonly choiceIndex?: number;
}

type Json = Record<string, unknown>;

interface Part {
  readonly kind: 'text' | 'refusal';
  text: string;
  annotations: Json[];
}
interface MessageState { readonly oi: number; readonly id: string; readonly parts: Part[]; text: Part | undefined; refusal: Part | undefined }
interface ReasoningState { readonly oi: number; readonly id: string; text: string }
interface CallState { readonly oi: number; readonly id: string; readonly callId: string; name: string; args: string; open: boolean }

// A Map, so that a finish_reason such as "constructor" finds nothing.
const INCOMPLETE: ReadonlyMap<string, string> = new Map([['length', 'max_output_tokens'], ['content_filter', 'content_filter']]);

/** The calls map key of a deprecated `delta.function_call`: no JSON number is NaN, so no tool call index collides. */
const LEGACY_CALL = Number.NaN;

/** Absent, `null`, or a string (what a chat field holding text may be). */
const optString = (v: unknown): v is string | null | undefined => v === undefined || v === null || typeof v === 'string';

/**
 * Turns a Chat Completions chunk stream into a well-formed Responses event stream, so every Responses
 * operator works on chat-only providers: `response.created`, `response.in_progress`, reasoning /
 * message / `function_call` items with their added, delta and done events, then `response.completed`
 * (or `response.incomplete` for `length` / `content_filter`) with the usage, when the chunks end.
 * Item ids are derived from the chunk id and `sequence_number` counts from 0. Tool-call fragments are
 * merged by `index`; a name resent on every fragment is not doubled. A deprecated `delta.function_call`
 * becomes a `function_call` item too (call id `call_<chunk id>_function_call`).
 *
 * Chunks are read defensively (they may come from `validate: 'off'`): `null` counts as absent, chunk
 * metadata of the wrong type falls back to a default, and a content field of the wrong type (`choices`,
 * `delta`, text, `tool_calls`, a tool call `index`) ends the stream with a `DecodeError` naming the
 * chunk's position and the field path.
 *
 * ```
 * --c1(role)--c2("Hi")--c3(stop)--u(usage)--|
 *   fromChatChunks()
 * --(ab)------(cdef)----(ghi)--------------(j|)
 *   a created, b in_progress, c item.added, d part.added, e text.delta, g text.done … j completed
 * ```
 *
 * ```ts
 * streamChatCompletion(body, config).pipe(fromChatChunks(), ofType('response.output_text.delta'))
 * ```
 */
export function fromChatChunks(options: FromChatChunksOptions = {}): OperatorFunction<ChatCompletionChunk, ResponseStreamEvent> {
  const choiceIndex = options.choiceIndex ?? 0;
  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      let seq = 0;
      let started = false;
      let id = '';
      let created = 0;
      let model = '';
      let finish: string | undefined;
      let usage: CompletionUsage | undefined;
      let n = 0;
      let failed = false;
      const items: Array<Json | undefined> = [];
      let message: MessageState | undefined;
      let reasoning: ReasoningState | undefined;
      const calls = new Map<number, CallState>();
      let openCalls = 0;

      const next = (e: Json & { type: string }): void => {
        e['sequence_number'] = seq++;
        subscriber.next(e as ResponseStreamEvent);
      };
      const response = (status: string, output: Json[], usageOut: Json | null, incomplete: Json | null): Json => ({
        id, object: 'response', created_at: created, status, model, output, usage: usageOut, error: null, incomplete_details: incomplete, previous_response_id: null,
      });
      const itemStatus = (): string => (finish !== undefined && INCOMPLETE.has(finish) ? 'incomplete' : 'completed');

      const closeReasoning = (): void => {
        const r = reasoning;
        if (r === undefined) return;
        reasoning = undefined;
        const part = { type: 'reasoning_text', text: r.text };
        next({ type: 'response.reasoning_text.done', item_id: r.id, output_index: r.oi, content_index: 0, text: r.text });
        next({ type: 'response.content_part.done', item_id: r.id, output_index: r.oi, content_index: 0, part });
        const item = { id: r.id, type: 'reasoning', summary: [], content: [part], status: itemStatus() };
        items[r.oi] = item;
        next({ type: 'response.output_item.done', output_index: r.oi, item });
      };
      const closeMessage = (): void => {
        const m = message;
        if (m === undefined) return;
        message = undefined;
        const content: Json[] = [];
        for (let ci = 0; ci < m.parts.length; ci++) {
          const p = m.parts[ci]!;
          let part: Json;
          if (p.kind === 'text') {
            part = { type: 'output_text', text: p.text, annotations: p.annotations, logprobs: [] };
            next({ type: 'response.output_text.done', item_id: m.id, output_index: m.oi, content_index: ci, text: p.text, logprobs: [] });
          } else {
            part = { type: 'refusal', refusal: p.text };
            next({ type: 'response.refusal.done', item_id: m.id, output_index: m.oi, content_index: ci, refusal: p.text });
          }
          next({ type: 'response.content_part.done', item_id: m.id, output_index: m.oi, content_index: ci, part });
          content.push(part);
        }
        const item = { id: m.id, type: 'message', status: itemStatus(), role: 'assistant', content };
        items[m.oi] = item;
        next({ type: 'response.output_item.done', output_index: m.oi, item });
      };
      const closeCall = (c: CallState): void => {
        c.open = false;
        openCalls--;
        next({ type: 'response.function_call_arguments.done', item_id: c.id, output_index: c.oi, arguments: c.args, name: c.name });
        const item = { id: c.id, type: 'function_call', status: itemStatus(), call_id: c.callId, name: c.name, arguments: c.args };
        items[c.oi] = item;
        next({ type: 'response.output_item.done', output_index: c.oi, item });
      };
      /** Closes every open item in output order. */
      const closeAll = (): void => {
        const open: Array<{ oi: number; close: () => void }> = [];
        if (reasoning !== undefined) open.push({ oi: reasoning.oi, close: closeReasoning });
        if (message !== undefined) open.push({ oi: message.oi, close: closeMessage });
        if (openCalls > 0) for (const c of calls.values()) if (c.open) open.push({ oi: c.oi, close: () => closeCall(c) });
        open.sort((a, b) => a.oi - b.oi);
        for (const o of open) o.close();
      };

      const openMessage = (): MessageState => {
        closeReasoning();
        const oi = items.length;
        items.push(undefined);
        const m: MessageState = { oi, id: `msg_${id}_${oi}`, parts: [], text: undefined, refusal: undefined };
        message = m;
        next({ type: 'response.output_item.added', output_index: oi, item: { id: m.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
        return m;
      };
      const partOf = (kind: 'text' | 'refusal'): { m: MessageState; p: Part; ci: number } => {
        const m = message ?? openMessage();
        let p = kind === 'text' ? m.text : m.refusal;
        if (p === undefined) {
          p = { kind, text: '', annotations: [] };
          if (kind === 'text') m.text = p;
          else m.refusal = p;
          m.parts.push(p);
          next({
            type: 'response.content_part.added', item_id: m.id, output_index: m.oi, content_index: m.parts.length - 1,
            part: kind === 'text' ? { type: 'output_text', text: '', annotations: [], logprobs: [] } : { type: 'refusal', refusal: '' },
          });
        }
        return { m, p, ci: m.parts.indexOf(p) };
      };
      const onReasoning = (delta: string): void => {
        let r = reasoning;
        if (r === undefined) {
          closeMessage();
          const oi = items.length;
          items.push(undefined);
          r = { oi, id: `rs_${id}_${oi}`, text: '' };
          reasoning = r;
          next({ type: 'response.output_item.added', output_index: oi, item: { id: r.id, type: 'reasoning', summary: [], status: 'in_progress' } });
          next({ type: 'response.content_part.added', item_id: r.id, output_index: oi, content_index: 0, part: { type: 'reasoning_text', text: '' } });
        }
        r.text += delta;
        next({ type: 'response.reasoning_text.delta', item_id: r.id, output_index: r.oi, content_index: 0, delta });
      };
      /** One tool-call fragment, checked field by field (`path` names it in a DecodeError). */
      const onToolCall = (f: unknown, path: () => string): void => {
        if (!isRecord(f)) throw chunkError(n, path(), 'not an object');
        const index = f['index'];
        // Any number is only a Map key here: no prototype reached, no cost growing with it.
        if (typeof index !== 'number') throw chunkError(n, `${path()}.index`, 'not a number');
        const callId = f['id'];
        if (!optString(callId)) throw chunkError(n, `${path()}.id`, 'not a string');
        onFunction(index, callId, f['function'], () => `${path()}.function`);
      };
      /**
       * The function part of a call fragment, or a deprecated `delta.function_call` (the `functions` API, which
       * some compatible providers still stream): one call per choice, under its own key, with no id of its own.
       */
      const onFunction = (index: number, callId: string | null | undefined, fn: unknown, path: () => string): void => {
        if (fn !== undefined && fn !== null && !isRecord(fn)) throw chunkError(n, path(), 'not an object');
        const name = fn?.['name'];
        const a = fn?.['arguments'];
        if (!optString(name)) throw chunkError(n, `${path()}.name`, 'not a string');
        if (!optString(a)) throw chunkError(n, `${path()}.arguments`, 'not a string');
        let c = calls.get(index);
        if (c === undefined) {
          closeReasoning();
          closeMessage();
          const oi = items.length;
          items.push(undefined);
          c = { oi, id: `fc_${id}_${oi}`, callId: callId ?? `call_${id}_${index}`, name: name ?? '', args: '', open: true };
          calls.set(index, c);
          openCalls++;
          next({ type: 'response.output_item.added', output_index: oi, item: { id: c.id, type: 'function_call', status: 'in_progress', call_id: c.callId, name: c.name, arguments: '' } });
        } else if (name && name !== c.name) {
          // A full name resent on every fragment replaces; a name streamed in pieces is appended.
          c.name = name.startsWith(c.name) ? name : c.name + name;
        }
        if (a && c.open) {
          c.args += a;
          next({ type: 'response.function_call_arguments.delta', item_id: c.id, output_index: c.oi, delta: a });
        }
      };
      const usageOf = (u: Rec): CompletionUsage => {
        const count = (key: string): number => {
          const v = u[key];
          if (typeof v !== 'number') throw chunkError(n, `usage.${key}`, 'not a number');
          return v;
        };
        const detail = (key: string, field: string): number => {
          const d = u[key];
          const v = isRecord(d) ? d[field] : undefined;
          if (v === undefined || v === null) return 0;
          if (typeof v !== 'number') throw chunkError(n, `usage.${key}.${field}`, 'not a number');
          return v;
        };
        return {
          prompt_tokens: count('prompt_tokens'), completion_tokens: count('completion_tokens'), total_tokens: count('total_tokens'),
          prompt_tokens_details: { cached_tokens: detail('prompt_tokens_details', 'cached_tokens') },
          completion_tokens_details: { reasoning_tokens: detail('completion_tokens_details', 'reasoning_tokens') },
        };
      };
      const onChoice = (choice: Rec, i: number): void => {
        const d = choice['delta'];
        if (d !== undefined && d !== null) {
          if (!isRecord(d)) throw chunkError(n, `choices[${i}].delta`, 'not an object');
          const r = d['reasoning_content'] ?? d['reasoning'];
          if (!optString(r)) throw chunkError(n, `choices[${i}].delta.reasoning_content`, 'not a string');
          if (r) onReasoning(r);
          const content = d['content'];
          if (!optString(content)) throw chunkError(n, `choices[${i}].delta.content`, 'not a string');
          if (content) {
            const { m, p, ci } = partOf('text');
            p.text += content;
            next({ type: 'response.output_text.delta', item_id: m.id, output_index: m.oi, content_index: ci, delta: content, logprobs: [] });
          }
          const refusal = d['refusal'];
          if (!optString(refusal)) throw chunkError(n, `choices[${i}].delta.refusal`, 'not a string');
          if (refusal) {
            const { m, p, ci } = partOf('refusal');
            p.text += refusal;
            next({ type: 'response.refusal.delta', item_id: m.id, output_index: m.oi, content_index: ci, delta: refusal });
          }
          const annotations = d['annotations'];
          if (annotations !== undefined && annotations !== null) {
            if (!Array.isArray(annotations)) throw chunkError(n, `choices[${i}].delta.annotations`, 'not an array');
            for (const a of annotations as unknown[]) {
              // Only url citations have a Responses equivalent: anything else is skipped.
              const cite = isRecord(a) && a['type'] === 'url_citation' ? a['url_citation'] : undefined;
              if (!isRecord(cite)) continue;
              const at = (k: string): number => (typeof cite[k] === 'number' ? (cite[k] as number) : 0);
              const text = (k: string): string => (typeof cite[k] === 'string' ? (cite[k] as string) : '');
              const { m, p, ci } = partOf('text');
              const annotation = { type: 'url_citation', start_index: at('start_index'), end_index: at('end_index'), url: text('url'), title: text('title') };
              p.annotations.push(annotation);
              next({
                type: 'response.output_text.annotation.added', item_id: m.id, output_index: m.oi, content_index: ci,
                annotation_index: p.annotations.length - 1, annotation,
              });
            }
          }
          const legacy = d['function_call'];
          if (legacy !== undefined && legacy !== null) onFunction(LEGACY_CALL, `call_${id}_function_call`, legacy, () => `choices[${i}].delta.function_call`);
          const toolCalls = d['tool_calls'];
          if (toolCalls !== undefined && toolCalls !== null) {
            if (!Array.isArray(toolCalls)) throw chunkError(n, `choices[${i}].delta.tool_calls`, 'not an array');
            for (let j = 0; j < toolCalls.length; j++) onToolCall(toolCalls[j], () => `choices[${i}].delta.tool_calls[${j}]`);
          }
        }
        const f = choice['finish_reason'];
        if (!optString(f)) throw chunkError(n, `choices[${i}].finish_reason`, 'not a string');
        if (f) {
          finish = f;
          closeAll();
        }
      };
      const onChunk = (chunk: unknown): void => {
        if (!isRecord(chunk)) throw chunkError(n, '', 'the chunk is not an object');
        if (!started) {
          started = true;
          // Metadata: of the wrong type, it falls back to a default.
          const cid = chunk['id'];
          const cc = chunk['created'];
          const cm = chunk['model'];
          id = typeof cid === 'string' ? cid : '';
          created = typeof cc === 'number' ? cc : 0;
          model = typeof cm === 'string' ? cm : '';
          next({ type: 'response.created', response: response('in_progress', [], null, null) });
          next({ type: 'response.in_progress', response: response('in_progress', [], null, null) });
        }
        const u = chunk['usage'];
        if (isRecord(u)) usage = usageOf(u);
        const choices = chunk['choices'];
        if (choices === undefined || choices === null) return;
        if (!Array.isArray(choices)) throw chunkError(n, 'choices', 'not an array');
        for (let i = 0; i < choices.length; i++) {
          const choice: unknown = choices[i];
          if (!isRecord(choice)) throw chunkError(n, `choices[${i}]`, 'not an object');
          if (choice['index'] === choiceIndex) onChoice(choice, i);
        }
      };

      return source.subscribe({
        next(chunk) {
          if (failed) return;
          try {
            onChunk(chunk);
            n++;
          } catch (err) {
            // Only the field checks throw here: a malformed chunk ends the stream with its DecodeError.
            if (!(err instanceof DecodeError)) throw err;
            failed = true;
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          if (failed) return;
          if (started) {
            closeAll();
            const u = usage;
            const usageOut = u
              ? {
                  input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, total_tokens: u.total_tokens,
                  input_tokens_details: { cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 },
                  output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
                }
              : null;
            const output = items.filter((x): x is Json => x !== undefined);
            const reason = finish === undefined ? undefined : INCOMPLETE.get(finish);
            if (reason !== undefined) next({ type: 'response.incomplete', response: response('incomplete', output, usageOut, { reason }) });
            else next({ type: 'response.completed', response: response('completed', output, usageOut, null) });
          }
          subscriber.complete();
        },
      });
    });
}
