// The tool calls of toChatChunks (not exported from the package): `function_call` items become chat tool
// calls of `type: 'function'` (`function: { name, arguments }`), `custom_tool_call` items calls of
// `type: 'custom'` (`custom: { name, input }`), as a Chat Completions provider streams them.
import { num, optStr, str, type Rec } from './chat-fields.js';
import { grow, type Growth } from './grow.js';
import { isIndex } from './parts.js';

export type CallKind = 'function' | 'custom';

/** One fragment of a chat tool call: the first carries `id`, `type` and the whole name; later ones a piece of the arguments or input. */
export type ToolCallDelta =
  | { index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }
  | { index: number; id?: string; type?: 'custom'; custom: { name?: string; input: string } };

/** The chat kind of a Responses item type, for the call items that have one. */
export function callKind(itemType: unknown): CallKind | undefined {
  return itemType === 'function_call' ? 'function' : itemType === 'custom_tool_call' ? 'custom' : undefined;
}

/** The item field (and `.done` event field) that holds a call's arguments or input. */
const ARG_KEY: Readonly<Record<CallKind, 'arguments' | 'input'>> = { function: 'arguments', custom: 'input' };

interface Call extends Growth {
  kind: CallKind;
  /** The chat `index`, dense in opening order across both kinds; -1 until the call's first chunk is sent. */
  k: number;
  callId: string;
  name: string;
  /** How many characters of the arguments / input were emitted: the `.done` text and final item fill the rest. */
  sent: number;
  /** Arguments / input that arrived before the call could open (its id or name not known yet). */
  held: string;
}

/**
 * The calls of one response. A call is tracked from its first event and sent from when its id and name
 * are both known: the chat client must get the whole name and the real id on the call's first chunk (the
 * SDK binds a call's identity there), so a call whose `added` item lacks them waits, holding what it was
 * sent, until the `.done` event or the closed item says them. Calls are found by output index and item id;
 * by call_id only for an event without a usable output index (two calls may share a call_id, and each
 * keeps its own arguments). An event of one kind never reaches a call of the other.
 */
export class ChatToolCalls {
  /** How many calls were opened (the next chat index). */
  count = 0;
  private readonly byOutput = new Map<number, Call>();
  private readonly byItem = new Map<string, Call>();
  private readonly byId = new Map<string, Call>();

  /** `emit` sends a delta with these `tool_calls`; `responseId` names a call that never got an id. */
  constructor(
    private readonly emit: (toolCalls: ToolCallDelta[]) => void,
    private readonly responseId: () => string,
  ) {}

  /** `response.output_item.added` of a call item of `kind`. */
  added(e: Rec, item: Rec, kind: CallKind): void {
    const callId = optStr(e, item, 'call_id', 'item.call_id') ?? '';
    const name = optStr(e, item, 'name', 'item.name') ?? '';
    const oi = num(e, e, 'output_index');
    const itemId = optStr(e, item, 'id', 'item.id');
    if (this.find(kind, oi, itemId) !== undefined) return; // the same item again
    this.open(this.track(kind, oi, callId, name, itemId), false);
  }

  /** `response.function_call_arguments.delta` / `response.custom_tool_call_input.delta`. */
  delta(e: Rec, kind: CallKind): void {
    const delta = str(e, e, 'delta');
    const call = this.find(kind, num(e, e, 'output_index'), optStr(e, e, 'item_id'));
    // A delta for a call never opened (a resumed stream) waits for the finished item.
    if (call !== undefined) this.send(call, delta);
  }

  /** `response.function_call_arguments.done` / `response.custom_tool_call_input.done`: authoritative. */
  done(e: Rec, kind: CallKind): void {
    const full = str(e, e, ARG_KEY[kind]);
    const call = this.find(kind, num(e, e, 'output_index'), optStr(e, e, 'item_id'));
    if (call === undefined) return;
    const name = optStr(e, e, 'name');
    if (call.k < 0 && name !== undefined && name !== '') {
      call.name = name;
      this.open(call, false);
    }
    this.sendRest(call, full);
  }

  /** A closed call item of `kind` (`output_item.done` or the terminal output), read at `path`: it says the id, name and arguments for sure. */
  finish(e: Rec, item: Rec, kind: CallKind, outputIndex: number, path: string): void {
    const callId = str(e, item, 'call_id', `${path}.call_id`);
    const full = str(e, item, ARG_KEY[kind], `${path}.${ARG_KEY[kind]}`);
    const itemId = optStr(e, item, 'id', `${path}.id`);
    const name = str(e, item, 'name', `${path}.name`);
    const call = this.find(kind, outputIndex, itemId, callId) ?? this.track(kind, outputIndex, callId, name, itemId);
    // A call that waited for its id and name opens with them now.
    if (call.k < 0) {
      if (callId !== '') call.callId = callId;
      if (name !== '') call.name = name;
      this.open(call, true);
    }
    this.sendRest(call, full);
  }

  private track(kind: CallKind, outputIndex: number, callId: string, name: string, itemId: string | undefined): Call {
    const call: Call = { kind, k: -1, callId, name, sent: 0, held: '', n: 0 };
    if (outputIndex >= 0) this.byOutput.set(outputIndex, call);
    if (callId !== '' && !this.byId.has(callId)) this.byId.set(callId, call);
    if (itemId !== undefined) this.byItem.set(itemId, call);
    return call;
  }

  private find(kind: CallKind, outputIndex: number, itemId: string | undefined, callId?: string): Call | undefined {
    const ofKind = (c: Call | undefined): Call | undefined => (c !== undefined && c.kind === kind ? c : undefined);
    return (
      (outputIndex >= 0 ? ofKind(this.byOutput.get(outputIndex)) : undefined) ??
      (itemId !== undefined ? ofKind(this.byItem.get(itemId)) : undefined) ??
      (!isIndex(outputIndex) && callId !== undefined ? ofKind(this.byId.get(callId)) : undefined)
    );
  }

  private open(call: Call, force: boolean): void {
    if (call.k >= 0 || (!force && (call.callId === '' || call.name === ''))) return;
    call.k = this.count++;
    if (call.callId === '') call.callId = `call_${this.responseId()}_${call.k}`; // none ever came
    const first: ToolCallDelta = call.kind === 'custom'
      ? { index: call.k, id: call.callId, type: 'custom', custom: { name: call.name, input: '' } }
      : { index: call.k, id: call.callId, type: 'function', function: { name: call.name, arguments: '' } };
    this.emit([first]);
    const held = call.held;
    call.held = '';
    this.send(call, held);
  }

  private send(call: Call, piece: string): void {
    if (piece.length === 0) return;
    if (call.k < 0) {
      call.held = grow(call, call.held, piece);
      return;
    }
    call.sent += piece.length;
    this.emit([call.kind === 'custom' ? { index: call.k, custom: { input: piece } } : { index: call.k, function: { arguments: piece } }]);
  }

  /** Sends what the deltas did not carry of an authoritative `full` text. */
  private sendRest(call: Call, full: string): void {
    const have = call.sent + call.held.length;
    if (full.length > have) this.send(call, full.slice(have));
  }
}
