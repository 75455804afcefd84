import { Observable, type OperatorFunction, type Subscriber, type Subscription } from 'rxjs';
import type {
  ApplyPatchCall, CodeInterpreterCall, ComputerCall, FileSearchCall, ImageGenerationCall, LocalShellCall, McpApprovalRequest,
  McpCall, ResponseCustomToolCall, ResponseFunctionToolCall, ShellCall, ToolSearchCall, WebSearchCall,
} from '../lib/events/items.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { keepWarm } from '../lib/warmup.js';
import { grow } from './internal/grow.js';
import { ItemBook } from './internal/items.js';
import { build, CLIENT_TYPES, HOSTED_TYPES, type CallState } from './internal/tool-call-build.js';
import { asRecord, field, isIndex, isTerminalType, sortedKeys, stringField } from './internal/parts.js';

/**
 * `partial`: arguments still streaming (only with `{ partial: true }`).
 * `complete`: the item closed (`response.output_item.done`, or the completed response's `output`).
 * `incomplete`: the response ended (cut off, failed, token limit) before the item closed, or closed it
 * with `status: "incomplete"` (only with `{ incomplete: true }`; left out otherwise).
 */
export type ToolCallState = 'partial' | 'complete' | 'incomplete';

/** The result of `JSON.parse` on an argument string: never thrown, reported here. */
export type ParsedArguments = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: SyntaxError };

interface Base<T extends string, I> {
  readonly type: T;
  readonly state: ToolCallState;
  readonly outputIndex: number;
  readonly itemId: string | undefined;
  /** The item's `status` (`completed`, `incomplete`, `failed`, `searching`, …) as last sent. */
  readonly status: string | undefined;
  /** The item as last sent: the authoritative `output_item.done` one once `complete`. */
  readonly item: I | undefined;
}

export interface FunctionToolCall extends Base<'function_call', ResponseFunctionToolCall> {
  readonly callId: string;
  readonly name: string;
  /** The raw argument string. */
  readonly arguments: string;
  /** Absent while `partial`. */
  readonly parsed?: ParsedArguments;
}
export interface CustomToolCall extends Base<'custom_tool_call', ResponseCustomToolCall> {
  readonly callId: string;
  readonly name: string;
  readonly input: string;
}
export interface McpToolCall extends Base<'mcp_call', McpCall> {
  readonly serverLabel: string;
  readonly name: string;
  readonly arguments: string;
  readonly parsed?: ParsedArguments;
}
export interface McpApprovalRequestCall extends Base<'mcp_approval_request', McpApprovalRequest> {
  readonly serverLabel: string;
  readonly name: string;
  readonly arguments: string;
  readonly parsed?: ParsedArguments;
}
/** Calls the client executes; what to do is in `item` (`action` / `operation`). */
export type ClientActionCall =
  | (Base<'computer_call', ComputerCall> & { readonly callId: string })
  | (Base<'local_shell_call', LocalShellCall> & { readonly callId: string })
  | (Base<'shell_call', ShellCall> & { readonly callId: string })
  | (Base<'apply_patch_call', ApplyPatchCall> & { readonly callId: string });
/**
 * A tool search the application runs (`execution: "client"`) and answers with a `tool_search_output` item
 * carrying the same `call_id` and the tools it found. A search the platform ran (`execution: "server"`) is
 * emitted only with `{ hosted: true }`.
 */
export interface ToolSearchToolCall extends Base<'tool_search_call', ToolSearchCall> {
  readonly callId: string;
  readonly execution: string;
  /** What the model asked to search for, as sent (an object, not a string). */
  readonly arguments: unknown;
}
/** Calls the platform ran itself (only with `{ hosted: true }`). */
export type HostedToolCall =
  | Base<'web_search_call', WebSearchCall>
  | Base<'file_search_call', FileSearchCall>
  | Base<'code_interpreter_call', CodeInterpreterCall>
  | Base<'image_generation_call', ImageGenerationCall>;

export type ToolCall = FunctionToolCall | CustomToolCall | McpToolCall | McpApprovalRequestCall | ClientActionCall | ToolSearchToolCall | HostedToolCall;
export type ToolCallType = ToolCall['type'];

export interface CollectToolCallsOptions {
  /** Also emit an in-progress value (`state: 'partial'`) after every argument / input delta. */
  readonly partial?: boolean;
  /** Also emit the hosted calls (web search, file search, code interpreter, image generation) when they close. */
  readonly hosted?: boolean;
  /** Emit calls the response ended before completing, flagged `state: 'incomplete'`, instead of leaving them out. */
  readonly incomplete?: boolean;
}

