// Builders for Responses events and whole transcripts, shared by the chat marble and integration tests.
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import type { ChatCompletionChunk } from '../../lib/events/chat.js';

export const RESPONSE_ID = 'resp_chat01';
export const CREATED_AT = 1758300000;
export const MODEL = 'gpt-test';

export interface UsageSpec {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: { cached_tokens: number };
  output_tokens_details?: { reasoning_tokens: number };
}

export function response(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: RESPONSE_ID, object: 'response', created_at: CREATED_AT, status: 'in_progress', model: MODEL,
    output: [], usage: null, error: null, incomplete_details: null, previous_response_id: null, ...over,
  };
}

const e = (o: Record<string, unknown> & { type: string }): ResponseStreamEvent => o as ResponseStreamEvent;

/** Single events, without sequence numbers (the operators do not need them). */
export const ev = {
  created: (over: Record<string, unknown> = {}) => e({ type: 'response.created', response: response(over) }),
  inProgress: () => e({ type: 'response.in_progress', response: response() }),
  queued: () => e({ type: 'response.queued', response: response({ status: 'queued' }) }),
  completed: (over: Record<string, unknown> = {}) => e({ type: 'response.completed', response: response({ status: 'completed', ...over }) }),
  incomplete: (reason: string | null, over: Record<string, unknown> = {}) =>
    e({ type: 'response.incomplete', response: response({ status: 'incomplete', incomplete_details: reason === null ? null : { reason }, ...over }) }),
  failed: () => e({ type: 'response.failed', response: response({ status: 'failed', error: { code: 'server_error', message: 'boom' } }) }),
  error: () => e({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down', param: null }),
  messageAdded: (outputIndex = 0, id = 'msg_1') =>
    e({ type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
  partAdded: (outputIndex = 0, id = 'msg_1') =>
    e({ type: 'response.content_part.added', item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
  text: (delta: string, outputIndex = 0, contentIndex = 0, id = 'msg_1') =>
    e({ type: 'response.output_text.delta', item_id: id, output_index: outputIndex, content_index: contentIndex, delta, logprobs: [] }),
  textDone: (text: string, outputIndex = 0, id = 'msg_1') =>
    e({ type: 'response.output_text.done', item_id: id, output_index: outputIndex, content_index: 0, text, logprobs: [] }),
  refusal: (delta: string, outputIndex = 0, id = 'msg_1') =>
    e({ type: 'response.refusal.delta', item_id: id, output_index: outputIndex, content_index: 0, delta }),
  annotation: (annotation: Record<string, unknown>, outputIndex = 0, contentIndex = 0) =>
    e({ type: 'response.output_text.annotation.added', item_id: 'msg_1', output_index: outputIndex, content_index: contentIndex, annotation_index: 0, annotation }),
  callAdded: (outputIndex: number, callId: string, name: string, args = '') =>
    e({ type: 'response.output_item.added', output_index: outputIndex, item: { id: `fc_${callId}`, type: 'function_call', status: 'in_progress', call_id: callId, name, arguments: args } }),
  args: (outputIndex: number, delta: string, callId = '?') =>
    e({ type: 'response.function_call_arguments.delta', item_id: `fc_${callId}`, output_index: outputIndex, delta }),
  argsDone: (outputIndex: number, args: string, callId = '?', name?: string) =>
    e({ type: 'response.function_call_arguments.done', item_id: `fc_${callId}`, output_index: outputIndex, arguments: args, ...(name ? { name } : {}) }),
  callDone: (outputIndex: number, callId: string, name: string, args: string) => e({ type: 'response.output_item.done', output_index: outputIndex, item: call(callId, name, args) }),
  customAdded: (outputIndex: number, callId: string, name: string) =>
    e({ type: 'response.output_item.added', output_index: outputIndex, item: { ...customCall(callId, name, ''), status: 'in_progress' } }),
  input: (outputIndex: number, delta: string, callId = '?') =>
    e({ type: 'response.custom_tool_call_input.delta', item_id: `ctc_${callId}`, output_index: outputIndex, delta }),
  inputDone: (outputIndex: number, input: string, callId = '?') =>
    e({ type: 'response.custom_tool_call_input.done', item_id: `ctc_${callId}`, output_index: outputIndex, input }),
  customDone: (outputIndex: number, callId: string, name: string, input: string) =>
    e({ type: 'response.output_item.done', output_index: outputIndex, item: customCall(callId, name, input) }),
  summary: (delta: string, outputIndex = 0, summaryIndex = 0) =>
    e({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: outputIndex, summary_index: summaryIndex, delta }),
  reasoningText: (delta: string, outputIndex = 0, contentIndex = 0) =>
    e({ type: 'response.reasoning_text.delta', item_id: 'rs_1', output_index: outputIndex, content_index: contentIndex, delta }),
};

export function call(callId: string, name: string, args: string): Record<string, unknown> {
  return { id: `fc_${callId}`, type: 'function_call', status: 'completed', call_id: callId, name, arguments: args };
}

export function customCall(callId: string, name: string, input: string): Record<string, unknown> {
  return { id: `ctc_${callId}`, type: 'custom_tool_call', status: 'completed', call_id: callId, name, input };
}

export interface TranscriptSpec {
  reasoning?: { kind: 'summary' | 'text'; parts: string[][] };
  text?: string[];
  refusal?: string[];
  calls?: Array<{ callId: string; name: string; args: string[] }>;
  status?: 'completed' | 'incomplete';
  reason?: string;
  usage?: UsageSpec;
}

/** A well-formed Responses transcript (with sequence numbers), in OpenAI's order. */
export function transcript(spec: TranscriptSpec): ResponseStreamEvent[] {
  const out: Array<Record<string, unknown> & { type: string }> = [];
  const push = (o: Record<string, unknown> & { type: string }) => out.push({ ...o, sequence_number: out.length });
  const items: Array<Record<string, unknown>> = [];
  push({ type: 'response.created', response: response() });
  push({ type: 'response.in_progress', response: response() });
  if (spec.reasoning) {
    const oi = items.length;
    const id = 'rs_t1';
    push({ type: 'response.output_item.added', output_index: oi, item: { id, type: 'reasoning', summary: [] } });
    const texts = spec.reasoning.parts.map((p) => p.join(''));
    spec.reasoning.parts.forEach((deltas, i) => {
      const text = texts[i]!;
      if (spec.reasoning!.kind === 'summary') {
        push({ type: 'response.reasoning_summary_part.added', item_id: id, output_index: oi, summary_index: i, part: { type: 'summary_text', text: '' } });
        for (const d of deltas) push({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index: oi, summary_index: i, delta: d });
        push({ type: 'response.reasoning_summary_text.done', item_id: id, output_index: oi, summary_index: i, text });
        push({ type: 'response.reasoning_summary_part.done', item_id: id, output_index: oi, summary_index: i, part: { type: 'summary_text', text } });
      } else {
        push({ type: 'response.content_part.added', item_id: id, output_index: oi, content_index: i, part: { type: 'reasoning_text', text: '' } });
        for (const d of deltas) push({ type: 'response.reasoning_text.delta', item_id: id, output_index: oi, content_index: i, delta: d });
        push({ type: 'response.reasoning_text.done', item_id: id, output_index: oi, content_index: i, text });
        push({ type: 'response.content_part.done', item_id: id, output_index: oi, content_index: i, part: { type: 'reasoning_text', text } });
      }
    });
    const item = spec.reasoning.kind === 'summary'
      ? { id, type: 'reasoning', summary: texts.map((text) => ({ type: 'summary_text', text })) }
      : { id, type: 'reasoning', summary: [], content: texts.map((text) => ({ type: 'reasoning_text', text })) };
    push({ type: 'response.output_item.done', output_index: oi, item });
    items.push(item);
  }
  if (spec.text || spec.refusal) {
    const oi = items.length;
    const id = 'msg_t1';
    const isRefusal = spec.refusal !== undefined;
    const deltas = spec.refusal ?? spec.text ?? [];
    const full = deltas.join('');
    const part = isRefusal ? { type: 'refusal', refusal: full } : { type: 'output_text', text: full, annotations: [] };
    push({ type: 'response.output_item.added', output_index: oi, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    push({ type: 'response.content_part.added', item_id: id, output_index: oi, content_index: 0, part: isRefusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [] } });
    for (const d of deltas) {
      push({ type: isRefusal ? 'response.refusal.delta' : 'response.output_text.delta', item_id: id, output_index: oi, content_index: 0, delta: d, ...(isRefusal ? {} : { logprobs: [] }) });
    }
    push(isRefusal
      ? { type: 'response.refusal.done', item_id: id, output_index: oi, content_index: 0, refusal: full }
      : { type: 'response.output_text.done', item_id: id, output_index: oi, content_index: 0, text: full, logprobs: [] });
    push({ type: 'response.content_part.done', item_id: id, output_index: oi, content_index: 0, part });
    const item = { id, type: 'message', status: spec.status === 'incomplete' ? 'incomplete' : 'completed', role: 'assistant', content: [part] };
    push({ type: 'response.output_item.done', output_index: oi, item });
    items.push(item);
  }
  for (const c of spec.calls ?? []) {
    const oi = items.length;
    const args = c.args.join('');
    push({ type: 'response.output_item.added', output_index: oi, item: { ...call(c.callId, c.name, ''), status: 'in_progress' } });
    for (const d of c.args) push({ type: 'response.function_call_arguments.delta', item_id: `fc_${c.callId}`, output_index: oi, delta: d });
    push({ type: 'response.function_call_arguments.done', item_id: `fc_${c.callId}`, output_index: oi, arguments: args, name: c.name });
    const item = call(c.callId, c.name, args);
    push({ type: 'response.output_item.done', output_index: oi, item });
    items.push(item);
  }
  const status = spec.status ?? 'completed';
  push({
    type: `response.${status}`,
    response: response({ status, output: items, usage: spec.usage ?? null, incomplete_details: status === 'incomplete' ? { reason: spec.reason ?? 'max_output_tokens' } : null }),
  });
  return out as ResponseStreamEvent[];
}

/** Plain Responses SSE text for a list of events (written here so the tests do not rely on the encoder). */
export function sseOf(events: ReadonlyArray<{ type: string }>): string {
  return events.map((x) => `event: ${x.type}\ndata: ${JSON.stringify(x)}\n\n`).join('');
}

export const USAGE: UsageSpec = {
  input_tokens: 21, output_tokens: 34, total_tokens: 55,
  input_tokens_details: { cached_tokens: 5 }, output_tokens_details: { reasoning_tokens: 13 },
};

export const CHAT_ID = 'chatcmpl-t1';

/** A chat chunk with one choice (index 0) carrying `delta`; `null` delta leaves the key out. */
export function chunk(delta: Record<string, unknown> | null, finish: string | null = null, index = 0): ChatCompletionChunk {
  const choice: Record<string, unknown> = { index, logprobs: null, finish_reason: finish };
  if (delta !== null) choice['delta'] = delta;
  return { id: CHAT_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, choices: [choice] } as unknown as ChatCompletionChunk;
}

export function usageChunk(usage: Record<string, unknown>): ChatCompletionChunk {
  return { id: CHAT_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, choices: [], usage } as unknown as ChatCompletionChunk;
}

export const CHAT_USAGE = {
  prompt_tokens: 21, completion_tokens: 34, total_tokens: 55,
  prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 13 },
};
