import { concat, connect, defer, EMPTY, filter, map, merge, mergeMap, Observable, of, tap, throwError } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { configSecrets } from '../lib/http/config.js';
import type { ResponseCreateParams, ResponsesStreamConfig } from '../lib/http/transports.js';
import type { LaneSocket } from '../lib/ws/types.js';
import { answer, callsOf, type CallEnvironment, type CallStep } from './calls.js';
import type { Tool, ToolReturn } from './define-tool.js';
import { InvalidOptionError } from '../lib/errors.js';
import { positiveDurationMs, positiveInt } from '../lib/options.js';
import { MaxTurnsError } from './errors.js';
import type { AgentCall, AgentEvent, AgentInputItem } from './events.js';
import type { ApprovalContext, ClientToolHandlers } from './handlers.js';
import { OneResponseView } from './one-response.js';
import { httpTransport, inputItems, outputTextOf, socketTransport, TurnRecord, type TurnTransport } from './turn.js';
import { autoResumeOf, type AutoResumeOptions } from '../operators/resumeFrom.js';

export interface RunAgentOptions {
  /** Function tools by name (`{ get_weather: defineTool(…) }`), or a list of tools that carry their `name`. */
  readonly tools?: Readonly<Record<string, Tool<unknown, unknown>>> | ReadonlyArray<Tool<unknown, unknown>>;
  /** Handlers for the client-executed tools, by tool type (`shell`, `apply_patch`, `computer`, `local_shell`). */
  readonly handlers?: ClientToolHandlers;
  /**
   * Decides a call of a tool with `needsApproval`, and each MCP `mcp_approval_request`: a boolean, a Promise
   * or an Observable of one (its first value). Without it such calls are refused. `signal` aborts when the
   * run is unsubscribed before the answer (close the dialog that asks).
   */
  readonly approve?: (call: AgentCall, context: ApprovalContext) => ToolReturn<boolean>;
  /** HTTP (the default transport): where and how to reach the API. */
  readonly config?: ResponsesStreamConfig;
  /** WebSocket mode instead: every turn goes out as a `response.create` on this socket, on lane `streamId`. */
  readonly socket?: LaneSocket;
  /** The lane of this agent on `socket`. Default: a fresh `agent-…` name per run. */
  readonly streamId?: string;
  /** Any other way to send a turn (a scripted model in tests, a proxy); overrides `config` and `socket`. */
  readonly transport?: TurnTransport;
  /**
   * HTTP only (an `InvalidOptionError` with `socket` or `transport`): each turn through `resumeFrom`, so a retryable
   * interruption resumes the turn: `true` for the defaults, or resumeFrom's options and a `reconnect`. Off by default.
   */
  readonly resume?: boolean | AutoResumeOptions;
  /** Turns at most (default 10); a model still calling tools after the last one ends the run with `MaxTurnsError`. */
  readonly maxTurns?: number;
  /** Calls running at once (default 4). Their outputs are always sent in the order of the calls. */
  readonly parallel?: number;
  /** How long a call may run (ms) before its signal is aborted and the model told it timed out. Off by default. */
  readonly toolTimeoutMs?: number;
  /**
   * Show the run as one response (see `OneResponseView`): the opening events of turns after the first and the
   * terminal events of turns before the last are left out, `output_index` and `sequence_number` continue across
   * turns. For consumers that read a single response: `toChatChunks()`, an SSE client of `toResponsesSSE()`.
   * Default `false`: every turn's events as the API sent them.
   */
  readonly asOneResponse?: boolean;
}

/** What `runAgent` emits: every turn's Responses events, with the `agent.*` events between them. */
export type AgentStreamEvent = ResponseStreamEvent | AgentEvent;

let lanes = 0;

/**
 * Whether an item can be resent by value when nothing is stored: a reasoning item without `encrypted_content`
 * cannot (the API looks its id up and answers 404 "Items are not persisted when `store` is set to false").
 */
const resendable = (item: AgentInputItem): boolean => item.type !== 'reasoning' || typeof item['encrypted_content'] === 'string';

