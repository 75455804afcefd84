/**
 * Streaming transports in, typed events through, operators out: everything the package offers.
 *
 * - Transports: {@link streamResponse}, {@link retrieveResponseStream}, {@link streamChatCompletion},
 *   {@link connectResponsesSocket} / {@link streamResponseOverSocket} (WebSocket mode), and the decoders
 *   {@link fromResponsesSSE} / {@link fromChatCompletionsSSE} for a body you already have.
 * - Events: one type per wire `type` (e.g. {@link ResponseTextDeltaEvent} for `response.output_text.delta`),
 *   united in {@link ResponseStreamEvent}; each has an io-ts codec of the same name.
 * - Operators: the same as `openai-rx/operators`.
 * - Errors: {@link ResponseStreamError}, {@link StreamInterruptedError}, {@link HTTPError}, {@link DecodeError}…
 *
 * ```ts
 * import { streamResponse } from 'openai-rx';
 * import { ofType } from 'openai-rx/operators';
 * import { map } from 'rxjs';
 *
 * streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' })
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 *   .subscribe((text) => process.stdout.write(text));
 * ```
 *
 * @packageDocumentation
 * @module openai-rx
 */
export * from './lib/errors.js';
export * from './lib/events/items.js';
export * from './lib/events/response.js';
export * from './lib/events/responses.js';
export * from './lib/events/websocket.js';
export * from './lib/events/chat.js';
export { isKnownEvent, isEventType, RESPONSE_STREAM_EVENT_TYPES } from './lib/events/guards.js';
export type { ValidateMode } from './lib/events/decode.js';
export { createSSEScanner, DEFAULT_MAX_EVENT_SIZE, DEFAULT_MAX_LINE_LENGTH, type SSELimits, type SSEMessageHandler, type SSEScanner } from './lib/sse/scanner.js';
export type { StreamSource } from './lib/sse/source.js';
export { fromResponsesSSE, decodeResponsesSSE, type ResponsesSSEOptions } from './lib/decode/responses-sse.js';
export { rawDataOf } from './lib/decode/raw-data.js';
export { fromChatCompletionsSSE, decodeChatCompletionsSSE, decodeChunk, type ChatCompletionsSSEOptions } from './lib/decode/chat-sse.js';
export { ResponseStreamTracker, type SequenceMode, type SequenceOptions } from './lib/decode/tracker.js';
export { DEFAULT_BASE_URL, type ClientConfig } from './lib/http/config.js';
export {
  streamResponse, retrieveResponseStream, streamChatCompletion,
  type ResponsesStreamConfig, type ChatStreamConfig, type ResponseCreateParams, type ChatCompletionCreateParams,
} from './lib/http/transports.js';
export * from './operators/index.js';
export * from './lib/ws/index.js';
export * from './lib/log/index.js';
export * from './agent/index.js';
