/**
 * The io-ts codecs behind the event types, and the decoders' parts, for those who build their own decoder or
 * check payloads themselves. Each event type of `openai-rx` (e.g. the type `ResponseTextDeltaEvent`) has here a
 * codec of the same name (`ResponseTextDeltaEvent.is(u)`, `.decode(u)`), and the tables that map a wire `type` to
 * its codec. Everyday code needs none of this: `openai-rx` holds the types, the transports and the decoders.
 *
 * ```ts
 * import { ResponseTextDeltaEvent } from 'openai-rx/codecs';
 *
 * const u: unknown = JSON.parse('{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"Hi"}');
 * if (ResponseTextDeltaEvent.is(u)) console.log(u.delta);
 * ```
 *
 * It stands on the ground floor alone (lib/), so it lives there; browser-safe.
 *
 * @packageDocumentation
 * @module openai-rx/codecs
 */
// Every value lib/events/{responses,items,response,websocket,chat}.ts exports is listed here (exports.spec checks it).
export {
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
  responseEventCodecs, responseEventTable,
} from './events/responses.js';
export {
  ApplyPatchCall, CodeInterpreterCall, CompactionItem, ComputerCall, ContentPart, FileSearchCall,
  ImageGenerationCall, LocalShellCall, McpApprovalRequest, McpCall, McpListTools, OutputTextAnnotation,
  ReasoningTextPart, ResponseCustomToolCall, ResponseFunctionToolCall, ResponseOutputItem, ResponseOutputMessage,
  ResponseOutputRefusal, ResponseOutputText, ResponseReasoningItem, ShellCall, ShellCallOutput, SummaryTextPart,
  ToolSearchCall, WebSearchCall,
  outputItemCodecs,
} from './events/items.js';
export { Response, ResponseError, ResponseUsage } from './events/response.js';
export {
  ResponseCreateClientEvent, ResponseInjectClientEvent, ResponseInjectCreatedEvent, ResponseInjectFailedEvent,
  ResponseSteerAcceptedEvent, ResponseSteerClientEvent, ResponseSteerFailedEvent, ResponseSteerPendingEvent,
  ResponsesClientEvent, WebSocketErrorEvent,
  StreamId, isValidStreamId, serverEventCodecs, serverEventTable,
} from './events/websocket.js';
export {
  ChatCompletionChunk, ChatCompletionChunkAudio, ChatCompletionChunkChoice, ChatCompletionChunkDelta,
  ChatCompletionChunkToolCall, ChatContentPart, ChatContentTextPart, ChatContentThinkingPart, ChatTokenLogprob,
  CompletionUsage, ChatReasoningDetail,
} from './events/chat.js';
// The decoders' parts: the SSE scanner, the sequence tracker, one Chat chunk, one WebSocket frame, a client event's check.
export { createSSEScanner, DEFAULT_MAX_EVENT_SIZE, DEFAULT_MAX_LINE_LENGTH, type SSEMessageHandler, type SSEScanner } from './sse/scanner.js';
export { ResponseStreamTracker } from './decode/tracker.js';
export { decodeChunk } from './decode/chat-sse.js';
export { decodeFrame } from './ws/frames.js';
export { checkClientEvent } from './ws/validate.js';
