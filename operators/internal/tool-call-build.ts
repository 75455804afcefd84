// The ToolCall values collectToolCalls emits, built from what it tracked of a call (not exported from the package).
import type { CustomToolCall, FunctionToolCall, McpToolCall, ParsedArguments, ToolCall, ToolCallState, ToolSearchToolCall } from '../collectToolCalls.js';
import { field, stringField } from './parts.js';

export const CLIENT_TYPES = new Set<string>([
  'function_call', 'custom_tool_call', 'mcp_call', 'mcp_approval_request', 'computer_call', 'local_shell_call', 'shell_call', 'apply_patch_call',
]);
export const HOSTED_TYPES = new Set<string>(['web_search_call', 'file_search_call', 'code_interpreter_call', 'image_generation_call']);

export interface CallState {
  type: string;
  item: unknown;
  itemId: string | undefined;
  /** Assembled from the deltas (on top of what `output_item.added` carried, as the API's own accumulator does). */
  args: string;
  /** From the `.done` event, which wins over the deltas. */
  argsDone: string | undefined;
  name: string | undefined;
  /** Concatenations of `args` since it was last flattened (see grow). */
  n: number;
}

function parse(s: string): ParsedArguments {
  try {
    return { ok: true, value: JSON.parse(s) as unknown };
  } catch (e) {
    return { ok: false, error: e instanceof SyntaxError ? e : new SyntaxError(String(e)) };
  }
}

export function build(st: CallState, outputIndex: number, state: ToolCallState, fromItem: boolean): ToolCall {
  const item = st.item;
  const argKey = st.type === 'custom_tool_call' ? 'input' : 'arguments';
  // The closed item is authoritative; before it, the `.done` string, then the deltas.
  const raw = (fromItem ? stringField(item, argKey) : undefined) ?? st.argsDone ?? st.args;
  const base = {
    state,
    outputIndex,
    itemId: stringField(item, 'id') ?? st.itemId,
    status: stringField(item, 'status'),
    item,
  };
  const name = stringField(item, 'name') ?? st.name ?? '';
  const callId = stringField(item, 'call_id') ?? '';
  const parsed = state === 'partial' ? undefined : parse(raw);
  switch (st.type) {
    case 'function_call':
      return { type: 'function_call', ...base, callId, name, arguments: raw, ...(parsed && { parsed }) } as FunctionToolCall;
    case 'custom_tool_call':
      return { type: 'custom_tool_call', ...base, callId, name, input: raw } as CustomToolCall;
    case 'tool_search_call':
      return { type: 'tool_search_call', ...base, callId, execution: stringField(item, 'execution') ?? '', arguments: field(item, 'arguments') } as ToolSearchToolCall;
    case 'mcp_call':
    case 'mcp_approval_request':
      return { type: st.type, ...base, serverLabel: stringField(item, 'server_label') ?? '', name, arguments: raw, ...(parsed && { parsed }) } as McpToolCall;
    default:
      return (HOSTED_TYPES.has(st.type) ? { type: st.type, ...base } : { type: st.type, ...base, callId }) as ToolCall;
  }
}
