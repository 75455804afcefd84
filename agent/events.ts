// The `agent.*` events runAgent emits between the Responses events of its turns. They are type aliases (not
// interfaces) so that each is also an `UnknownEvent`: every Responses operator takes the merged stream and
// passes them by, as it passes any event type it does not know.

/** The item types runAgent answers: your function tools, MCP approvals, and the client-executed tools. */
export type AgentCallType = 'function_call' | 'mcp_approval_request' | 'shell_call' | 'apply_patch_call' | 'computer_call' | 'local_shell_call' | 'custom_tool_call';

/** One call of a turn, as the agent events and `approve` see it. */
export type AgentCall = {
  readonly type: AgentCallType;
  /** The item's `call_id` (for an `mcp_approval_request`, its `id`, which the approval answers). */
  readonly call_id: string;
  /** The function's or MCP tool's name; `undefined` for the client tools. */
  readonly name: string | undefined;
  /** The raw argument string of a function / MCP call. */
  readonly arguments: string | undefined;
  /** The decoded arguments of a function call, once they decoded. */
  readonly args?: unknown;
  /** The output item as the model sent it (`response.output_item.done`). */
  readonly item: { readonly type: string; readonly [key: string]: unknown };
  /** The turn (1-based) and the call's place among the turn's calls (0-based). */
  readonly turn: number;
  readonly index: number;
};

/** Why a call's output is an error: what went wrong, for code to branch on (the `message` went to the model). */
export type ToolFailureReason =
  | 'unknown_tool' // no tool of that name, or no handler for that client tool type
  | 'invalid_arguments' // the argument string is not JSON, or does not decode with the tool's parameters
  | 'tool_error' // execute threw, rejected or errored
  | 'invalid_result' // the result is undefined, not JSON-serializable, or fails the tool's `result` codec
  | 'timeout' // no result within `toolTimeoutMs` (its signal was aborted)
  | 'refused'; // approval was refused

/** `agent.approval.requested`: a call waits for `options.approve(call)`. */
export type AgentApprovalRequestedEvent = { readonly type: 'agent.approval.requested'; readonly turn: number; readonly call: AgentCall };
/** `agent.approval.resolved`: `approve` answered (`false` also when it failed or there is no `approve`). */
export type AgentApprovalResolvedEvent = { readonly type: 'agent.approval.resolved'; readonly turn: number; readonly call: AgentCall; readonly approved: boolean };
/** `agent.tool_call.started`: the tool (or client-tool handler) is running. */
export type AgentToolCallStartedEvent = { readonly type: 'agent.tool_call.started'; readonly turn: number; readonly call: AgentCall };
/** `agent.tool_call.completed`: it returned; `result` is its value, `output` the item that goes to the model. */
export type AgentToolCallCompletedEvent = {
  readonly type: 'agent.tool_call.completed';
  readonly turn: number;
  readonly call: AgentCall;
  readonly result: unknown;
  readonly output: AgentInputItem;
};
/** `agent.tool_call.failed`: the model gets `output`, an error message; the loop goes on. */
export type AgentToolCallFailedEvent = {
  readonly type: 'agent.tool_call.failed';
  readonly turn: number;
  readonly call: AgentCall;
  readonly reason: ToolFailureReason;
  /** What the model was told (no stack, secrets masked). */
  readonly message: string;
  readonly output: AgentInputItem;
};
/** `agent.turn.finished`: a response ended and its calls were answered; `outputs` go into the next request. */
export type AgentTurnFinishedEvent = {
  readonly type: 'agent.turn.finished';
  readonly turn: number;
  readonly response_id: string | undefined;
  /** The response's output items. */
  readonly items: readonly AgentInputItem[];
  /** The answers to its calls, in the order of the calls (empty on the last turn). */
  readonly outputs: readonly AgentInputItem[];
};
/** `agent.run.finished`: the model answered without calling a tool. The last event before completion. */
export type AgentRunFinishedEvent = {
  readonly type: 'agent.run.finished';
  readonly turns: number;
  /** The last response's id (continue with `previous_response_id` when it was stored). */
  readonly response_id: string | undefined;
  /** Every item of the conversation (the request's input as items, each turn's output and tool outputs): the next request's `input`. */
  readonly items: readonly AgentInputItem[];
  /** The text of the last response's messages. */
  readonly output_text: string;
};

export type AgentEvent =
  | AgentApprovalRequestedEvent | AgentApprovalResolvedEvent | AgentToolCallStartedEvent | AgentToolCallCompletedEvent
  | AgentToolCallFailedEvent | AgentTurnFinishedEvent | AgentRunFinishedEvent;

/** An item of a request's `input` (a message, an output item resent, a tool output). */
export type AgentInputItem = { readonly type?: string; readonly [key: string]: unknown };

export const AGENT_EVENT_TYPES: ReadonlySet<AgentEvent['type']> = new Set([
  'agent.approval.requested', 'agent.approval.resolved', 'agent.tool_call.started', 'agent.tool_call.completed',
  'agent.tool_call.failed', 'agent.turn.finished', 'agent.run.finished',
]);

/** Whether an event of runAgent's output is one of its own `agent.*` events. */
export function isAgentEvent(e: { readonly type: string }): e is AgentEvent {
  return AGENT_EVENT_TYPES.has(e.type as AgentEvent['type']);
}
