// `replay --to chat`: the Responses events as Chat Completions chunks, usage included.
import type { OperatorFunction } from 'rxjs';
import { toChatChunks, type ChatCompletionChunk, type ResponseStreamEvent } from '../index.js';

/**
 * `toChatChunks({ includeUsage: true })`. Custom tool calls come out as chat tool calls of `type: "custom"`
 * with `custom: { name, input }`, as a chat provider streams them (toChatChunks does that itself).
 */
export function toChatKeepingCustomTools(): OperatorFunction<ResponseStreamEvent, ChatCompletionChunk> {
  return toChatChunks({ includeUsage: true });
}
