import * as t from 'io-ts';
import { JsonObject, struct, nullable, optional, sequenceNumber, tableOf } from './codec.js';
import { ContentPart, OutputTextAnnotation, ResponseOutputItem, SummaryTextPart } from './items.js';
import { Response } from './response.js';

// One named codec per documented Responses SSE event (59), named after its wire `type`
// so that a decode error reads like the API reference.

const lifecycle = <T extends string>(type: T) =>
  struct({ type: t.literal(type), response: Response, sequence_number: sequenceNumber }, type);

const itemStatus = <T extends string>(type: T) =>
  struct({ type: t.literal(type), item_id: t.string, output_index: t.number, sequence_number: sequenceNumber }, type);

const itemDelta = <T extends string>(type: T) =>
  struct({ type: t.literal(type), item_id: t.string, output_index: t.number, delta: t.string, sequence_number: sequenceNumber }, type);

const partDelta = <T extends string>(type: T) =>
  struct(
    { type: t.literal(type), item_id: t.string, output_index: t.number, content_index: t.number, delta: t.string, sequence_number: sequenceNumber },
    type,
  );

const Logprobs = optional(t.array(JsonObject));

// Response lifecycle
export const ResponseCreatedEvent = lifecycle('response.created');
export const ResponseQueuedEvent = lifecycle('response.queued');
export const ResponseInProgressEvent = lifecycle('response.in_progress');
export const ResponseCompletedEvent = lifecycle('response.completed');
export const ResponseFailedEvent = lifecycle('response.failed');
export const ResponseIncompleteEvent = lifecycle('response.incomplete');

// Items and content parts
const itemEvent = <T extends string>(type: T) =>
  struct({ type: t.literal(type), output_index: t.number, item: ResponseOutputItem, sequence_number: sequenceNumber }, type);
export const ResponseOutputItemAddedEvent = itemEvent('response.output_item.added');
export const ResponseOutputItemDoneEvent = itemEvent('response.output_item.done');
const partEvent = <T extends string>(type: T) =>
  struct(
    { type: t.literal(type), item_id: t.string, output_index: t.number, content_index: t.number, part: ContentPart, sequence_number: sequenceNumber },
    type,
  );
export const ResponseContentPartAddedEvent = partEvent('response.content_part.added');
export const ResponseContentPartDoneEvent = partEvent('response.content_part.done');

// Text and refusal
export const ResponseTextDeltaEvent = struct(
  { ...partDelta('response.output_text.delta').props, logprobs: Logprobs },
  'response.output_text.delta',
);
export const ResponseTextDoneEvent = struct(
  {
    type: t.literal('response.output_text.done'), item_id: t.string, output_index: t.number, content_index: t.number,
    text: t.string, logprobs: Logprobs, sequence_number: sequenceNumber,
  },
  'response.output_text.done',
);
export const ResponseOutputTextAnnotationAddedEvent = struct(
  {
    type: t.literal('response.output_text.annotation.added'), item_id: t.string, output_index: t.number, content_index: t.number,
    annotation_index: t.number, annotation: nullable(OutputTextAnnotation), sequence_number: sequenceNumber,
  },
  'response.output_text.annotation.added',
);
export const ResponseRefusalDeltaEvent = partDelta('response.refusal.delta');
export const ResponseRefusalDoneEvent = struct(
  { type: t.literal('response.refusal.done'), item_id: t.string, output_index: t.number, content_index: t.number, refusal: t.string, sequence_number: sequenceNumber },
  'response.refusal.done',
);

// Reasoning
const summaryPart = <T extends string>(type: T) =>
  struct(
    { type: t.literal(type), item_id: t.string, output_index: t.number, summary_index: t.number, part: SummaryTextPart, sequence_number: sequenceNumber },
    type,
  );
