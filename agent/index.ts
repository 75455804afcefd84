// The agent loop: defineTool (a tool from an io-ts codec; the schema derivation is lib/schema/), runAgent (turns over HTTP or a WebSocket lane), agent.* events.
export { runAgent, type RunAgentOptions, type AgentStreamEvent } from './run-agent.js';
export { defineTool, type Tool, type ToolContext, type ToolReturn, type ArgumentsCheck, type Checked, type CodecToolOptions, type SchemaToolOptions, type FunctionToolDefinition } from './define-tool.js';
export type { TurnTransport, TurnContext } from './turn.js';
export type { ApprovalContext, ClientToolHandlers, ShellCommandOutput, ApplyPatchResult, ComputerScreenshot } from './handlers.js';
export { MaxTurnsError, ClientToolError } from './errors.js';
export {
  isAgentEvent, AGENT_EVENT_TYPES, type AgentEvent, type AgentCall, type AgentCallType, type AgentInputItem, type ToolFailureReason,
  type AgentApprovalRequestedEvent, type AgentApprovalResolvedEvent, type AgentToolCallStartedEvent, type AgentToolCallCompletedEvent,
  type AgentToolCallFailedEvent, type AgentTurnFinishedEvent, type AgentRunFinishedEvent,
} from './events.js';
