import * as t from 'io-ts';
import { JsonObject, struct, nullable, optional, taggedUnion, tableOf } from './codec.js';

// Content parts and output items of a Response. Only the fields the operators read are checked;
// every other key the API sends is kept as it came.

export const OutputTextAnnotation = struct({ type: t.string }, 'Annotation');
/**
 * An annotation of an `output_text` part (`url_citation`, `file_citation`…): its `type`, and every other key as sent.
 * @interface
 */
export type OutputTextAnnotation = t.TypeOf<typeof OutputTextAnnotation> & Record<string, unknown>;

export const ResponseOutputText = struct(
  { type: t.literal('output_text'), text: t.string, annotations: optional(t.array(OutputTextAnnotation)) },
  'output_text',
);
export const ResponseOutputRefusal = struct({ type: t.literal('refusal'), refusal: t.string }, 'refusal');
export const ReasoningTextPart = struct({ type: t.literal('reasoning_text'), text: t.string }, 'reasoning_text');
export const SummaryTextPart = struct({ type: t.literal('summary_text'), text: t.string }, 'summary_text');
/**
 * `output_text`: a text part of a message.
 * @interface
 */
export type ResponseOutputText = t.TypeOf<typeof ResponseOutputText>;
/**
 * `refusal`: the model declined; `refusal` says why.
 * @interface
 */
export type ResponseOutputRefusal = t.TypeOf<typeof ResponseOutputRefusal>;
/**
 * `reasoning_text`: a reasoning content part.
 * @interface
 */
export type ReasoningTextPart = t.TypeOf<typeof ReasoningTextPart>;
/**
 * `summary_text`: a part of a reasoning summary.
 * @interface
 */
export type SummaryTextPart = t.TypeOf<typeof SummaryTextPart>;

/** A part not in this list (a future part type) passes with its `type`. */
export interface UnknownPart { readonly type: string; readonly [key: string]: unknown }
export type ContentPart = ResponseOutputText | ResponseOutputRefusal | ReasoningTextPart;
export const ContentPart = taggedUnion<ContentPart>(
  'ContentPart',
  tableOf({ output_text: ResponseOutputText, refusal: ResponseOutputRefusal, reasoning_text: ReasoningTextPart }),
  true,
);

const status = optional(t.string);
const id = optional(t.string);

export const ResponseOutputMessage = struct(
  { type: t.literal('message'), id: t.string, role: t.string, status, content: t.array(ContentPart) },
  'message',
);
export const ResponseReasoningItem = struct(
  { type: t.literal('reasoning'), id: t.string, status, summary: optional(t.array(SummaryTextPart)), content: optional(t.array(ReasoningTextPart)), encrypted_content: optional(nullable(t.string)) },
  'reasoning',
);
export const ResponseFunctionToolCall = struct(
  { type: t.literal('function_call'), id, call_id: t.string, name: t.string, arguments: t.string, status },
  'function_call',
);
export const ResponseCustomToolCall = struct(
  { type: t.literal('custom_tool_call'), id, call_id: t.string, name: t.string, input: t.string, status },
  'custom_tool_call',
);
export const McpCall = struct(
  { type: t.literal('mcp_call'), id: t.string, server_label: t.string, name: t.string, arguments: t.string, output: optional(nullable(t.string)), error: optional(t.unknown), status },
  'mcp_call',
);
export const McpListTools = struct(
  { type: t.literal('mcp_list_tools'), id: t.string, server_label: t.string, tools: optional(t.array(JsonObject)), error: optional(t.unknown) },
  'mcp_list_tools',
);
export const McpApprovalRequest = struct(
  { type: t.literal('mcp_approval_request'), id: t.string, server_label: t.string, name: t.string, arguments: t.string },
  'mcp_approval_request',
);
export const FileSearchCall = struct({ type: t.literal('file_search_call'), id: t.string, status, queries: optional(t.array(t.string)) }, 'file_search_call');
export const WebSearchCall = struct({ type: t.literal('web_search_call'), id: t.string, status, action: optional(JsonObject) }, 'web_search_call');
export const CodeInterpreterCall = struct(
  { type: t.literal('code_interpreter_call'), id: t.string, status, code: optional(nullable(t.string)), container_id: optional(t.string), outputs: optional(nullable(t.array(JsonObject))) },
  'code_interpreter_call',
);
export const ImageGenerationCall = struct({ type: t.literal('image_generation_call'), id: t.string, status, result: optional(nullable(t.string)) }, 'image_generation_call');
export const ComputerCall = struct({ type: t.literal('computer_call'), id: t.string, call_id: t.string, status, action: optional(JsonObject) }, 'computer_call');
export const LocalShellCall = struct({ type: t.literal('local_shell_call'), id: t.string, call_id: t.string, status, action: JsonObject }, 'local_shell_call');
export const ShellCall = struct({ type: t.literal('shell_call'), id, call_id: t.string, status, action: optional(JsonObject) }, 'shell_call');
/** Output of a hosted shell call, one content per command (`stdout` / `stderr` grow with `shell_call_output_content.delta`). */
export const ShellCallOutput = struct(
  { type: t.literal('shell_call_output'), id, call_id: optional(t.string), status, output: optional(t.array(JsonObject)) },
  'shell_call_output',
);
/** `execution: "client"`: the application runs the search and answers with a `tool_search_output` item. */
export const ToolSearchCall = struct(
  { type: t.literal('tool_search_call'), id, call_id: optional(nullable(t.string)), execution: optional(t.string), arguments: optional(t.unknown), status },
  'tool_search_call',
);
export const ApplyPatchCall = struct({ type: t.literal('apply_patch_call'), id, call_id: t.string, status, operation: optional(JsonObject) }, 'apply_patch_call');
export const CompactionItem = struct({ type: t.literal('compaction'), id: t.string }, 'compaction');

