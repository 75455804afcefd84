import type { Observable } from 'rxjs';
import { fromChatCompletionsSSE, type ChatCompletionsSSEOptions } from '../decode/chat-sse.js';
import { fromResponsesSSE, type ResponsesSSEOptions } from '../decode/responses-sse.js';
import type { ChatCompletionChunk } from '../events/chat.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { ClientConfig } from './config.js';
import { streamOf } from './request.js';

export interface ResponsesStreamConfig extends ClientConfig, ResponsesSSEOptions {}
export interface ChatStreamConfig extends ClientConfig, ChatCompletionsSSEOptions {}

/** A `POST /responses` body; any field of the API is passed through. */
export type ResponseCreateParams = { readonly model?: string; readonly input?: unknown; readonly [key: string]: unknown };
/** A `POST /chat/completions` body. */
export type ChatCompletionCreateParams = { readonly model?: string; readonly messages: unknown[]; readonly [key: string]: unknown };

/**
 * `POST {baseURL}/responses` with `stream: true`, as a cold Observable of typed events. Each subscription
 * sends its own request; unsubscribing aborts it.
 */
export function streamResponse(body: ResponseCreateParams, config?: ResponsesStreamConfig): Observable<ResponseStreamEvent> {
  return streamOf('POST', '/responses', { ...body, stream: true }, config, (res) => fromResponsesSSE(res, config));
}

/**
 * `GET {baseURL}/responses/{id}?stream=true&starting_after=N`: the events of a (background) response
 * after sequence number N, without the ones before.
 */
export function retrieveResponseStream(
  responseId: string,
  options: { readonly startingAfter?: number } = {},
  config?: ResponsesStreamConfig,
): Observable<ResponseStreamEvent> {
  const after = options.startingAfter;
  const query = after === undefined ? '?stream=true' : `?stream=true&starting_after=${after}`;
  return streamOf('GET', `/responses/${encodeURIComponent(responseId)}${query}`, undefined, config, (res) =>
    fromResponsesSSE(res, { ...config, startingAfter: after ?? config?.startingAfter }),
  );
}

/** `POST {baseURL}/chat/completions` with `stream: true`, as a cold Observable of chunks. */
export function streamChatCompletion(body: ChatCompletionCreateParams, config?: ChatStreamConfig): Observable<ChatCompletionChunk> {
  return streamOf('POST', '/chat/completions', { ...body, stream: true }, config, (res) => fromChatCompletionsSSE(res, config));
}
