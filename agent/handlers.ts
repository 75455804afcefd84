import type { ApplyPatchCall, ComputerCall, LocalShellCall, ShellCall } from '../lib/events/items.js';
import type { ToolContext, ToolReturn } from './define-tool.js';

// The client-executed tools of the Responses API: the model asks, your code acts, and the loop answers with
// the output item each type needs. Declare the tool in the request's `tools` ({ type: 'shell' }, …) and
// register its handler under the same type.

/** One command's result, for `shell_call_output` (`outcome.type: 'timeout'` when it was cut off). */
export type ShellCommandOutput = {
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: { readonly type: 'exit'; readonly exit_code: number } | { readonly type: 'timeout' };
};

/** The result of applying a patch, for `apply_patch_call_output` (a string means `completed` with that output). */
export type ApplyPatchResult = { readonly status: 'completed' | 'failed'; readonly output?: string } | string;

/** A screenshot after the action, for `computer_call_output`; acknowledge the call's `pending_safety_checks` here. */
export type ComputerScreenshot = {
  readonly image_url?: string;
  readonly file_id?: string;
  readonly acknowledged_safety_checks?: ReadonlyArray<{ readonly id: string; readonly code?: string | null; readonly message?: string | null }>;
};

/**
 * Handlers by item type. Each gets the call item (its `action` / `operation`) and the same context as a
 * function tool (`signal`, `callId`, `turn`), and answers with:
 * - `shell` (`shell_call` → `shell_call_output`): one `ShellCommandOutput` per command in `action.commands`;
 *   `max_output_length` is copied from the call.
 * - `apply_patch` (`apply_patch_call` → `apply_patch_call_output`): `{ status, output? }`.
 * - `computer` (`computer_call` → `computer_call_output`): a `computer_screenshot`.
 * - `local_shell` (`local_shell_call` → `local_shell_call_output`, whose `id` is the call's `call_id`): any
 *   value, sent as JSON (a string as it is).
 *
 * A handler that throws or times out answers with an error the model reads (a shell exit code 1 with the
 * message on stderr, a `failed` patch, …); only `computer` cannot say "failed" and ends the run (`ClientToolError`).
 */
export interface ClientToolHandlers {
  readonly shell?: (call: ShellCall, context: ToolContext) => ToolReturn<ShellCommandOutput | readonly ShellCommandOutput[]>;
  readonly apply_patch?: (call: ApplyPatchCall, context: ToolContext) => ToolReturn<ApplyPatchResult>;
  readonly computer?: (call: ComputerCall, context: ToolContext) => ToolReturn<ComputerScreenshot>;
  readonly local_shell?: (call: LocalShellCall, context: ToolContext) => ToolReturn<unknown>;
}

/** What `approve` receives besides the call. */
export interface ApprovalContext {
  /** Aborted when the run is unsubscribed while the call waits for the answer. */
  readonly signal: AbortSignal;
}
