import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk, ChatCompletionChunkToolCall, CompletionUsage } from '../lib/events/chat.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';

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

const INCOMPLETE: Readonly<Record<string, string>> = { length: 'max_output_tokens', content_filter: 'content_filter' };

/**
 * Turns a Chat Completions chunk stream into a well-formed Responses event stream, so every Responses
 * operator works on chat-only providers: `response.created`, `response.in_progress`, reasoning /
 * message / `function_call` items with their added, delta and done events, then `response.completed`
 * (or `response.incomplete` for `length` / `content_filter`) with the usage, when the chunks end.
 * Item ids are derived from the chunk id and `sequence_number` counts from 0. Tool-call fragments are
 * merged by `index`; a name resent on every fragment is not doubled.
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
      const itemStatus = (): string => (finish !== undefined && INCOMPLETE[finish] !== undefined ? 'incomplete' : 'completed');

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
      const onToolCall = (f: ChatCompletionChunkToolCall): void => {
        const fn = f.function;
        let c = calls.get(f.index);
        if (c === undefined) {
          closeReasoning();
          closeMessage();
          const oi = items.length;
          items.push(undefined);
          c = { oi, id: `fc_${id}_${oi}`, callId: f.id ?? `call_${id}_${f.index}`, name: fn?.name ?? '', args: '', open: true };
          calls.set(f.index, c);
          openCalls++;
          next({ type: 'response.output_item.added', output_index: oi, item: { id: c.id, type: 'function_call', status: 'in_progress', call_id: c.callId, name: c.name, arguments: '' } });
        } else if (fn?.name && fn.name !== c.name) {
          // A full name resent on every fragment replaces; a name streamed in pieces is appended.
          c.name = fn.name.startsWith(c.name) ? fn.name : c.name + fn.name;
        }
        const a = fn?.arguments;
        if (a && c.open) {
          c.args += a;
          next({ type: 'response.function_call_arguments.delta', item_id: c.id, output_index: c.oi, delta: a });
        }
      };

      return source.subscribe({
        next(chunk) {
          if (!started) {
            started = true;
            id = chunk.id;
            created = chunk.created;
            model = chunk.model;
            next({ type: 'response.created', response: response('in_progress', [], null, null) });
            next({ type: 'response.in_progress', response: response('in_progress', [], null, null) });
          }
          if (chunk.usage) usage = chunk.usage;
          const choices = chunk.choices;
          for (let i = 0; i < choices.length; i++) {
            const choice = choices[i]!;
            if (choice.index !== choiceIndex) continue;
            const d = choice.delta;
            if (d) {
              const r = d.reasoning_content ?? d.reasoning;
              if (typeof r === 'string' && r.length > 0) onReasoning(r);
              if (typeof d.content === 'string' && d.content.length > 0) {
                const { m, ci } = partOf('text');
                m.text!.text += d.content;
                next({ type: 'response.output_text.delta', item_id: m.id, output_index: m.oi, content_index: ci, delta: d.content, logprobs: [] });
              }
              if (typeof d.refusal === 'string' && d.refusal.length > 0) {
                const { m, p, ci } = partOf('refusal');
                p.text += d.refusal;
                next({ type: 'response.refusal.delta', item_id: m.id, output_index: m.oi, content_index: ci, delta: d.refusal });
              }
              if (d.annotations) {
                for (const a of d.annotations) {
                  const cite = a['url_citation'] as { start_index?: number; end_index?: number; url?: string; title?: string } | undefined;
                  if (a['type'] !== 'url_citation' || !cite) continue;
                  const { m, p, ci } = partOf('text');
                  const annotation = { type: 'url_citation', start_index: cite.start_index ?? 0, end_index: cite.end_index ?? 0, url: cite.url ?? '', title: cite.title ?? '' };
                  p.annotations.push(annotation);
                  next({
                    type: 'response.output_text.annotation.added', item_id: m.id, output_index: m.oi, content_index: ci,
                    annotation_index: p.annotations.length - 1, annotation,
                  });
                }
              }
              if (d.tool_calls) for (const f of d.tool_calls) onToolCall(f);
            }
            if (choice.finish_reason) {
              finish = choice.finish_reason;
              closeAll();
            }
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
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
            const reason = finish === undefined ? undefined : INCOMPLETE[finish];
            if (reason !== undefined) next({ type: 'response.incomplete', response: response('incomplete', output, usageOut, { reason }) });
            else next({ type: 'response.completed', response: response('completed', output, usageOut, null) });
          }
          subscriber.complete();
        },
      });
    });
}
