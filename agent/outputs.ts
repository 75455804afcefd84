import type { Secrets } from '../lib/redact.js';
import type { AgentCall, AgentInputItem } from './events.js';
import { messageOf } from './failure-text.js';

// The output items that answer a call: each call type's own item for a result, or for an error the model reads.

/** The value as the text to send (a string, or JSON), else why not (what JSON.stringify threw, masked like any failure). */
function serialize(value: unknown, secrets: Secrets): { text: string } | { error: string } {
  if (typeof value === 'string') return { text: value };
  if (value === undefined) return { error: 'the tool returned no value' };
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? { text } : { error: `the tool returned a ${typeof value}, which is not JSON` };
  } catch (e) {
    // A throwing toJSON, a cycle, a BigInt: its text may quote anything the result held.
    return { error: `the result cannot be sent as JSON: ${messageOf(e, secrets)}` };
  }
}

/** The output item that answers `call` with an error the model can read. */
export function errorOutput(call: AgentCall, message: string, timedOut = false): AgentInputItem {
  const text = `Error: ${message}`;
  switch (call.type) {
    case 'shell_call':
      return shellOutput(call, [{ stdout: '', stderr: text, outcome: timedOut ? { type: 'timeout' } : { type: 'exit', exit_code: 1 } }]);
    case 'apply_patch_call':
      return { type: 'apply_patch_call_output', call_id: call.call_id, status: 'failed', output: text };
    case 'local_shell_call':
      return { type: 'local_shell_call_output', id: call.call_id, output: JSON.stringify({ error: text }) };
    case 'custom_tool_call':
      return { type: 'custom_tool_call_output', call_id: call.call_id, output: text };
    default:
      return { type: 'function_call_output', call_id: call.call_id, output: text };
  }
}

function shellOutput(call: AgentCall, output: unknown): AgentInputItem {
  const max = (call.item['action'] as { max_output_length?: unknown } | undefined)?.max_output_length;
  return { type: 'shell_call_output', call_id: call.call_id, output, ...(typeof max === 'number' ? { max_output_length: max } : {}) };
}

/** The output item for a handler's or tool's result; `{ error }` when the result does not fit the item. */
export function resultOutput(call: AgentCall, result: unknown, secrets: Secrets): { readonly item: AgentInputItem } | { readonly error: string } {
  switch (call.type) {
    case 'shell_call': {
      const list = Array.isArray(result) ? result : [result];
      const ok = list.every((o: { stdout?: unknown; stderr?: unknown; outcome?: { type?: unknown } } | null) => typeof o?.stdout === 'string' && typeof o?.stderr === 'string' && (o?.outcome?.type === 'exit' || o?.outcome?.type === 'timeout'));
      return ok ? { item: shellOutput(call, list) } : { error: 'a shell handler must return { stdout, stderr, outcome: { type: "exit", exit_code } | { type: "timeout" } } (or a list of them, one per command)' };
    }
    case 'apply_patch_call': {
      if (typeof result === 'string') return { item: { type: 'apply_patch_call_output', call_id: call.call_id, status: 'completed', output: result } };
      const r = result as { status?: unknown; output?: unknown } | null;
      if (r?.status !== 'completed' && r?.status !== 'failed') return { error: 'an apply_patch handler must return { status: "completed" | "failed", output? } or a string' };
      return { item: { type: 'apply_patch_call_output', call_id: call.call_id, status: r.status, ...(typeof r.output === 'string' ? { output: r.output } : {}) } };
    }
    case 'computer_call': {
      const r = result as { image_url?: unknown; file_id?: unknown; acknowledged_safety_checks?: unknown } | null;
      if (typeof r?.image_url !== 'string' && typeof r?.file_id !== 'string') return { error: 'a computer handler must return a screenshot: { image_url } or { file_id }' };
      const output = { type: 'computer_screenshot', ...(typeof r.image_url === 'string' ? { image_url: r.image_url } : {}), ...(typeof r.file_id === 'string' ? { file_id: r.file_id } : {}) };
      return { item: { type: 'computer_call_output', call_id: call.call_id, output, ...(Array.isArray(r.acknowledged_safety_checks) ? { acknowledged_safety_checks: r.acknowledged_safety_checks } : {}) } };
    }
    default: {
      const s = serialize(result, secrets);
      if ('error' in s) return s;
      return call.type === 'local_shell_call'
        ? { item: { type: 'local_shell_call_output', id: call.call_id, output: s.text } }
        : { item: { type: 'function_call_output', call_id: call.call_id, output: s.text } };
    }
  }
}
