import { chunkError, elementOf, isRecord, own } from './chat-fields.js';
import { grow } from './grow.js';
import type { ChatOutput } from './chat-output.js';

// Tool calls of fromChatChunks: `function_call` items, and `custom_tool_call` items for `type: 'custom'`
// calls. Fragments are placed by `index` when they have one (OpenAI streams a call in pieces under its
// index) and otherwise by id and position (Mistral, Gemini and Ollama send each call whole, without one).

type Kind = 'function' | 'custom';

interface Call {
  /** Output index and item id, once the item opened (-1 / '' while the call waits for its name). */
  oi: number;
  id: string;
  /** The provider's id, or one made up when the item opens without one. */
  callId: string;
  /** Whether `callId` came from the provider (a different id at the same index is then another call). */
  sentId: boolean;
  /** Whether `callId` is final: the provider's, or one made up for a call that never has one (`delta.function_call`). */
  idKnown: boolean;
  readonly kind: Kind;
  name: string;
  /** Arguments (function) or input (custom) so far. */
  args: string;
  /** Whether `response.output_item.added` was sent (see `pending`). */
  opened: boolean;
  open: boolean;
  readonly key: number | undefined;
  /** Concatenations of `args` since it was last flattened (see grow). */
  n: number;
}

/** The key of a deprecated `delta.function_call`: no JSON number is NaN, so no tool call index collides. */
const LEGACY_CALL = Number.NaN;

/** Absent, `null`, or a string (what a chat field holding text may be). */
const optString = (v: unknown): v is string | null | undefined => v === undefined || v === null || typeof v === 'string';

export class ToolCalls {
  // Maps, so that any number (1e308, -1) is only a key: no prototype reached, no cost growing with it.
  private readonly byIndex = new Map<number, Call>();
  private readonly byId = new Map<string, Call>();
  private last: Call | undefined;
  /**
   * A call whose item waits, holding its arguments, so that `output_item.added` carries the whole name and the
   * provider's id, as chat clients downstream (toChatChunks, the SDK) need them on the call's first chunk and
   * cannot take them back: a name streamed in pieces (`get_`, `weather`, even after a first fragment in OpenAI's
   * shape, `arguments: ""`) and an id sent on a later fragment. It opens with the first non-empty argument
   * fragment once it has a name and the provider's id, else before any other item opens or when the choice
   * finishes (a call without an id, sent whole by providers that have none, gets a made-up one then). A name
   * piece after the arguments began still joins the name that `.done` and the closed item carry.
   */
  private pending: Call | undefined;

  constructor(private readonly out: ChatOutput) {
    out.beforeOpen = () => this.flush();
  }

  /** One delta's `tool_calls` list, checked field by field (`path` names a field in a DecodeError). */
  list(list: unknown, n: number, path: string): void {
    if (list === undefined || list === null) return;
    if (!Array.isArray(list)) throw chunkError(n, path, 'not an array');
    let positional = 0;
    for (let j = 0; j < list.length; j++) {
      const f = elementOf(list, j);
      const at = `${path}[${j}]`;
      if (!isRecord(f)) throw chunkError(n, at, 'not an object');
      const index = own(f, 'index');
      if (index !== undefined && index !== null && typeof index !== 'number') throw chunkError(n, `${at}.index`, 'not a number');
      const rawId = own(f, 'id');
      if (!optString(rawId)) throw chunkError(n, `${at}.id`, 'not a string');
      const id = rawId || undefined; // "" names no call
      const type = own(f, 'type');
      if (!optString(type)) throw chunkError(n, `${at}.type`, 'not a string');
      const custom = own(f, 'custom');
      const fn = own(f, 'function');
      const keyed = typeof index === 'number';
      const found = keyed ? this.indexed(index, id) : this.placed(id, positional++ === 0);
      // A call keeps the kind it opened with; a new one is custom when typed so, or when it has only a `custom` body.
      const kind: Kind = found?.kind ?? (type === 'custom' || (type == null && fn == null && custom != null) ? 'custom' : 'function');
      this.fragment(found, { key: keyed ? index : undefined, id }, kind, kind === 'custom' ? custom : fn, n, `${at}.${kind}`);
    }
  }

  /**
   * A deprecated `delta.function_call` (the `functions` API, which some compatible providers still stream):
   * one call per choice, under its own key, with no id of its own.
   */
  legacy(fn: unknown, n: number, path: string): void {
    if (fn === undefined || fn === null) return;
    const id = `call_${this.out.id}_function_call`;
    this.fragment(this.byIndex.get(LEGACY_CALL), { key: LEGACY_CALL, id }, 'function', fn, n, path, false);
  }