/**
 * Emits each tool call once it is complete, in completion order: `function_call` (with its raw
 * `arguments` and `parsed` result — a malformed string is reported in `parsed.error`, never thrown),
 * `custom_tool_call`, `mcp_call`, `mcp_approval_request`, and the client-executed `computer_call`,
 * `local_shell_call`, `shell_call`, `apply_patch_call` and `tool_search_call` (`execution: "client"`).
 * Calls are keyed by `output_index` (not `item_id`, which some providers rotate); arguments are assembled
 * from the deltas, replaced by the `.done` string, and finally by the `response.output_item.done` item,
 * which is authoritative. The final response's items are matched to the streamed ones by `id`, never by
 * list position alone (a provider may leave out or reorder items).
 *
 * A call whose item never closed — the stream was cut off, the response failed or hit its token
 * limit — is never presented as complete: it is left out, or with `{ incomplete: true }` emitted with
 * `state: 'incomplete'` when the response (or the source) ends. `{ partial: true }` adds an in-progress
 * value after every argument delta; `{ hosted: true }` adds the hosted calls with their status.
 * Errors pass through untouched. Events are read without trusting their shape (`validate: 'off'` or a
 * hand-built source): one whose `output_index` is not a non-negative safe integer, or whose delta is not a
 * string, or that is aimed at an item of another type (function arguments at a file search), is ignored, as
 * unknown events are; a `.done` without a string value leaves the deltas standing.
 *
 * ```
 * events:  --added(fc)--args({"a)--args(":1})--args.done--item.done--completed--|
 *   collectToolCalls()
 * out:     ------------------------------------------------c--------------------|
 *   c = { type: 'function_call', state: 'complete', name, callId, arguments: '{"a":1}', parsed: { ok: true, value: { a: 1 } } }
 * ```
 *
 * ```ts
 * events$.pipe(collectToolCalls(), filter((c) => c.type === 'function_call'))
 *   .subscribe((c) => c.parsed?.ok ? run(c.name, c.parsed.value) : reportBadArgs(c));
 * ```
 */
export function collectToolCalls(options: CollectToolCallsOptions = {}): OperatorFunction<ResponseStreamEvent, ToolCall> {
  const wanted = new WantedCalls(options.partial === true, options.hosted === true, options.incomplete === true);
  return (source) =>
    new Observable<ToolCall>((subscriber) => {
      keepWarm('collectToolCalls', toolCallShapes);
      return source.subscribe(new ToolCallCollection(subscriber, wanted));
    });
}

/** What one `collectToolCalls(options)` emits. */
class WantedCalls {
  constructor(
    readonly partial: boolean,
    readonly hosted: boolean,
    readonly incomplete: boolean,
  ) {}

  tracked(type: unknown): type is string {
    return typeof type === 'string' && (CLIENT_TYPES.has(type) || (this.hosted && HOSTED_TYPES.has(type)) || type === 'tool_search_call');
  }

  // A tool search is the application's to answer only when it runs on the client.
  trackedItem(item: unknown): boolean {
    const type = field(item, 'type');
    return type === 'tool_search_call' ? this.hosted || field(item, 'execution') === 'client' : this.tracked(type);
  }
}

/**
 * One subscription's tool calls: the source's observer. A class, not closures made per subscription, so that
 * the optimised code of the per-event path lives as long as the module and survives a full GC between
 * streams (see SSEScannerCore). Fields are set in the constructor, in one order (one shape).
 */
class ToolCallCollection {
  private open: Map<number, CallState>;
  private closed: Set<number>;
  private readonly book: ItemBook;

  constructor(
    private readonly subscriber: Subscriber<ToolCall>,
    private readonly wanted: WantedCalls,
  ) {
    this.open = new Map();
    this.closed = new Set();
    this.book = new ItemBook();
  }

  next(ev: ResponseStreamEvent): void {
    const e = asRecord(ev);
    if (e === undefined) return;
    const type = e['type'];
    const book = this.book;
    switch (type) {
      case 'response.output_item.added': {
        const oi = e['output_index'];
        const item = e['item'];
        const itemType = field(item, 'type');
        if (isIndex(oi)) book.noteItem(oi, item);
        if (!isIndex(oi) || !this.wanted.tracked(itemType) || !this.wanted.trackedItem(item) || this.closed.has(oi)) return;
        const st = this.stateAt(oi, itemType, stringField(item, 'id'));
        if (st === undefined) return;
        st.type = itemType;
        st.item = item;
        const initial = stringField(item, itemType === 'custom_tool_call' ? 'input' : 'arguments');
        if (initial !== undefined && st.args === '') st.args = initial;
        return;
      }
      // Only the events it reads are checked against the item's type (an item's type comes from its
      // added / done item, or else from the first of these aimed at it).
      case 'response.function_call_arguments.delta':
        return book.admits(e) ? this.delta(e['output_index'], 'function_call', e['item_id'], e['delta']) : undefined;
      case 'response.custom_tool_call_input.delta':
        return book.admits(e) ? this.delta(e['output_index'], 'custom_tool_call', e['item_id'], e['delta']) : undefined;
      case 'response.mcp_call_arguments.delta':
        return book.admits(e) ? this.delta(e['output_index'], 'mcp_call', e['item_id'], e['delta']) : undefined;
      case 'response.function_call_arguments.done':
        return book.admits(e) ? this.done(e['output_index'], 'function_call', e['item_id'], e['arguments'], e['name']) : undefined;
      case 'response.custom_tool_call_input.done':
        return book.admits(e) ? this.done(e['output_index'], 'custom_tool_call', e['item_id'], e['input']) : undefined;
      case 'response.mcp_call_arguments.done':
        return book.admits(e) ? this.done(e['output_index'], 'mcp_call', e['item_id'], e['arguments']) : undefined;
      case 'response.output_item.done': {
        const oi = e['output_index'];
        if (!isIndex(oi)) return;
        book.noteItem(oi, e['item']);
        this.close(oi, e['item'], false);
        return;
      }
      default:
        if (typeof type === 'string' && isTerminalType(type)) this.settle(e['response']);
    }
  }