export const ResponseReasoningSummaryPartAddedEvent = summaryPart('response.reasoning_summary_part.added');
export const ResponseReasoningSummaryPartDoneEvent = summaryPart('response.reasoning_summary_part.done');
export const ResponseReasoningSummaryTextDeltaEvent = struct(
  { type: t.literal('response.reasoning_summary_text.delta'), item_id: t.string, output_index: t.number, summary_index: t.number, delta: t.string, sequence_number: sequenceNumber },
  'response.reasoning_summary_text.delta',
);
export const ResponseReasoningSummaryTextDoneEvent = struct(
  { type: t.literal('response.reasoning_summary_text.done'), item_id: t.string, output_index: t.number, summary_index: t.number, text: t.string, sequence_number: sequenceNumber },
  'response.reasoning_summary_text.done',
);
export const ResponseReasoningTextDeltaEvent = partDelta('response.reasoning_text.delta');
export const ResponseReasoningTextDoneEvent = struct(
  { type: t.literal('response.reasoning_text.done'), item_id: t.string, output_index: t.number, content_index: t.number, text: t.string, sequence_number: sequenceNumber },
  'response.reasoning_text.done',
);

// Function and custom tools
export const ResponseFunctionCallArgumentsDeltaEvent = itemDelta('response.function_call_arguments.delta');
export const ResponseFunctionCallArgumentsDoneEvent = struct(
  { type: t.literal('response.function_call_arguments.done'), item_id: t.string, output_index: t.number, arguments: t.string, name: optional(t.string), sequence_number: sequenceNumber },
  'response.function_call_arguments.done',
);
export const ResponseCustomToolCallInputDeltaEvent = itemDelta('response.custom_tool_call_input.delta');
export const ResponseCustomToolCallInputDoneEvent = struct(
  { type: t.literal('response.custom_tool_call_input.done'), item_id: t.string, output_index: t.number, input: t.string, sequence_number: sequenceNumber },
  'response.custom_tool_call_input.done',
);

// Hosted tools
export const ResponseFileSearchCallInProgressEvent = itemStatus('response.file_search_call.in_progress');
export const ResponseFileSearchCallSearchingEvent = itemStatus('response.file_search_call.searching');
export const ResponseFileSearchCallCompletedEvent = itemStatus('response.file_search_call.completed');
export const ResponseWebSearchCallInProgressEvent = itemStatus('response.web_search_call.in_progress');
export const ResponseWebSearchCallSearchingEvent = itemStatus('response.web_search_call.searching');
export const ResponseWebSearchCallCompletedEvent = itemStatus('response.web_search_call.completed');
export const ResponseCodeInterpreterCallInProgressEvent = itemStatus('response.code_interpreter_call.in_progress');
export const ResponseCodeInterpreterCallInterpretingEvent = itemStatus('response.code_interpreter_call.interpreting');
export const ResponseCodeInterpreterCallCompletedEvent = itemStatus('response.code_interpreter_call.completed');
export const ResponseCodeInterpreterCallCodeDeltaEvent = itemDelta('response.code_interpreter_call_code.delta');
export const ResponseCodeInterpreterCallCodeDoneEvent = struct(
  { type: t.literal('response.code_interpreter_call_code.done'), item_id: t.string, output_index: t.number, code: t.string, sequence_number: sequenceNumber },
  'response.code_interpreter_call_code.done',
);
export const ResponseImageGenCallInProgressEvent = itemStatus('response.image_generation_call.in_progress');
export const ResponseImageGenCallGeneratingEvent = itemStatus('response.image_generation_call.generating');
export const ResponseImageGenCallCompletedEvent = itemStatus('response.image_generation_call.completed');
export const ResponseImageGenCallPartialImageEvent = struct(
  {
    type: t.literal('response.image_generation_call.partial_image'), item_id: t.string, output_index: t.number,
    partial_image_index: t.number, partial_image_b64: t.string, size: optional(t.string), quality: optional(t.string),
    background: optional(t.string), output_format: optional(t.string), sequence_number: sequenceNumber,
  },
  'response.image_generation_call.partial_image',
);