  /** The call at `index`, unless the fragment names a different id than the one that call was sent with. */
  private indexed(index: number, id: string | undefined): Call | undefined {
    const c = this.byIndex.get(index);
    return c !== undefined && id !== undefined && c.sentId && c.callId !== id ? undefined : c;
  }

  /**
   * The call an index-less fragment continues: the call with its id; none for a new id; without an id, the
   * last call, but only for the first such fragment of a delta (the others in the same list are calls of their own).
   */
  private placed(id: string | undefined, first: boolean): Call | undefined {
    if (id !== undefined) return this.byId.get(id);
    return first ? this.last : undefined;
  }

  private fragment(
    found: Call | undefined, where: { key: number | undefined; id: string | undefined }, kind: Kind, body: unknown, n: number, path: string, sentId = true,
  ): void {
    if (body !== undefined && body !== null && !isRecord(body)) throw chunkError(n, path, 'not an object');
    const argKey = kind === 'custom' ? 'input' : 'arguments';
    const name = body === undefined || body === null ? undefined : own(body, 'name');
    const a = body === undefined || body === null ? undefined : own(body, argKey);
    if (!optString(name)) throw chunkError(n, `${path}.name`, 'not a string');
    if (!optString(a)) throw chunkError(n, `${path}.${argKey}`, 'not a string');
    let c = found;
    if (c === undefined) {
      c = this.create(where, kind, name ?? '', sentId && where.id !== undefined, !sentId);
    } else {
      if (name && name !== c.name) {
        // A full name resent on every fragment replaces; a name streamed in pieces is appended.
        c.name = name.startsWith(c.name) ? name : c.name + name;
      }
      // An id on a later fragment of a call that opened without one is its id (nothing was sent under another yet).
      if (!c.opened && !c.sentId && where.id !== undefined && sentId) {
        c.callId = where.id;
        c.sentId = c.idKnown = true;
        this.byId.set(where.id, c);
      }
    }
    if (!a || !c.open) return;
    c.args = grow(c, c.args, a);
    if (c.opened) this.argsDelta(c, a);
    else if (c.name !== '' && c.idKnown && c === this.pending) this.flush(); // sends what it held
  }

  private argsDelta(c: Call, delta: string): void {
    const type = c.kind === 'custom' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
    this.out.next({ type, item_id: c.id, output_index: c.oi, delta });
  }

  private create(where: { key: number | undefined; id: string | undefined }, kind: Kind, name: string, sentId: boolean, madeUpId: boolean): Call {
    this.flush();
    this.out.closeText();
    const c: Call = {
      oi: -1, id: '', callId: where.id ?? '', sentId, idKnown: sentId || madeUpId, kind, name, args: '', opened: false, open: true, key: where.key, n: 0,
    };
    if (where.key !== undefined) this.byIndex.set(where.key, c);
    if (where.id !== undefined && sentId) this.byId.set(where.id, c);
    this.last = c;
    this.pending = c;
    return c;
  }

  /** Opens the waiting call's item (`response.output_item.added`) with the name and id it has now. */
  private flush(): void {
    const c = this.pending;
    if (c === undefined) return;
    this.pending = undefined;
    c.opened = true;
    const { oi, id } = this.out.openItem(c.kind === 'custom' ? 'ctc' : 'fc', (itemId, oi) => {
      // Without an id of its own, a call is named after the response and its index (or output position).
      if (c.callId === '') c.callId = `call_${this.out.id}_${c.key ?? `p${oi}`}`;
      return c.kind === 'custom'
        ? { id: itemId, type: 'custom_tool_call', status: 'in_progress', call_id: c.callId, name: c.name, input: '' }
        : { id: itemId, type: 'function_call', status: 'in_progress', call_id: c.callId, name: c.name, arguments: '' };
    }, () => this.close(c));
    c.oi = oi;
    c.id = id;
    if (c.args !== '') this.argsDelta(c, c.args); // what it held while it waited
  }

  private close(c: Call): void {
    c.open = false;
    const status = this.out.itemStatus();
    if (c.kind === 'custom') {
      this.out.next({ type: 'response.custom_tool_call_input.done', item_id: c.id, output_index: c.oi, input: c.args });
      this.out.doneItem(c.oi, { id: c.id, type: 'custom_tool_call', status, call_id: c.callId, name: c.name, input: c.args });
    } else {
      this.out.next({ type: 'response.function_call_arguments.done', item_id: c.id, output_index: c.oi, arguments: c.args, name: c.name });
      this.out.doneItem(c.oi, { id: c.id, type: 'function_call', status, call_id: c.callId, name: c.name, arguments: c.args });
    }
  }
}
