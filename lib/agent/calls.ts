import { catchError, defaultIfEmpty, defer, from, isObservable, map, Observable, of, take, takeLast, throwError, timeout, type Subscription } from 'rxjs';
import { redactThenCut, type Secrets } from '../redact.js';
import type { Tool, ToolContext, ToolReturn } from './define-tool.js';
import type { AgentCall, AgentCallType, AgentEvent, AgentInputItem, ToolFailureReason } from './events.js';
import { ClientToolError } from './errors.js';
import type { ApprovalContext, ClientToolHandlers } from './handlers.js';

// One call of a turn, from the model's item to the item that answers it: decode, approve, run, answer.

/** A step of answering the calls: an agent event, a call ready to run, or a call's answer. */
export type CallStep =
  | { readonly kind: 'event'; readonly event: AgentEvent }
  | { readonly kind: 'ready'; readonly run: Observable<CallStep> }
  | { readonly kind: 'output'; readonly index: number; readonly item: AgentInputItem };

export interface CallEnvironment {
  readonly tools: ReadonlyMap<string, Tool<unknown, unknown>>;
  readonly handlers: ClientToolHandlers;
  readonly approve: ((call: AgentCall, context: ApprovalContext) => ToolReturn<boolean>) | undefined;
  readonly toolTimeout: number | undefined;
  readonly secrets: Secrets;
}

/** The item types this side answers (a call of the model to a tool of the agent). */
export const ANSWERED: ReadonlySet<string> = new Set<AgentCallType>(['function_call', 'mcp_approval_request', 'shell_call', 'apply_patch_call', 'computer_call', 'local_shell_call', 'custom_tool_call']);

/** The items of a turn that wait for an answer from this side, as calls in output order. */
export function callsOf(items: readonly AgentInputItem[], turn: number): AgentCall[] {
  const calls: AgentCall[] = [];
  for (const item of items) {
    const type = item.type;
    if (type === undefined || !ANSWERED.has(type)) continue;
    const callId = type === 'mcp_approval_request' ? item['id'] : item['call_id'];
    if (typeof callId !== 'string') continue;
    const name = typeof item['name'] === 'string' ? item['name'] : undefined;
    const args = typeof item['arguments'] === 'string' ? item['arguments'] : undefined;
    calls.push({ type: type as AgentCallType, call_id: callId, name, arguments: args, item: item as AgentCall['item'], turn, index: calls.length });
  }
  return calls;
}

const MAX_MESSAGE = 500;

/** A line of a stack trace (V8 `    at f (file:1:2)`, Firefox / Safari `f@file:1:2`). */
const STACK_FRAME = /^\s+at\s|^\s*[\w$.<>]*@\S+:\d+(?::\d+)?\s*$/;

/** Text for the model: stack frames (a wrapped error's stack folded into a message) left out, secrets masked, cut. */
function forModel(text: string, secrets: Secrets): string {
  const lines = text.split('\n');
  const frame = lines.findIndex((l) => STACK_FRAME.test(l));
  const kept = (frame < 0 ? lines : lines.slice(0, frame)).join('\n').trimEnd();
  return redactThenCut(kept === '' ? 'unknown error' : kept, MAX_MESSAGE, secrets);
}

/** What a thrown value says, masked and cut: never a stack. An Error without a message says its name. */
function messageOf(e: unknown, secrets: Secrets): string {
  const m = e instanceof Error ? e.message : typeof e === 'string' ? e : (e as { message?: unknown } | null)?.message;
  if (typeof m === 'string' && m !== '') return forModel(m, secrets);
  return e instanceof Error && e.name !== '' && e.name !== 'Error' ? forModel(e.name, secrets) : 'unknown error';
}

class ToolTimeout {
  constructor(readonly ms: number) {}
}

/**
 * A tool's return as an Observable of one value, its `signal` aborted when unsubscribed before it settled.
 * An Observable's last value is the result (none: `undefined`).
 */
function execute<R>(run: (signal: AbortSignal) => ToolReturn<R>): Observable<R | undefined> {
  return new Observable<R | undefined>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    let inner: Subscription | undefined;
    const done = (v: R | undefined): void => {
      settled = true;
      subscriber.next(v);
      subscriber.complete();
    };
    const fail = (e: unknown): void => {
      settled = true;
      subscriber.error(e);
    };
    try {
      const r = run(controller.signal);
      if (isObservable(r)) inner = (r as Observable<R>).pipe(takeLast(1), defaultIfEmpty(undefined)).subscribe({ next: done, error: fail });
      else if (r !== null && typeof r === 'object' && typeof (r as PromiseLike<R>).then === 'function') {
        (r as PromiseLike<R>).then((v) => !subscriber.closed && done(v), (e: unknown) => !subscriber.closed && fail(e));
      } else done(r as R);
    } catch (e) {
      fail(e);
    }
    return () => {
      inner?.unsubscribe();
      if (!settled) controller.abort();
    };
  });
}

