/**
 * Pipeable operators over the typed events: pick events by type ({@link ofType}), grow the text
 * ({@link outputText}, {@link accumulateText}), read JSON as it is written ({@link partialJson}), a structured
 * answer and tool arguments as they stream ({@link outputObject}, {@link partialToolCalls}), pace it for display
 * ({@link smoothText}), collect tool calls ({@link collectToolCalls}), assemble the
 * response ({@link accumulateResponse}), resume a cut-off stream ({@link resumeFrom}), convert between the
 * Responses and Chat Completions shapes ({@link toChatChunks}, {@link fromChatChunks}, {@link toResponsesSSE},
 * {@link toChatSSE}), and share or bound a stream ({@link fanOut}, {@link bufferLimit}, {@link laneMux}).
 * Browser-safe; `openai-rx` re-exports all of them.
 *
 * @packageDocumentation
 * @module openai-rx/operators
 */
export { ofType } from './ofType.js';
export { resumeFrom, resumeFromCursor, exponentialBackoff, isRetryableError, type ResumeCursor, type ResumeOptions, type AutoResumeOptions, type Reconnect, type ResumeDelay, type BackoffOptions } from './resumeFrom.js';
export { toChatChunks, type ToChatChunksOptions } from './toChatChunks.js';
export { accumulateText, TEXT_KINDS, type TextKind, type TextSnapshot, type AccumulateTextOptions } from './accumulateText.js';
export { outputText } from './outputText.js';
export { partialJson, type PartialValue, type PartialJsonOptions } from './partialJson.js';
export { outputObject, type OutputObjectOptions } from './outputObject.js';
export { partialToolCalls, type PartialToolCall } from './partialToolCalls.js';
export { smoothText, type SmoothTextOptions, type SmoothTextInput, type Chunking } from './smoothText.js';
export {
  collectToolCalls, type ToolCall, type ToolCallType, type ToolCallState, type ParsedArguments, type FunctionToolCall, type CustomToolCall,
  type McpToolCall, type McpApprovalRequestCall, type ClientActionCall, type HostedToolCall, type CollectToolCallsOptions,
} from './collectToolCalls.js';
export { accumulateResponse, type AssembledResponse } from './accumulateResponse.js';
export { fromChatChunks, type FromChatChunksOptions } from './fromChatChunks.js';
export { toResponsesSSE, type ToResponsesSSEOptions } from './toResponsesSSE.js';
export { toChatSSE, type ToChatSSEOptions } from './toChatSSE.js';
export { laneMux, type LaneMuxOptions, type LaneMuxOutput } from './laneMux.js';
export { bufferLimit } from './bufferLimit.js';
export { fanOut } from './fanOut.js';
export { persistTo, type PersistToOptions } from './persistTo.js';
