/**
 * Streaming transports in, typed events through, operators out: what an application calls.
 *
 * - Transports: {@link streamResponse}, {@link retrieveResponseStream}, {@link streamChatCompletion},
 *   {@link connectResponsesSocket} / {@link streamResponseOverSocket} (WebSocket mode), and the decoders
 *   {@link fromResponsesSSE} / {@link fromChatCompletionsSSE} for a body you already have.
 * - Events: one type per wire `type` (e.g. {@link ResponseTextDeltaEvent} for `response.output_text.delta`),
 *   united in {@link ResponseStreamEvent}, told apart with {@link isEventType}; the io-ts codec of each, of the
 *   same name, is in `openai-rx/codecs`.
 * - Operators: the same as `openai-rx/operators`.
 * - The durable event log ({@link memoryEventLog}, {@link redisEventLog}, {@link fromEventLog}, {@link persistTo})
 *   and the agent loop ({@link runAgent}, {@link defineTool}).
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
// Every name is listed (test/package/exports.spec.ts pins the lists); the operators are those of openai-rx/operators.

// Transports and decoders
export {
  streamResponse, retrieveResponseStream, streamChatCompletion,
  type ResponsesStreamConfig, type ChatStreamConfig, type ResponseCreateParams, type ResponseTextConfig, type ChatCompletionCreateParams,
} from './lib/http/transports.js';
export type { ClientConfig } from './lib/http/config.js';
export { fromResponsesSSE, decodeResponsesSSE, type ResponsesSSEOptions } from './lib/decode/responses-sse.js';
export { fromChatCompletionsSSE, decodeChatCompletionsSSE, type ChatCompletionsSSEOptions } from './lib/decode/chat-sse.js';
export { rawDataOf } from './lib/decode/raw-data.js';
export type { SequenceMode, SequenceOptions } from './lib/decode/tracker.js';
export type { SSELimits } from './lib/sse/scanner.js';
export type { StreamSource } from './lib/sse/source.js';
export type { ValidateMode } from './lib/events/decode.js';

// The warm-up objects kept between streams, for speed (docs/performance.md)
export { configure, type ConfigureOptions } from './lib/warmup.js';

// WebSocket mode
export {
  connectResponsesSocket, streamResponseOverSocket,
  WebSocketClosedError, WebSocketNotOpenError, InvalidClientEventError, LaneError, isLaneError,
  type ResponsesSocket, type ResponsesSocketConfig, type SocketResponseBody, type ResponseOverSocketOptions,
  type ConnectionState, type FrameErrorEvent, type SocketEvent, type LaneSocket, type WebSocketLike, type WebSocketConstructorLike,
} from './lib/ws/index.js';

// The events: types only (their codecs are in openai-rx/codecs)
export { isKnownEvent, isEventType, RESPONSE_STREAM_EVENT_TYPES } from './lib/events/guards.js';
export type {
  ResponseAudioDeltaEvent, ResponseAudioDoneEvent, ResponseAudioTranscriptDeltaEvent,
  ResponseAudioTranscriptDoneEvent, ResponseCodeInterpreterCallCodeDeltaEvent,
  ResponseCodeInterpreterCallCodeDoneEvent, ResponseCodeInterpreterCallCompletedEvent,
  ResponseCodeInterpreterCallInProgressEvent, ResponseCodeInterpreterCallInterpretingEvent,
  ResponseCompactionCompactingEvent, ResponseCompletedEvent, ResponseContentPartAddedEvent,
  ResponseContentPartDoneEvent, ResponseCreatedEvent, ResponseCustomToolCallInputDeltaEvent,
  ResponseCustomToolCallInputDoneEvent, ResponseErrorEvent, ResponseFailedEvent,
  ResponseFileSearchCallCompletedEvent, ResponseFileSearchCallInProgressEvent, ResponseFileSearchCallSearchingEvent,
  ResponseFunctionCallArgumentsDeltaEvent, ResponseFunctionCallArgumentsDoneEvent,
  ResponseImageGenCallCompletedEvent, ResponseImageGenCallGeneratingEvent, ResponseImageGenCallInProgressEvent,
  ResponseImageGenCallPartialImageEvent, ResponseInProgressEvent, ResponseIncompleteEvent,
  ResponseMcpCallArgumentsDeltaEvent, ResponseMcpCallArgumentsDoneEvent, ResponseMcpCallCompletedEvent,
  ResponseMcpCallFailedEvent, ResponseMcpCallInProgressEvent, ResponseMcpListToolsCompletedEvent,
  ResponseMcpListToolsFailedEvent, ResponseMcpListToolsInProgressEvent, ResponseOutputItemAddedEvent,
  ResponseOutputItemDoneEvent, ResponseOutputTextAnnotationAddedEvent, ResponseQueuedEvent,
  ResponseReasoningSummaryPartAddedEvent, ResponseReasoningSummaryPartDoneEvent,
  ResponseReasoningSummaryTextDeltaEvent, ResponseReasoningSummaryTextDoneEvent, ResponseReasoningTextDeltaEvent,
  ResponseReasoningTextDoneEvent, ResponseRefusalDeltaEvent, ResponseRefusalDoneEvent,
  ResponseShellCallCommandAddedEvent, ResponseShellCallCommandDeltaEvent, ResponseShellCallCommandDoneEvent,
  ResponseShellCallOutputContentDeltaEvent, ResponseShellCallOutputContentDoneEvent, ResponseTextDeltaEvent,
  ResponseTextDoneEvent, ResponseWebSearchCallCompletedEvent, ResponseWebSearchCallInProgressEvent,
  ResponseWebSearchCallSearchingEvent,
  KnownResponseStreamEvent, ResponseStreamEvent, ResponseStreamEventMap, ResponseStreamEventType, UnknownEvent,
} from './lib/events/responses.js';
export type {
  ApplyPatchCall, CodeInterpreterCall, CompactionItem, ComputerCall, ContentPart, FileSearchCall,
  ImageGenerationCall, LocalShellCall, McpApprovalRequest, McpCall, McpListTools, OutputTextAnnotation,
  ReasoningTextPart, ResponseCustomToolCall, ResponseFunctionToolCall, ResponseOutputItem, ResponseOutputMessage,
  ResponseOutputRefusal, ResponseOutputText, ResponseReasoningItem, ShellCall, ShellCallOutput, SummaryTextPart,
  ToolSearchCall, WebSearchCall,
  UnknownItem, UnknownPart,
} from './lib/events/items.js';
export type { Response, ResponseError, ResponseUsage } from './lib/events/response.js';
export type {
  ResponseCreateClientEvent, ResponseInjectClientEvent, ResponseInjectCreatedEvent, ResponseInjectFailedEvent,
  ResponseSteerAcceptedEvent, ResponseSteerClientEvent, ResponseSteerFailedEvent, ResponseSteerPendingEvent,
  ResponsesClientEvent, WebSocketErrorEvent,
  KnownResponsesServerEvent, ResponsesServerEvent, UnknownServerEvent, WithStreamId,
} from './lib/events/websocket.js';
export type {
  ChatCompletionChunk, ChatCompletionChunkAudio, ChatCompletionChunkChoice, ChatCompletionChunkDelta,
  ChatCompletionChunkToolCall, ChatContentPart, ChatContentTextPart, ChatContentThinkingPart, ChatTokenLogprob,
  CompletionUsage,
  ChatContentOtherPart,
} from './lib/events/chat.js';

// The operators: all of openai-rx/operators (an explicit list there)
export * from './operators/index.js';

// The durable event log
export {
  memoryEventLog, redisEventLog, fromEventLog, cancelResponse,
  type EventLog, type FollowHandlers, type Lease, type LogEnd, type LogScope, type LogState, type LogWriterOptions,
  type MemoryEventLogOptions, type RedisEventLogOptions, type FromEventLogOptions, type CancelResponseOptions,
} from './lib/log/index.js';

// Durable Streams: read any server's stream (catch-up, then live), resumable by offset
export {
  fromDurableStream,
  type FromDurableStreamOptions, type DurableStreamBatch, type DurableStreamMessages, type DurableStreamBytes,
  type DurableStreamRetryOptions, type DurableStreamRetryDelay,
} from './lib/durable-streams/from-durable-stream.js';

// The agent loop
export {
  runAgent, defineTool, isAgentEvent, AGENT_EVENT_TYPES, MaxTurnsError, ClientToolError,
  type RunAgentOptions, type AgentStreamEvent, type TurnTransport, type TurnContext,
  type Tool, type ToolContext, type ToolReturn, type ArgumentsCheck, type Checked, type CodecToolOptions, type SchemaToolOptions,
  type FunctionToolDefinition,
  type ApprovalContext, type ClientToolHandlers, type ShellCommandOutput, type ApplyPatchResult, type ComputerScreenshot,
  type AgentEvent, type AgentCall, type AgentCallType, type AgentInputItem, type ToolFailureReason,
  type AgentApprovalRequestedEvent, type AgentApprovalResolvedEvent, type AgentToolCallStartedEvent, type AgentToolCallCompletedEvent,
  type AgentToolCallFailedEvent, type AgentTurnFinishedEvent, type AgentRunFinishedEvent,
} from './agent/index.js';

// JSON Schemas from io-ts codecs: a tool's parameters (defineTool) and a structured output's text.format
export {
  toJsonSchema, withDescription, UnsupportedCodecError, type DescribedType, type JsonSchema, type JsonSchemaOptions,
} from './lib/schema/json-schema.js';
export { strictSchemaViolations, STRICT_LIMITS } from './lib/schema/strict-schema.js';
export { jsonSchemaFormat, type JsonSchemaFormatOptions, type JsonSchemaTextFormat, type ResponseTextFormat } from './lib/schema/json-schema-format.js';

// Errors
export {
  OpenAIRxError, isOpenAIRxError, DecodeError, LimitExceededError, SequenceGapError, StreamInterruptedError, IdleTimeoutError,
  ResponseStreamError, ResponseCancelledError, RefusalError, IncompleteResponseError, isCancellation, HTTPError, NotAnEventStreamError, NetworkError, AbortedError,
  InvalidOptionError, ResponseMismatchError, EventLogError, MissingPeerDependencyError, JsonTextError, DurableStreamError,
  type DurableStreamErrorCode,
} from './lib/errors.js';