// MCP
export const ResponseMcpCallInProgressEvent = itemStatus('response.mcp_call.in_progress');
export const ResponseMcpCallCompletedEvent = itemStatus('response.mcp_call.completed');
export const ResponseMcpCallFailedEvent = itemStatus('response.mcp_call.failed');
export const ResponseMcpCallArgumentsDeltaEvent = itemDelta('response.mcp_call_arguments.delta');
export const ResponseMcpCallArgumentsDoneEvent = struct(
  { type: t.literal('response.mcp_call_arguments.done'), item_id: t.string, output_index: t.number, arguments: t.string, sequence_number: sequenceNumber },
  'response.mcp_call_arguments.done',
);
export const ResponseMcpListToolsInProgressEvent = itemStatus('response.mcp_list_tools.in_progress');
export const ResponseMcpListToolsCompletedEvent = itemStatus('response.mcp_list_tools.completed');
export const ResponseMcpListToolsFailedEvent = itemStatus('response.mcp_list_tools.failed');

// Shell
const shellCommand = <T extends string>(type: T) =>
  struct({ type: t.literal(type), output_index: t.number, command_index: t.number, command: t.string, sequence_number: sequenceNumber }, type);
export const ResponseShellCallCommandAddedEvent = shellCommand('response.shell_call_command.added');
export const ResponseShellCallCommandDeltaEvent = struct(
  { type: t.literal('response.shell_call_command.delta'), output_index: t.number, command_index: t.number, delta: t.string, sequence_number: sequenceNumber },
  'response.shell_call_command.delta',
);
export const ResponseShellCallCommandDoneEvent = shellCommand('response.shell_call_command.done');
export const ResponseShellCallOutputContentDeltaEvent = struct(
  {
    type: t.literal('response.shell_call_output_content.delta'), item_id: t.string, output_index: t.number, command_index: t.number,
    delta: struct({ stdout: optional(t.string), stderr: optional(t.string) }, 'ShellOutputDelta'), sequence_number: sequenceNumber,
  },
  'response.shell_call_output_content.delta',
);
export const ResponseShellCallOutputContentDoneEvent = struct(
  {
    type: t.literal('response.shell_call_output_content.done'), item_id: t.string, output_index: t.number, command_index: t.number,
    output: t.array(JsonObject), sequence_number: sequenceNumber,
  },
  'response.shell_call_output_content.done',
);

// Compaction, audio, error
export const ResponseCompactionCompactingEvent = itemStatus('response.compaction.compacting');
export const ResponseAudioDeltaEvent = struct({ type: t.literal('response.audio.delta'), delta: t.string, sequence_number: sequenceNumber }, 'response.audio.delta');
export const ResponseAudioDoneEvent = struct({ type: t.literal('response.audio.done'), sequence_number: sequenceNumber }, 'response.audio.done');
export const ResponseAudioTranscriptDeltaEvent = struct(
  { type: t.literal('response.audio.transcript.delta'), delta: t.string, sequence_number: sequenceNumber },
  'response.audio.transcript.delta',
);
export const ResponseAudioTranscriptDoneEvent = struct(
  { type: t.literal('response.audio.transcript.done'), sequence_number: sequenceNumber },
  'response.audio.transcript.done',
);
/** Some providers (and the WebSocket mode) nest the details as `error: { type, code, message, param }`. */
const NestedError = struct({ type: optional(t.string), code: optional(nullable(t.string)), message: t.string, param: optional(nullable(t.string)) }, 'error.error');
/** `error`: `code`, `message`, `param` at the top (the reference), or nested under `error` (also seen). */
export const ResponseErrorEvent = t.refinement(
  struct(
    { type: t.literal('error'), code: optional(nullable(t.string)), message: optional(t.string), param: optional(nullable(t.string)), error: optional(NestedError), sequence_number: sequenceNumber },
    'error',
  ),
  (e) => typeof e.message === 'string' || e.error !== undefined,
  'error (with message or error.message)',
);