  error(err: unknown): void {
    this.subscriber.error(err);
  }

  complete(): void {
    this.settle(undefined);
    this.subscriber.complete();
  }

  private stateAt(outputIndex: number, type: string, itemId: string | undefined): CallState | undefined {
    if (this.closed.has(outputIndex)) return undefined;
    let st = this.open.get(outputIndex);
    if (st === undefined) {
      st = { type, item: undefined, itemId, args: '', argsDone: undefined, name: undefined, n: 0 };
      this.open.set(outputIndex, st);
    } else if (itemId !== undefined) {
      st.itemId = itemId;
    }
    return st;
  }

  private delta(outputIndex: unknown, type: string, itemId: unknown, d: unknown): void {
    if (!isIndex(outputIndex) || typeof d !== 'string') return;
    const st = this.stateAt(outputIndex, type, typeof itemId === 'string' ? itemId : undefined);
    if (st === undefined) return;
    st.args = grow(st, st.args, d); // flattened now and then: a 10 MB argument holds ~10 MB, not a rope 30x that
    if (this.wanted.partial && this.wanted.tracked(st.type)) this.subscriber.next(build(st, outputIndex, 'partial', false));
  }

  private done(outputIndex: unknown, type: string, itemId: unknown, s: unknown, name?: unknown): void {
    if (!isIndex(outputIndex)) return;
    const st = this.stateAt(outputIndex, type, typeof itemId === 'string' ? itemId : undefined);
    if (st === undefined) return;
    if (typeof s === 'string') st.argsDone = s;
    if (typeof name === 'string') st.name = name;
  }

  // An item that closed: complete unless it says otherwise.
  private close(outputIndex: number, item: unknown, responseEnded: boolean): void {
    if (this.closed.has(outputIndex)) return;
    const type = field(item, 'type');
    const st = this.open.get(outputIndex);
    if (!this.wanted.tracked(type) || !this.wanted.trackedItem(item) || (st !== undefined && st.type !== type)) {
      if (st !== undefined && !responseEnded) this.open.delete(outputIndex);
      return;
    }
    this.open.delete(outputIndex);
    this.closed.add(outputIndex);
    const s: CallState = st ?? { type, item, itemId: undefined, args: '', argsDone: undefined, name: undefined, n: 0 };
    s.item = item;
    const status = field(item, 'status');
    const complete = status !== 'incomplete' && (!responseEnded || status === undefined || status === 'completed' || status === 'failed');
    if (complete) this.subscriber.next(build(s, outputIndex, 'complete', true));
    else if (this.wanted.incomplete) this.subscriber.next(build(s, outputIndex, 'incomplete', true));
  }

  // The response (or the source) ended: settle every call still open.
  private settle(response: unknown): void {
    const completed = field(response, 'status') === 'completed';
    const output = field(response, 'output');
    if (Array.isArray(output)) {
      const at = this.book.place(output); // by id: the list may leave out or reorder items
      for (let i = 0; i < output.length; i++) {
        const item: unknown = output[i];
        // A completed response's output is authoritative; otherwise only items it reports finished count.
        if (completed || field(item, 'status') === 'completed') this.close(at[i]!, item, !completed);
      }
    }
    for (const oi of sortedKeys(this.open)) {
      const st = this.open.get(oi)!;
      if (this.wanted.incomplete && this.wanted.tracked(st.type)) this.subscriber.next(build(st, oi, 'incomplete', false));
    }
    this.open = new Map();
    this.closed = new Set();
    this.book.clear();
  }
}

/**
 * One collection kept open (on a source that opened one function call, sent it an empty delta and never ends)
 * once the first one starts, unless warm-ups are off (lib/warmup.ts): the hidden classes (maps) of what a
 * subscription is made of (its RxJS subscribers, the collection, its ItemBook, a call's state) then survive a
 * full GC while no stream is open, and so does the optimised code that checks for them (see `textShapes`).
 * Nothing of a user's stream is kept.
 */
const toolCallShapes = (): Subscription =>
  new Observable<ResponseStreamEvent>((s) => {
    s.next({ type: 'response.output_item.added', output_index: 0, sequence_number: 0, item: { type: 'function_call', id: '', call_id: '', name: '', arguments: '', status: 'in_progress' } } as unknown as ResponseStreamEvent);
    s.next({ type: 'response.function_call_arguments.delta', output_index: 0, item_id: '', delta: '', sequence_number: 1 } as unknown as ResponseStreamEvent);
  })
    .pipe(collectToolCalls())
    .subscribe({ next: () => undefined, error: () => undefined, complete: () => undefined });