/**
 * `message`: an assistant message, its `content` a list of parts.
 * @interface
 */
export type ResponseOutputMessage = t.TypeOf<typeof ResponseOutputMessage>;
/**
 * `reasoning`: the model's reasoning (summary, text or encrypted content).
 * @interface
 */
export type ResponseReasoningItem = t.TypeOf<typeof ResponseReasoningItem>;
/**
 * `function_call`: a call of one of your functions; answer it with a `function_call_output` for `call_id`.
 * @interface
 */
export type ResponseFunctionToolCall = t.TypeOf<typeof ResponseFunctionToolCall>;
/**
 * `custom_tool_call`: a call of a custom (free-form input) tool.
 * @interface
 */
export type ResponseCustomToolCall = t.TypeOf<typeof ResponseCustomToolCall>;
/**
 * `mcp_call`: a call of a tool on a remote MCP server.
 * @interface
 */
export type McpCall = t.TypeOf<typeof McpCall>;
/**
 * `mcp_list_tools`: the tools an MCP server offers.
 * @interface
 */
export type McpListTools = t.TypeOf<typeof McpListTools>;
/**
 * `mcp_approval_request`: an MCP call waiting for your approval.
 * @interface
 */
export type McpApprovalRequest = t.TypeOf<typeof McpApprovalRequest>;
/**
 * `file_search_call`: a hosted file search.
 * @interface
 */
export type FileSearchCall = t.TypeOf<typeof FileSearchCall>;
/**
 * `web_search_call`: a hosted web search.
 * @interface
 */
export type WebSearchCall = t.TypeOf<typeof WebSearchCall>;
/**
 * `code_interpreter_call`: code run by the hosted code interpreter.
 * @interface
 */
export type CodeInterpreterCall = t.TypeOf<typeof CodeInterpreterCall>;
/**
 * `image_generation_call`: a hosted image generation; `result` is the image (base64).
 * @interface
 */
export type ImageGenerationCall = t.TypeOf<typeof ImageGenerationCall>;
/**
 * `computer_call`: an action for your computer-use harness.
 * @interface
 */
export type ComputerCall = t.TypeOf<typeof ComputerCall>;
/**
 * `local_shell_call`: a command for your local shell.
 * @interface
 */
export type LocalShellCall = t.TypeOf<typeof LocalShellCall>;
/**
 * `shell_call`: a hosted (or local) shell call.
 * @interface
 */
export type ShellCall = t.TypeOf<typeof ShellCall>;
/**
 * `shell_call_output`: the output of a shell call, one entry per command.
 * @interface
 */
export type ShellCallOutput = t.TypeOf<typeof ShellCallOutput>;
/**
 * `tool_search_call`: a tool search.
 * @interface
 */
export type ToolSearchCall = t.TypeOf<typeof ToolSearchCall>;
/**
 * `apply_patch_call`: a patch for your harness to apply.
 * @interface
 */
export type ApplyPatchCall = t.TypeOf<typeof ApplyPatchCall>;
/**
 * `compaction`: the compacted conversation.
 * @interface
 */
export type CompactionItem = t.TypeOf<typeof CompactionItem>;

/** An output item of a type this version does not know: passed along with its `type`. */
export interface UnknownItem { readonly type: string; readonly id?: string; readonly [key: string]: unknown }

export type ResponseOutputItem =
  | ResponseOutputMessage | ResponseReasoningItem | ResponseFunctionToolCall | ResponseCustomToolCall
  | McpCall | McpListTools | McpApprovalRequest | FileSearchCall | WebSearchCall | CodeInterpreterCall
  | ImageGenerationCall | ComputerCall | LocalShellCall | ShellCall | ShellCallOutput | ToolSearchCall | ApplyPatchCall | CompactionItem;

export const outputItemCodecs = tableOf({
  message: ResponseOutputMessage, reasoning: ResponseReasoningItem, function_call: ResponseFunctionToolCall,
  custom_tool_call: ResponseCustomToolCall, mcp_call: McpCall, mcp_list_tools: McpListTools,
  mcp_approval_request: McpApprovalRequest, file_search_call: FileSearchCall, web_search_call: WebSearchCall,
  code_interpreter_call: CodeInterpreterCall, image_generation_call: ImageGenerationCall, computer_call: ComputerCall,
  local_shell_call: LocalShellCall, shell_call: ShellCall, shell_call_output: ShellCallOutput, tool_search_call: ToolSearchCall,
  apply_patch_call: ApplyPatchCall, compaction: CompactionItem,
});

export const ResponseOutputItem = taggedUnion<ResponseOutputItem>('OutputItem', outputItemCodecs, true);