/** Every documented Responses SSE event codec, keyed by its wire `type`. */
export const responseEventCodecs = {
  'response.created': ResponseCreatedEvent,
  'response.queued': ResponseQueuedEvent,
  'response.in_progress': ResponseInProgressEvent,
  'response.completed': ResponseCompletedEvent,
  'response.failed': ResponseFailedEvent,
  'response.incomplete': ResponseIncompleteEvent,
  'response.output_item.added': ResponseOutputItemAddedEvent,
  'response.output_item.done': ResponseOutputItemDoneEvent,
  'response.content_part.added': ResponseContentPartAddedEvent,
  'response.content_part.done': ResponseContentPartDoneEvent,
  'response.output_text.delta': ResponseTextDeltaEvent,
  'response.output_text.done': ResponseTextDoneEvent,
  'response.output_text.annotation.added': ResponseOutputTextAnnotationAddedEvent,
  'response.refusal.delta': ResponseRefusalDeltaEvent,
  'response.refusal.done': ResponseRefusalDoneEvent,
  'response.reasoning_summary_part.added': ResponseReasoningSummaryPartAddedEvent,
  'response.reasoning_summary_part.done': ResponseReasoningSummaryPartDoneEvent,
  'response.reasoning_summary_text.delta': ResponseReasoningSummaryTextDeltaEvent,
  'response.reasoning_summary_text.done': ResponseReasoningSummaryTextDoneEvent,
  'response.reasoning_text.delta': ResponseReasoningTextDeltaEvent,
  'response.reasoning_text.done': ResponseReasoningTextDoneEvent,
  'response.function_call_arguments.delta': ResponseFunctionCallArgumentsDeltaEvent,
  'response.function_call_arguments.done': ResponseFunctionCallArgumentsDoneEvent,
  'response.custom_tool_call_input.delta': ResponseCustomToolCallInputDeltaEvent,
  'response.custom_tool_call_input.done': ResponseCustomToolCallInputDoneEvent,
  'response.file_search_call.in_progress': ResponseFileSearchCallInProgressEvent,
  'response.file_search_call.searching': ResponseFileSearchCallSearchingEvent,
  'response.file_search_call.completed': ResponseFileSearchCallCompletedEvent,
  'response.web_search_call.in_progress': ResponseWebSearchCallInProgressEvent,
  'response.web_search_call.searching': ResponseWebSearchCallSearchingEvent,
  'response.web_search_call.completed': ResponseWebSearchCallCompletedEvent,
  'response.code_interpreter_call.in_progress': ResponseCodeInterpreterCallInProgressEvent,
  'response.code_interpreter_call.interpreting': ResponseCodeInterpreterCallInterpretingEvent,
  'response.code_interpreter_call.completed': ResponseCodeInterpreterCallCompletedEvent,
  'response.code_interpreter_call_code.delta': ResponseCodeInterpreterCallCodeDeltaEvent,
  'response.code_interpreter_call_code.done': ResponseCodeInterpreterCallCodeDoneEvent,
  'response.image_generation_call.in_progress': ResponseImageGenCallInProgressEvent,
  'response.image_generation_call.generating': ResponseImageGenCallGeneratingEvent,
  'response.image_generation_call.completed': ResponseImageGenCallCompletedEvent,
  'response.image_generation_call.partial_image': ResponseImageGenCallPartialImageEvent,
  'response.mcp_call.in_progress': ResponseMcpCallInProgressEvent,
  'response.mcp_call.completed': ResponseMcpCallCompletedEvent,
  'response.mcp_call.failed': ResponseMcpCallFailedEvent,
  'response.mcp_call_arguments.delta': ResponseMcpCallArgumentsDeltaEvent,
  'response.mcp_call_arguments.done': ResponseMcpCallArgumentsDoneEvent,
  'response.mcp_list_tools.in_progress': ResponseMcpListToolsInProgressEvent,
  'response.mcp_list_tools.completed': ResponseMcpListToolsCompletedEvent,
  'response.mcp_list_tools.failed': ResponseMcpListToolsFailedEvent,
  'response.shell_call_command.added': ResponseShellCallCommandAddedEvent,
  'response.shell_call_command.delta': ResponseShellCallCommandDeltaEvent,
  'response.shell_call_command.done': ResponseShellCallCommandDoneEvent,
  'response.shell_call_output_content.delta': ResponseShellCallOutputContentDeltaEvent,
  'response.shell_call_output_content.done': ResponseShellCallOutputContentDoneEvent,
  'response.compaction.compacting': ResponseCompactionCompactingEvent,
  'response.audio.delta': ResponseAudioDeltaEvent,
  'response.audio.done': ResponseAudioDoneEvent,
  'response.audio.transcript.delta': ResponseAudioTranscriptDeltaEvent,
  'response.audio.transcript.done': ResponseAudioTranscriptDoneEvent,
  error: ResponseErrorEvent,
} as const;

