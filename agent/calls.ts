import { catchError, defaultIfEmpty, defer, from, isObservable, map, Observable, of, take, takeLast, throwError, timeout, type Subscription } from 'rxjs';
import type { Secrets } from '../lib/redact.js';
import type { Tool, ToolContext, ToolReturn } from './define-tool.js';
import type { AgentCall, AgentCallType, AgentEvent, AgentInputItem, ToolFailureReason } from './events.js';
import { ClientToolError } from './errors.js';
import { forModel, isInstance, messageOf } from './failure-text.js';
import { errorOutput, resultOutput } from './outputs.js';
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
  readonly toolTimeoutMs: number | undefined;
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

/** How a tool answered; a value that cannot even be asked (a Proxy whose traps throw) is a plain result, which its check then refuses. */
function returnKind(r: unknown): 'observable' | 'promise' | 'value' {
  try {
    if (isObservable(r)) return 'observable';
    return r !== null && typeof r === 'object' && typeof (r as PromiseLike<unknown>).then === 'function' ? 'promise' : 'value';
  } catch {
    return 'value';
  }
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
      const kind = returnKind(r);
      if (kind === 'observable') inner = (r as Observable<R>).pipe(takeLast(1), defaultIfEmpty(undefined)).subscribe({ next: done, error: fail });
      else if (kind === 'promise') (r as PromiseLike<R>).then((v) => !subscriber.closed && done(v), (e: unknown) => !subscriber.closed && fail(e));
      else done(r as R);
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
    let checked: ReturnType<typeof tool.check>;
    try {
      checked = tool.check(json);
    } catch (e) {
      // A codec of the application's own that throws: the arguments cannot be checked, so the call does not run.
      return { steps: failed(call, 'invalid_arguments', `the arguments of ${call.name} cannot be checked: ${messageOf(e, env.secrets)}`) };
    }
    if (!checked.ok) return { steps: failed(call, 'invalid_arguments', `the arguments of ${call.name} are invalid: ${forModel(checked.error, env.secrets)}`) };
    const decoded: AgentCall = { ...call, args: checked.value };
    const runnable = running(env, decoded, tool.timeoutMs ?? env.toolTimeoutMs, (ctx) => tool.execute(checked.value, ctx), (r) => tool.checkResult(r));
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
  return { runnable: running(env, call, env.toolTimeoutMs, (ctx) => handler(call.item as never, ctx), () => undefined), needsApproval: false };
}

function running(env: CallEnvironment, call: AgentCall, ms: number | undefined, run: (ctx: ToolContext) => ToolReturn<unknown>, check: (r: unknown) => string | undefined): Runnable {
  const steps = new Observable<CallStep>((subscriber) => {
    subscriber.next(event({ type: 'agent.tool_call.started', turn: call.turn, call }));
    const result = withTimeout(execute((signal) => run({ signal, callId: call.call_id, turn: call.turn, call })), ms).pipe(
      map((value): CallStep[] => {
        let out: ReturnType<typeof resultOutput>;
        try {
          const invalid = check(value);
          if (invalid) return failed(call, 'invalid_result', invalid);
          out = resultOutput(call, value, env.secrets);
        } catch (e) {
          // Reading the result threw (a getter, a Proxy, a result codec): it cannot be sent, as any failure says.
          if (isInstance(e, ClientToolError)) throw e;
          return failed(call, 'invalid_result', `the result of ${call.name ?? call.type} cannot be read: ${messageOf(e, env.secrets)}`);
        }
        if ('error' in out) return failed(call, 'invalid_result', out.error);
        const output = out.item;
        return [event({ type: 'agent.tool_call.completed', turn: call.turn, call, result: value, output }), { kind: 'output', index: call.index, item: output }];
      }),
      catchError((e: unknown) => {
        // Asked without trusting `e`: a Proxy's traps may throw (isInstance, messageOf never do).
        if (isInstance(e, ClientToolError)) return throwError(() => e);
        if (isInstance(e, ToolTimeout)) return of(failed(call, 'timeout', `${call.name ?? call.type} did not answer within ${(e as ToolTimeout).ms} ms`));
        return of(failed(call, 'tool_error', `${call.name ?? call.type} failed: ${messageOf(e, env.secrets)}`));
      }),
    );
    return result.subscribe({ next: (list) => list.forEach((s) => subscriber.next(s)), error: (e: unknown) => subscriber.error(e), complete: () => subscriber.complete() });
  });
  return Object.assign(steps, { call });
}