/** A function name the API accepts. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function toolMap(tools: RunAgentOptions['tools']): Map<string, Tool<unknown, unknown>> {
  const out = new Map<string, Tool<unknown, unknown>>();
  const add = (name: string | undefined, tool: Tool<unknown, unknown>): void => {
    if (!name) throw new InvalidOptionError('tools', 'a tool in a list needs a name (defineTool({ name, … }))');
    if (!TOOL_NAME.test(name)) throw new InvalidOptionError('tools', `the tool name ${JSON.stringify(name)} is not 1-64 letters, digits, _ or - (the API refuses it)`);
    if (out.has(name)) throw new InvalidOptionError('tools', `two tools are named ${JSON.stringify(name)}`);
    out.set(name, tool);
  };
  if (Array.isArray(tools)) for (const tool of tools as Array<Tool<unknown, unknown>>) add(tool.name, tool);
  else for (const [key, tool] of Object.entries((tools ?? {}) as Record<string, Tool<unknown, unknown>>)) add(tool.name ?? key, tool);
  return out;
}

/**
 * Runs the tool loop as one cold Observable: sends the request, streams the response's events, answers its
 * calls (your function tools, MCP approvals, client tools) and sends the answers back, turn after turn, until
 * the model answers without a call. Between the turns' Responses events come `agent.*` events (tool call
 * started / completed / failed, approval requested / resolved, turn finished, run finished), so the Responses
 * operators (`outputText()`, `toResponsesSSE()`, …) apply to the whole run.
 *
 * - `store` true (the API's default): each turn continues with `previous_response_id` and sends only the
 *   tool outputs. `store: false`: each turn resends the whole conversation (reasoning items with their
 *   `encrypted_content`: `reasoning.encrypted_content` is added to `include`).
 * - Calls run at once, at most `parallel` (default 4); their outputs go back in the order of the calls. A
 *   tool that throws, times out, returns an invalid value, gets arguments that do not decode, or does not
 *   exist answers the model with an error message (no stack, secrets masked) and the loop goes on.
 * - Unsubscribing aborts the request in flight and every running tool's `signal`; nothing more is sent.
 * - After `maxTurns` (default 10) turns that all called tools: `MaxTurnsError`, after that turn's events.
 * - A forced `tool_choice` (`'required'`, or a named tool) applies to the first turn only.
 *
 * ```
 * turns:   --[turn 1 events]--started--completed--turn.finished--[turn 2 events]--turn.finished--run.finished--|
 * ```
 *
 * ```ts
 * runAgent({ model: 'gpt-5.4-mini', input: 'Weather in Paris?' }, { tools: { get_weather: getWeather } })
 *   .pipe(outputText())
 *   .subscribe((text) => render(text));
 * ```
 */