type Codecs = typeof responseEventCodecs;
/** The documented Responses SSE event types, by wire name. */
export type ResponseStreamEventType = keyof Codecs;
/** Each documented event's TypeScript type, keyed by its wire `type`. */
export type ResponseStreamEventMap = { [K in ResponseStreamEventType]: t.TypeOf<Codecs[K]> };
/** The closed, discriminated union of the 59 documented events: `switch (e.type)` narrows it. */
export type KnownResponseStreamEvent = ResponseStreamEventMap[ResponseStreamEventType];

/** An event whose `type` this version does not document; passed through unharmed. */
export interface UnknownEvent {
  readonly type: string;
  readonly sequence_number?: number;
  readonly [key: string]: unknown;
}

/** What `fromResponsesSSE` emits: a documented event, or an undocumented one passed through. */
export type ResponseStreamEvent = KnownResponseStreamEvent | UnknownEvent;

export const responseEventTable = tableOf(responseEventCodecs);

// The event types, one per codec: `@interface` makes the API reference list each one's fields.

/**
 * `response.created`: The response was created; `response` is its first snapshot.
 * @interface
 */
export type ResponseCreatedEvent = t.TypeOf<typeof ResponseCreatedEvent>;
/**
 * `response.queued`: A background response is waiting to start.
 * @interface
 */
export type ResponseQueuedEvent = t.TypeOf<typeof ResponseQueuedEvent>;
/**
 * `response.in_progress`: The response started generating.
 * @interface
 */
export type ResponseInProgressEvent = t.TypeOf<typeof ResponseInProgressEvent>;
/**
 * `response.completed`: Terminal: the response finished; `response` carries its `output` and `usage`.
 * @interface
 */
export type ResponseCompletedEvent = t.TypeOf<typeof ResponseCompletedEvent>;
/**
 * `response.failed`: Terminal: the response failed; `response.error` says why.
 * @interface
 */
export type ResponseFailedEvent = t.TypeOf<typeof ResponseFailedEvent>;
/**
 * `response.incomplete`: Terminal: the response stopped early; `response.incomplete_details` says why.
 * @interface
 */
export type ResponseIncompleteEvent = t.TypeOf<typeof ResponseIncompleteEvent>;
/**
 * `response.output_item.added`: An output item (message, reasoning, tool call…) started at `output_index`.
 * @interface
 */
export type ResponseOutputItemAddedEvent = t.TypeOf<typeof ResponseOutputItemAddedEvent>;
/**
 * `response.output_item.done`: An output item is complete; `item` is its final form.
 * @interface
 */
export type ResponseOutputItemDoneEvent = t.TypeOf<typeof ResponseOutputItemDoneEvent>;
/**
 * `response.content_part.added`: A content part started in a message item.
 * @interface
 */
export type ResponseContentPartAddedEvent = t.TypeOf<typeof ResponseContentPartAddedEvent>;
/**
 * `response.content_part.done`: A content part is complete; `part` is its final form.
 * @interface
 */
