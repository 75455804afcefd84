// Chat request bodies shared by the chatRequestToResponses specs.
import { chatRequestToResponses, type ResponsesCreateRequest } from '../../gateway/chat-request';

export const USER_HI = { role: 'user', content: 'hi' };
export const ITEM_HI = { type: 'message', role: 'user', content: 'hi' };
export const BASE = { model: 'gpt-test', messages: [USER_HI] };
export const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
/** A user message and an assistant message calling `f` with id `id`. */
export const withCall = (id = 'call_1') => [USER_HI, { role: 'assistant', content: null, tool_calls: [call(id, 'f', '{}')] }];

/** The mapping of `body`, or a thrown error showing the refusal. */
export function mapped(body: Record<string, unknown>): { request: ResponsesCreateRequest; includeUsage: boolean } {
  const r = chatRequestToResponses(body);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.error.body)}`);
  return r;
}