export function runAgent(request: ResponseCreateParams, options: RunAgentOptions = {}): Observable<AgentStreamEvent> {
  return defer(() => {
    const maxTurns = positiveInt('maxTurns', options.maxTurns, 10);
    const parallel = positiveInt('parallel', options.parallel, 4);
    positiveDurationMs('toolTimeoutMs', options.toolTimeoutMs);
    if (options.resume && (options.socket || options.transport)) {
      throw new InvalidOptionError('resume', `HTTP turns only (config); with ${options.transport ? 'a transport of your own, put resumeFrom in it' : 'a socket, continue after an error as docs/agents.md says'}`);
    }
    const tools = toolMap(options.tools);
    const transport = options.transport
      ?? (options.socket ? socketTransport(options.socket, options.streamId ?? `agent-${Date.now().toString(36)}-${(lanes++).toString(36)}`)
        : httpTransport(options.config, autoResumeOf(options.resume)));
    const env: CallEnvironment = { tools, handlers: options.handlers ?? {}, approve: options.approve, toolTimeoutMs: options.toolTimeoutMs, secrets: configSecrets(options.config) };

    const stored = request['store'] !== false;
    const inConversation = request['conversation'] !== undefined && request['conversation'] !== null;
    const definitions = [...tools].map(([name, tool]) => tool.definition(name));
    const base: Record<string, unknown> = { ...request };
    if (definitions.length > 0) base['tools'] = [...(Array.isArray(request['tools']) ? (request['tools'] as unknown[]) : []), ...definitions];
    if (!stored) {
      const include = Array.isArray(request['include']) ? (request['include'] as unknown[]) : [];
      if (!include.includes('reasoning.encrypted_content')) base['include'] = [...include, 'reasoning.encrypted_content'];
    }
    const conversation: AgentInputItem[] = [...inputItems(request['input'])];
    // A forced tool choice ('required', or one named tool) is for the first turn: kept, it would force a call
    // on every turn and the run could never end. Later turns go back to the API's default ('auto').
    const choice = request['tool_choice'];
    const later: Record<string, unknown> = { ...base };
    if (choice !== undefined && choice !== 'auto' && choice !== 'none') delete later['tool_choice'];

    const view = options.asOneResponse ? new OneResponseView() : undefined;
    const turn = (n: number, body: ResponseCreateParams): Observable<AgentStreamEvent> => {
      const record = new TurnRecord();
      const events = transport(body, { turn: n }).pipe(tap((e) => record.see(e)));
      const last = (): boolean => n >= maxTurns || callsOf(record.items(), n).length === 0;
      const shown = view
        ? events.pipe(map((e) => view.adapt(e, n, last, () => record.items())), filter((e): e is ResponseStreamEvent => e !== undefined))
        : events;
      return concat(shown, defer(() => afterTurn(n, record)));
    };

    const afterTurn = (n: number, record: TurnRecord): Observable<AgentStreamEvent> => {
      const items = record.items();
      conversation.push(...items);
      const calls = callsOf(items, n);
      if (calls.length === 0) {
        const finished: AgentEvent[] = [
          { type: 'agent.turn.finished', turn: n, response_id: record.responseId, items, outputs: [] },
          { type: 'agent.run.finished', turns: n, response_id: record.responseId, items: [...conversation], output_text: outputTextOf(items) },
        ];
        return of(...finished);
      }
      const outputs: AgentInputItem[] = new Array<AgentInputItem>(calls.length);
      const answered = answerAll(env, calls, parallel).pipe(
        tap((s) => {
          if (s.kind === 'output') outputs[s.index] = s.item;
        }),
        mergeMap((s) => (s.kind === 'event' ? of(s.event) : EMPTY)),
      );
      const next = defer(() => {
        conversation.push(...outputs);
        const done: AgentEvent = { type: 'agent.turn.finished', turn: n, response_id: record.responseId, items, outputs: [...outputs] };
        if (n >= maxTurns) return concat(of(done), throwError(() => new MaxTurnsError(maxTurns, record.responseId, [...conversation])));
        // In a conversation (Conversations API) it holds the state, and previous_response_id may not be set with
        // it: the tool outputs alone. Stored: the tool outputs after the response that asked for them. Not stored
        // (or no id): everything again.
        const body: Record<string, unknown> = inConversation
          ? { ...later, input: [...outputs] }
          : stored && record.responseId !== undefined
            ? { ...later, input: [...outputs], previous_response_id: record.responseId }
            : { ...later, input: conversation.filter(resendable) };
        view?.endTurn(items);
        return concat(of(done), turn(n + 1, body as ResponseCreateParams));
      });
      return concat(answered, next);
    };

    return turn(1, base as ResponseCreateParams);
  });
}

/**
 * The steps answering a turn's calls: approvals asked at once, runs at most `parallel` at a time, in call
 * order as slots free up. `connect` subscribes both branches before the first (synchronous) step.
 */
function answerAll(env: CallEnvironment, calls: readonly AgentCall[], parallel: number): Observable<CallStep> {
  return merge(...calls.map((call) => answer(env, call))).pipe(
    connect((steps) =>
      merge(
        steps.pipe(filter((s) => s.kind !== 'ready')),
        steps.pipe(
          filter((s): s is Extract<CallStep, { kind: 'ready' }> => s.kind === 'ready'),
          mergeMap((s) => s.run, parallel),
        ),
      ),
    ),
  );
}