export type ResponseContentPartDoneEvent = t.TypeOf<typeof ResponseContentPartDoneEvent>;
/**
 * `response.output_text.delta`: Text appended to an `output_text` part.
 * @interface
 */
export type ResponseTextDeltaEvent = t.TypeOf<typeof ResponseTextDeltaEvent>;
/**
 * `response.output_text.done`: An `output_text` part is complete; `text` is all of it.
 * @interface
 */
export type ResponseTextDoneEvent = t.TypeOf<typeof ResponseTextDoneEvent>;
/**
 * `response.output_text.annotation.added`: An annotation (citation, file path…) added to an `output_text` part.
 * @interface
 */
export type ResponseOutputTextAnnotationAddedEvent = t.TypeOf<typeof ResponseOutputTextAnnotationAddedEvent>;
/**
 * `response.refusal.delta`: Text appended to a refusal part.
 * @interface
 */
export type ResponseRefusalDeltaEvent = t.TypeOf<typeof ResponseRefusalDeltaEvent>;
/**
 * `response.refusal.done`: A refusal part is complete; `refusal` is all of it.
 * @interface
 */
export type ResponseRefusalDoneEvent = t.TypeOf<typeof ResponseRefusalDoneEvent>;
/**
 * `response.reasoning_summary_part.added`: A reasoning summary part started.
 * @interface
 */
export type ResponseReasoningSummaryPartAddedEvent = t.TypeOf<typeof ResponseReasoningSummaryPartAddedEvent>;
/**
 * `response.reasoning_summary_part.done`: A reasoning summary part is complete.
 * @interface
 */
export type ResponseReasoningSummaryPartDoneEvent = t.TypeOf<typeof ResponseReasoningSummaryPartDoneEvent>;
/**
 * `response.reasoning_summary_text.delta`: Text appended to a reasoning summary part.
 * @interface
 */
export type ResponseReasoningSummaryTextDeltaEvent = t.TypeOf<typeof ResponseReasoningSummaryTextDeltaEvent>;
/**
 * `response.reasoning_summary_text.done`: A reasoning summary part's text is complete.
 * @interface
 */
export type ResponseReasoningSummaryTextDoneEvent = t.TypeOf<typeof ResponseReasoningSummaryTextDoneEvent>;
/**
 * `response.reasoning_text.delta`: Reasoning text appended to a reasoning item's content part.
 * @interface
 */
export type ResponseReasoningTextDeltaEvent = t.TypeOf<typeof ResponseReasoningTextDeltaEvent>;
/**
 * `response.reasoning_text.done`: A reasoning content part's text is complete.
 * @interface
 */
export type ResponseReasoningTextDoneEvent = t.TypeOf<typeof ResponseReasoningTextDoneEvent>;
/**
 * `response.function_call_arguments.delta`: A piece of a function call's JSON `arguments`.
 * @interface
 */
export type ResponseFunctionCallArgumentsDeltaEvent = t.TypeOf<typeof ResponseFunctionCallArgumentsDeltaEvent>;
/**
 * `response.function_call_arguments.done`: A function call's `arguments` are complete.
 * @interface
 */
export type ResponseFunctionCallArgumentsDoneEvent = t.TypeOf<typeof ResponseFunctionCallArgumentsDoneEvent>;
/**
 * `response.custom_tool_call_input.delta`: A piece of a custom tool call's free-form `input`.
 * @interface
 */
export type ResponseCustomToolCallInputDeltaEvent = t.TypeOf<typeof ResponseCustomToolCallInputDeltaEvent>;
/**
 * `response.custom_tool_call_input.done`: A custom tool call's `input` is complete.
 * @interface
 */
export type ResponseCustomToolCallInputDoneEvent = t.TypeOf<typeof ResponseCustomToolCallInputDoneEvent>;
/**
 * `response.file_search_call.in_progress`: A hosted file search started.
 * @interface
 */
export type ResponseFileSearchCallInProgressEvent = t.TypeOf<typeof ResponseFileSearchCallInProgressEvent>;
/**
 * `response.file_search_call.searching`: A hosted file search is searching.
 * @interface
 */
