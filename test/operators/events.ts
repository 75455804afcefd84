// Small builders of Responses stream events for operator tests (shapes as on the wire).
import type { ResponseStreamEvent } from '../../lib/events/responses';

type E = ResponseStreamEvent;
let seq = 0;
const s = (): number => seq++;

export const resp = (id = 'resp_1', status = 'in_progress', output: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  id, object: 'response', created_at: 1, status, model: 'm', output, usage: null, ...extra,
});

export const created = (id = 'resp_1'): E => ({ type: 'response.created', response: resp(id), sequence_number: s() }) as E;
export const inProgress = (id = 'resp_1'): E => ({ type: 'response.in_progress', response: resp(id), sequence_number: s() }) as E;
export const completed = (output: unknown[] = [], id = 'resp_1'): E =>
  ({ type: 'response.completed', response: resp(id, 'completed', output, { usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } }), sequence_number: s() }) as E;
export const incomplete = (output: unknown[] = [], id = 'resp_1'): E =>
  ({ type: 'response.incomplete', response: resp(id, 'incomplete', output, { incomplete_details: { reason: 'max_output_tokens' } }), sequence_number: s() }) as E;
export const failed = (output: unknown[] = [], id = 'resp_1'): E =>
  ({ type: 'response.failed', response: resp(id, 'failed', output, { error: { code: 'server_error', message: 'boom' } }), sequence_number: s() }) as E;

export const msg = (id: string, content: unknown[] = [], status = 'in_progress') => ({ id, type: 'message', role: 'assistant', status, content });
export const textPart = (text = '') => ({ type: 'output_text', text, annotations: [] });

export const itemAdded = (oi: number, item: unknown): E => ({ type: 'response.output_item.added', output_index: oi, item, sequence_number: s() }) as E;
export const itemDone = (oi: number, item: unknown): E => ({ type: 'response.output_item.done', output_index: oi, item, sequence_number: s() }) as E;
export const partAdded = (id: string, oi: number, ci: number, part: unknown = textPart()): E =>
  ({ type: 'response.content_part.added', item_id: id, output_index: oi, content_index: ci, part, sequence_number: s() }) as E;
export const partDone = (id: string, oi: number, ci: number, part: unknown): E =>
  ({ type: 'response.content_part.done', item_id: id, output_index: oi, content_index: ci, part, sequence_number: s() }) as E;
export const textDelta = (id: string, oi: number, ci: number, delta: string): E =>
  ({ type: 'response.output_text.delta', item_id: id, output_index: oi, content_index: ci, delta, logprobs: [], sequence_number: s() }) as E;
export const textDone = (id: string, oi: number, ci: number, text: string): E =>
  ({ type: 'response.output_text.done', item_id: id, output_index: oi, content_index: ci, text, logprobs: [], sequence_number: s() }) as E;
export const refusalDelta = (id: string, oi: number, ci: number, delta: string): E =>
  ({ type: 'response.refusal.delta', item_id: id, output_index: oi, content_index: ci, delta, sequence_number: s() }) as E;
export const refusalDone = (id: string, oi: number, ci: number, refusal: string): E =>
  ({ type: 'response.refusal.done', item_id: id, output_index: oi, content_index: ci, refusal, sequence_number: s() }) as E;
export const reasoningDelta = (id: string, oi: number, ci: number, delta: string): E =>
  ({ type: 'response.reasoning_text.delta', item_id: id, output_index: oi, content_index: ci, delta, sequence_number: s() }) as E;
export const summaryDelta = (id: string, oi: number, si: number, delta: string): E =>
  ({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index: oi, summary_index: si, delta, sequence_number: s() }) as E;
export const summaryDone = (id: string, oi: number, si: number, text: string): E =>
  ({ type: 'response.reasoning_summary_text.done', item_id: id, output_index: oi, summary_index: si, text, sequence_number: s() }) as E;

export const fc = (id: string, callId: string, name: string, args = '', status = 'in_progress') =>
  ({ id, type: 'function_call', call_id: callId, name, arguments: args, status });
export const argsDelta = (id: string, oi: number, delta: string): E =>
  ({ type: 'response.function_call_arguments.delta', item_id: id, output_index: oi, delta, sequence_number: s() }) as E;
export const argsDone = (id: string, oi: number, args: string, name?: string): E =>
  ({ type: 'response.function_call_arguments.done', item_id: id, output_index: oi, arguments: args, ...(name !== undefined && { name }), sequence_number: s() }) as E;
export const unknownEvent = (): E => ({ type: 'response.future_thing.happened', sequence_number: s() });