function withTimeout<T>(source: Observable<T>, ms: number | undefined): Observable<T> {
  return ms === undefined ? source : source.pipe(timeout({ first: ms, with: () => throwError(() => new ToolTimeout(ms)) }));
}

/** `undefined` when the value can be sent (a string, or JSON), else why not. */
function serialize(value: unknown): { text: string } | { error: string } {
  if (typeof value === 'string') return { text: value };
  if (value === undefined) return { error: 'the tool returned no value' };
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? { text } : { error: `the tool returned a ${typeof value}, which is not JSON` };
  } catch (e) {
    return { error: `the result cannot be sent as JSON (${e instanceof Error ? e.message : 'not serializable'})` };
  }
}

/** The output item that answers `call` with an error the model can read. */
function errorOutput(call: AgentCall, message: string, timedOut = false): AgentInputItem {
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
function resultOutput(call: AgentCall, result: unknown): { readonly item: AgentInputItem } | { readonly error: string } {
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
      const s = serialize(result);
      if ('error' in s) return s;
      return call.type === 'local_shell_call'
        ? { item: { type: 'local_shell_call_output', id: call.call_id, output: s.text } }
        : { item: { type: 'function_call_output', call_id: call.call_id, output: s.text } };
    }
  }
}

const event = (e: AgentEvent): CallStep => ({ kind: 'event', event: e });

function failed(call: AgentCall, reason: ToolFailureReason, message: string): CallStep[] {
  if (call.type === 'computer_call') throw new ClientToolError(call.call_id, reason, message);
  const output = errorOutput(call, message, reason === 'timeout');
  return [event({ type: 'agent.tool_call.failed', turn: call.turn, call, reason, message, output }), { kind: 'output', index: call.index, item: output }];
}

/**
 * Asks `approve`; anything but a first value of `true` (an error, no value, no `approve`) is a refusal. An
 * Observable's *first* value decides (a stream of clicks need not complete), and it is unsubscribed then.
 */
function approval(env: CallEnvironment, call: AgentCall): Observable<boolean> {
  const ask = env.approve;
  if (!ask) return of(false);
  return new Observable<boolean>((subscriber) => {
    const controller = new AbortController();
    const answer = defer(() => {
      const r = ask(call, { signal: controller.signal });
      if (isObservable(r)) return r.pipe(take(1));
      return r !== null && typeof r === 'object' && typeof (r as PromiseLike<boolean>).then === 'function' ? from(r as PromiseLike<boolean>) : of(r as boolean);
    }).pipe(map((v) => v === true), defaultIfEmpty(false), catchError(() => of(false)));
    let settled = false;
    const sub = answer.subscribe({
      next: (v) => ((settled = true), subscriber.next(v)),
      complete: () => subscriber.complete(),
    });
    return () => {
      sub.unsubscribe();
      if (!settled) controller.abort();
    };
  });
}

/**
 * The steps that answer one call. Synchronous steps (unknown tool, bad arguments) come at once; a call that
 * needs approval emits `agent.approval.requested`, then waits; a call that may run emits `ready` with the
 * Observable that runs it (the caller limits how many run at once).
 */
export function answer(env: CallEnvironment, call: AgentCall): Observable<CallStep> {
  return new Observable<CallStep>((subscriber) => {
    const emit = (steps: CallStep[]): void => steps.forEach((s) => subscriber.next(s));
    try {
      if (call.type === 'mcp_approval_request') {
        emit([event({ type: 'agent.approval.requested', turn: call.turn, call })]);
        return approval(env, call).subscribe((approved) => {
          const item = { type: 'mcp_approval_response', approval_request_id: call.call_id, approve: approved };
          emit([event({ type: 'agent.approval.resolved', turn: call.turn, call, approved }), { kind: 'output', index: call.index, item }]);
          subscriber.complete();
        });
      }
      const prepared = prepare(env, call);
      if ('steps' in prepared) {
        emit(prepared.steps);
        subscriber.complete();
        return undefined;
      }
      const { runnable, needsApproval } = prepared;
      if (!needsApproval) {
        subscriber.next({ kind: 'ready', run: runnable });
        subscriber.complete();
        return undefined;
      }
      emit([event({ type: 'agent.approval.requested', turn: call.turn, call: runnable.call })]);
      return approval(env, runnable.call).subscribe({
        next: (approved) => {
          emit([event({ type: 'agent.approval.resolved', turn: call.turn, call: runnable.call, approved })]);
          if (approved) subscriber.next({ kind: 'ready', run: runnable });
          else emit(failed(runnable.call, 'refused', `the call was not approved, so ${call.name ?? call.type} did not run`));
          subscriber.complete();
        },
        error: (e: unknown) => subscriber.error(e),
      });
    } catch (e) {
      subscriber.error(e);
      return undefined;
    }
  });
}