export type ResponseFileSearchCallSearchingEvent = t.TypeOf<typeof ResponseFileSearchCallSearchingEvent>;
/**
 * `response.file_search_call.completed`: A hosted file search finished.
 * @interface
 */
export type ResponseFileSearchCallCompletedEvent = t.TypeOf<typeof ResponseFileSearchCallCompletedEvent>;
/**
 * `response.web_search_call.in_progress`: A hosted web search started.
 * @interface
 */
export type ResponseWebSearchCallInProgressEvent = t.TypeOf<typeof ResponseWebSearchCallInProgressEvent>;
/**
 * `response.web_search_call.searching`: A hosted web search is searching.
 * @interface
 */
export type ResponseWebSearchCallSearchingEvent = t.TypeOf<typeof ResponseWebSearchCallSearchingEvent>;
/**
 * `response.web_search_call.completed`: A hosted web search finished.
 * @interface
 */
export type ResponseWebSearchCallCompletedEvent = t.TypeOf<typeof ResponseWebSearchCallCompletedEvent>;
/**
 * `response.code_interpreter_call.in_progress`: A code interpreter call started.
 * @interface
 */
export type ResponseCodeInterpreterCallInProgressEvent = t.TypeOf<typeof ResponseCodeInterpreterCallInProgressEvent>;
/**
 * `response.code_interpreter_call.interpreting`: A code interpreter call is running its code.
 * @interface
 */
export type ResponseCodeInterpreterCallInterpretingEvent = t.TypeOf<typeof ResponseCodeInterpreterCallInterpretingEvent>;
/**
 * `response.code_interpreter_call.completed`: A code interpreter call finished.
 * @interface
 */
export type ResponseCodeInterpreterCallCompletedEvent = t.TypeOf<typeof ResponseCodeInterpreterCallCompletedEvent>;
/**
 * `response.code_interpreter_call_code.delta`: A piece of the code a code interpreter call runs.
 * @interface
 */
export type ResponseCodeInterpreterCallCodeDeltaEvent = t.TypeOf<typeof ResponseCodeInterpreterCallCodeDeltaEvent>;
/**
 * `response.code_interpreter_call_code.done`: The code of a code interpreter call is complete.
 * @interface
 */
export type ResponseCodeInterpreterCallCodeDoneEvent = t.TypeOf<typeof ResponseCodeInterpreterCallCodeDoneEvent>;
/**
 * `response.image_generation_call.in_progress`: An image generation call started.
 * @interface
 */
export type ResponseImageGenCallInProgressEvent = t.TypeOf<typeof ResponseImageGenCallInProgressEvent>;
/**
 * `response.image_generation_call.generating`: An image generation call is generating.
 * @interface
 */
export type ResponseImageGenCallGeneratingEvent = t.TypeOf<typeof ResponseImageGenCallGeneratingEvent>;
/**
 * `response.image_generation_call.completed`: An image generation call finished.
 * @interface
 */
export type ResponseImageGenCallCompletedEvent = t.TypeOf<typeof ResponseImageGenCallCompletedEvent>;
/**
 * `response.image_generation_call.partial_image`: A partial image (base64) while an image is generated.
 * @interface
 */
export type ResponseImageGenCallPartialImageEvent = t.TypeOf<typeof ResponseImageGenCallPartialImageEvent>;
/**
 * `response.mcp_call.in_progress`: An MCP tool call started.
 * @interface
 */
export type ResponseMcpCallInProgressEvent = t.TypeOf<typeof ResponseMcpCallInProgressEvent>;
/**
 * `response.mcp_call.completed`: An MCP tool call finished.
 * @interface
 */
export type ResponseMcpCallCompletedEvent = t.TypeOf<typeof ResponseMcpCallCompletedEvent>;
/**
 * `response.mcp_call.failed`: An MCP tool call failed.
 * @interface
 */
