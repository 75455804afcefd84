import type { Observable, OperatorFunction } from 'rxjs';
import { DecodeError, malformedJSON, ResponseStreamError, StreamInterruptedError } from '../errors.js';
import { describeFailure, type ValidateMode } from '../events/decode.js';
import { ChatCompletionChunk } from '../events/chat.js';
import type { SSELimits } from '../sse/scanner.js';
import { textOf, textOfChunks, type BodyEnd, type StreamSource } from '../sse/source.js';
import { decodeBody, isConnectionFailure, type BodyDecoder } from './body.js';
import { NOT_JSON, providerError, type ProviderErrorEvent } from './provider-error.js';

export interface ChatCompletionsSSEOptions extends SSELimits {
  /** `'strict'` (default) checks each chunk against the `chat.completion.chunk` codec; `'off'` skips it. */
  readonly validate?: ValidateMode;
  /**
   * `true` (default): a body that ends without `data: [DONE]` ends with `StreamInterruptedError`.
   * `false`: the end of the body completes the stream (for providers that omit `[DONE]`).
   */
  readonly requireDone?: boolean;
}

/** A parsed payload as a chunk; `index` (its position in the stream) stands in for a sequence number. */
export function decodeChunk(u: unknown, validate: ValidateMode, index: number): ChatCompletionChunk {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) throw new DecodeError('payload is not a JSON object', 'chat.completion.chunk', index);
  if (validate === 'strict') {
    const r = ChatCompletionChunk.validate(u, [{ key: '', type: ChatCompletionChunk, actual: u }]);
    if (r._tag === 'Left') {
      const { path, reason } = describeFailure(r.left);
      throw new DecodeError(reason, 'chat.completion.chunk', index, path);
    }
  }
  // No `choices` (audio usage chunks): an empty list, so the type holds whatever the provider left out.
  const o = u as { choices?: unknown };
  if (o.choices === undefined || o.choices === null) o.choices = [];
  return u as ChatCompletionChunk;
}

/**
 * Decodes a Chat Completions SSE body (`data:` lines ending with `data: [DONE]`) into chunks.
 * A provider's error (`{"error": …}`, also beside chunk fields, or an `event: error` message, whatever its
 * payload) ends the stream with a `ResponseStreamError` carrying its code, message and param.
 *
 * ```ts
 * fromChatCompletionsSSE(await fetch(url, init), { requireDone: false })   // a provider that omits [DONE]
 *   .subscribe((chunk) => console.log(chunk.choices[0]?.delta?.content));
 * ```
 */
export function fromChatCompletionsSSE(source: StreamSource, options: ChatCompletionsSSEOptions = {}): Observable<ChatCompletionChunk> {
  return chatFromText(textOf(source), options);
}

/**
 * The same decoder as an operator over body chunks (bytes or text); the source completing ends the body.
 *
 * ```ts
 * body$.pipe(decodeChatCompletionsSSE()).subscribe((chunk) => console.log(chunk.choices[0]?.finish_reason));
 * ```
 */
export function decodeChatCompletionsSSE(options: ChatCompletionsSSEOptions = {}): OperatorFunction<Uint8Array | string, ChatCompletionChunk> {
  return (chunks) => chatFromText(textOfChunks(chunks), options);
}

function chatFromText(text: Observable<string | BodyEnd>, options: ChatCompletionsSSEOptions): Observable<ChatCompletionChunk> {
  return decodeBody(text, options, () => chatDecoder(options));
}

function chatDecoder(options: ChatCompletionsSSEOptions): BodyDecoder<ChatCompletionChunk> {
  const validate = options.validate ?? 'strict';
  let lastId: string | undefined;
  let count = 0;
  const streamError = (e: ProviderErrorEvent, u: unknown): ResponseStreamError => {
    const id = typeof u === 'object' && u !== null ? (u as { id?: unknown }).id : undefined;
    return new ResponseStreamError('error', e.code, e.message, e.param, undefined, typeof id === 'string' && id !== '' ? id : lastId, e);
  };
  const interrupted = (reason: string) => new StreamInterruptedError(lastId, count > 0 ? count - 1 : undefined, reason);
  return {
    message(event, data, unterminated, out) {
      if (data === '[DONE]') return 'complete';
      let u: unknown;
      try {
        u = JSON.parse(data);
      } catch {
        if (unterminated) throw interrupted('the stream ended inside a chunk');
        u = NOT_JSON;
      }
      // A provider's error, in any of its shapes (also beside chunk fields, as OpenRouter sends it).
      const report = providerError(event, u, data);
      if (report !== undefined) return streamError(report, u);
      if (u === NOT_JSON) throw malformedJSON(data, 'chat.completion.chunk', count);
      const chunk = decodeChunk(u, validate, count);
      lastId = chunk.id;
      count++;
      out.next(chunk);
      return undefined;
    },
    end: (complete) =>
      options.requireDone === false && complete
        ? 'complete'
        : interrupted(complete ? 'the stream ended without data: [DONE]' : 'the stream ended inside a UTF-8 character'),
    broken: (e) => (isConnectionFailure(e) ? interrupted('the connection broke') : (e as Error)),
  };
}