type Runnable = Observable<CallStep> & { readonly call: AgentCall };
type Prepared = { readonly steps: CallStep[] } | { readonly runnable: Runnable; readonly needsApproval: boolean };

function prepare(env: CallEnvironment, call: AgentCall): Prepared {
  if (call.type === 'function_call') {
    const tool = call.name === undefined ? undefined : env.tools.get(call.name);
    if (!tool) return { steps: failed(call, 'unknown_tool', `there is no tool named ${JSON.stringify(call.name ?? '')}; the tools are: ${[...env.tools.keys()].join(', ') || 'none'}`) };
    let json: unknown;
    try {
      // No arguments at all ("", as some providers send for a tool without parameters) are an empty object.
      const text = call.arguments ?? '';
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      return { steps: failed(call, 'invalid_arguments', `the arguments of ${call.name} are not valid JSON`) };
    }
    const checked = tool.check(json);
    if (!checked.ok) return { steps: failed(call, 'invalid_arguments', `the arguments of ${call.name} are invalid: ${forModel(checked.error, env.secrets)}`) };
    const decoded: AgentCall = { ...call, args: checked.value };
    const runnable = running(env, decoded, tool.timeout ?? env.toolTimeout, (ctx) => tool.execute(checked.value, ctx), (r) => tool.checkResult(r));
    let needs: boolean;
    try {
      needs = tool.needsApproval(checked.value, decoded);
    } catch {
      needs = true; // a failing check asks rather than runs
    }
    return { runnable, needsApproval: needs };
  }
  // Registered under the tool's type: `shell` answers `shell_call` items.
  const type = call.type.replace(/_call$/, '') as keyof ClientToolHandlers;
  const handler = (Object.prototype.hasOwnProperty.call(env.handlers, type) ? env.handlers[type] : undefined) as ((item: never, ctx: ToolContext) => ToolReturn<unknown>) | undefined;
  if (!handler) return { steps: failed(call, 'unknown_tool', `no handler runs ${call.type} items here`) };
  return { runnable: running(env, call, env.toolTimeout, (ctx) => handler(call.item as never, ctx), () => undefined), needsApproval: false };
}

function running(env: CallEnvironment, call: AgentCall, ms: number | undefined, run: (ctx: ToolContext) => ToolReturn<unknown>, check: (r: unknown) => string | undefined): Runnable {
  const steps = new Observable<CallStep>((subscriber) => {
    subscriber.next(event({ type: 'agent.tool_call.started', turn: call.turn, call }));
    const result = withTimeout(execute((signal) => run({ signal, callId: call.call_id, turn: call.turn, call })), ms).pipe(
      map((value): CallStep[] => {
        const invalid = check(value);
        if (invalid) return failed(call, 'invalid_result', invalid);
        const out = resultOutput(call, value);
        if ('error' in out) return failed(call, 'invalid_result', out.error);
        const output = out.item;
        return [event({ type: 'agent.tool_call.completed', turn: call.turn, call, result: value, output }), { kind: 'output', index: call.index, item: output }];
      }),
      catchError((e: unknown) => {
        if (e instanceof ClientToolError) return throwError(() => e);
        if (e instanceof ToolTimeout) return of(failed(call, 'timeout', `${call.name ?? call.type} did not answer within ${e.ms} ms`));
        return of(failed(call, 'tool_error', `${call.name ?? call.type} failed: ${messageOf(e, env.secrets)}`));
      }),
    );
    return result.subscribe({ next: (list) => list.forEach((s) => subscriber.next(s)), error: (e: unknown) => subscriber.error(e), complete: () => subscriber.complete() });
  });
  return Object.assign(steps, { call });
}