export type ResponseMcpCallFailedEvent = t.TypeOf<typeof ResponseMcpCallFailedEvent>;
/**
 * `response.mcp_call_arguments.delta`: A piece of an MCP tool call's JSON `arguments`.
 * @interface
 */
export type ResponseMcpCallArgumentsDeltaEvent = t.TypeOf<typeof ResponseMcpCallArgumentsDeltaEvent>;
/**
 * `response.mcp_call_arguments.done`: An MCP tool call's `arguments` are complete.
 * @interface
 */
export type ResponseMcpCallArgumentsDoneEvent = t.TypeOf<typeof ResponseMcpCallArgumentsDoneEvent>;
/**
 * `response.mcp_list_tools.in_progress`: Listing an MCP server's tools started.
 * @interface
 */
export type ResponseMcpListToolsInProgressEvent = t.TypeOf<typeof ResponseMcpListToolsInProgressEvent>;
/**
 * `response.mcp_list_tools.completed`: Listing an MCP server's tools finished.
 * @interface
 */
export type ResponseMcpListToolsCompletedEvent = t.TypeOf<typeof ResponseMcpListToolsCompletedEvent>;
/**
 * `response.mcp_list_tools.failed`: Listing an MCP server's tools failed.
 * @interface
 */
export type ResponseMcpListToolsFailedEvent = t.TypeOf<typeof ResponseMcpListToolsFailedEvent>;
/**
 * `response.shell_call_command.added`: A hosted shell call added a command.
 * @interface
 */
export type ResponseShellCallCommandAddedEvent = t.TypeOf<typeof ResponseShellCallCommandAddedEvent>;
/**
 * `response.shell_call_command.delta`: A piece of a hosted shell command.
 * @interface
 */
export type ResponseShellCallCommandDeltaEvent = t.TypeOf<typeof ResponseShellCallCommandDeltaEvent>;
/**
 * `response.shell_call_command.done`: A hosted shell command is complete.
 * @interface
 */
export type ResponseShellCallCommandDoneEvent = t.TypeOf<typeof ResponseShellCallCommandDoneEvent>;
/**
 * `response.shell_call_output_content.delta`: Output (`stdout` / `stderr`) of a hosted shell command.
 * @interface
 */
export type ResponseShellCallOutputContentDeltaEvent = t.TypeOf<typeof ResponseShellCallOutputContentDeltaEvent>;
/**
 * `response.shell_call_output_content.done`: A hosted shell command's output is complete.
 * @interface
 */
export type ResponseShellCallOutputContentDoneEvent = t.TypeOf<typeof ResponseShellCallOutputContentDoneEvent>;
/**
 * `response.compaction.compacting`: The conversation is being compacted.
 * @interface
 */
export type ResponseCompactionCompactingEvent = t.TypeOf<typeof ResponseCompactionCompactingEvent>;
/**
 * `response.audio.delta`: A piece of audio output (base64).
 * @interface
 */
export type ResponseAudioDeltaEvent = t.TypeOf<typeof ResponseAudioDeltaEvent>;
/**
 * `response.audio.done`: The audio output is complete.
 * @interface
 */
export type ResponseAudioDoneEvent = t.TypeOf<typeof ResponseAudioDoneEvent>;
/**
 * `response.audio.transcript.delta`: A piece of the audio output's transcript.
 * @interface
 */
export type ResponseAudioTranscriptDeltaEvent = t.TypeOf<typeof ResponseAudioTranscriptDeltaEvent>;
/**
 * `response.audio.transcript.done`: The audio output's transcript is complete.
 * @interface
 */
export type ResponseAudioTranscriptDoneEvent = t.TypeOf<typeof ResponseAudioTranscriptDoneEvent>;
/**
 * `error`: Terminal: an error in the stream; `code`, `message` and `param` at the top (the reference) or under `error` (also seen).
 * @interface
 */
export type ResponseErrorEvent = t.TypeOf<typeof ResponseErrorEvent>;
