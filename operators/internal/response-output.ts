// The output items accumulateResponse assembles (not exported from the package).
import { lowerBound, placeAt, type Keys } from './dense.js';

export type Obj = Record<string, unknown>;

export function isObj(u: unknown): u is Obj {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/** One output item; `keys` holds the index maps of its lists that have gaps (`content`, `annotations:2`, …). */
interface Slot {
  readonly index: number;
  item: Obj;
  keys: Map<string, Keys> | undefined;
}

/** The shape an item starts from when its `added` was not seen (a resume seam or a terse provider). */
function placeholder(type: string, id: string | undefined): Obj {
  const p: Obj = { id: id ?? '', type, status: 'in_progress' };
  if (type === 'message') {
    p['role'] = 'assistant';
    p['content'] = [];
  } else if (type === 'reasoning') {
    p['summary'] = [];
  } else if (type === 'function_call' || type === 'mcp_call') {
    p['arguments'] = '';
  } else if (type === 'custom_tool_call') {
    p['input'] = '';
  } else if (type === 'shell_call_output') {
    p['output'] = [];
  }
  return p;
}

/**
 * Output items by output_index: a Map and a sorted list of the same slots, so lookups and emits cost the
 * number of items, never the index value. Every change copies the path to what changed (the item, the
 * list, the part), so values already emitted keep what they showed.
 */
export class ResponseOutput {
  private slots = new Map<number, Slot>();
  private order: Slot[] = [];

  reset(): void {
    this.slots = new Map();
    this.order = [];
  }

  has(oi: number): boolean {
    return this.slots.has(oi);
  }

  /** Sets the item at `oi`; `fresh` drops the index maps of the one it replaces. */
  put(oi: number, item: Obj, fresh: boolean): void {
    this.slot(oi, item, fresh);
  }

  /** The items in output_index order (a new array; the items are shared). */
  items(): Obj[] {
    const out = new Array<Obj>(this.order.length);
    for (let i = 0; i < this.order.length; i++) out[i] = this.order[i]!.item;
    return out;
  }

  /** Replaces the item at `oi` (or its placeholder) with `f(item)`. */
  updateItem(oi: number, type: string, id: string | undefined, f: (it: Obj) => Obj): void {
    this.slot(oi, f(this.slots.get(oi)?.item ?? placeholder(type, id)), false);
  }

  /** Replaces element `index` of the item's list `list` (kept dense, see placeAt) with `f(element)`. */
  updateList(oi: number, type: string, id: string | undefined, list: string, index: number, f: (old: unknown) => unknown): void {
    const slot = this.slots.get(oi);
    const it = slot?.item ?? placeholder(type, id);
    const [next, keys] = placeAt(it[list], slot?.keys?.get(list), index, f);
    this.setKeys(this.slot(oi, { ...it, [list]: next }, false), list, keys);
  }

  /** Like updateList for a list inside an object field of the item (`action.commands`). */
  updateNested(oi: number, type: string, outer: string, list: string, index: number, f: (old: unknown) => unknown): void {
    const slot = this.slots.get(oi);
    const it = slot?.item ?? placeholder(type, undefined);
    const o = isObj(it[outer]) ? it[outer] : {};
    const [next, keys] = placeAt(o[list], slot?.keys?.get(list), index, f);
    this.setKeys(this.slot(oi, { ...it, [outer]: { ...o, [list]: next } }, false), list, keys);
  }

  /** Replaces part `index` of the item's `content` / `summary` with `f(part)`; `fresh()` when there is none. */
  updatePart(oi: number, type: string, id: string | undefined, list: 'content' | 'summary', index: number, fresh: () => Obj, f: (p: Obj) => Obj): void {
    this.updateList(oi, type, id, list, index, (p) => f(isObj(p) ? p : fresh()));
  }

  /** Sets part `index` to `part` as an event sent it (its own annotations replace ours). */
  replacePart(oi: number, type: string, id: string | undefined, list: 'content' | 'summary', index: number, part: Obj): void {
    this.updateList(oi, type, id, list, index, () => part);
    if (list === 'content') this.setKeys(this.slots.get(oi)!, `annotations:${index}`, undefined);
  }

  /** Sets annotation `ai` of content part `ci` (kept dense like the other lists). */
  annotate(oi: number, id: string | undefined, ci: number, ai: number, annotation: unknown, fresh: () => Obj): void {
    const name = `annotations:${ci}`;
    const before = this.slots.get(oi)?.keys?.get(name);
    let after: Keys | undefined;
    this.updatePart(oi, 'message', id, 'content', ci, fresh, (p) => {
      const [list, keys] = placeAt(p['annotations'], before, ai, () => annotation);
      after = keys;
      return { ...p, annotations: list };
    });
    this.setKeys(this.slots.get(oi)!, name, after);
  }

  private slot(oi: number, item: Obj, fresh: boolean): Slot {
    let s = this.slots.get(oi);
    if (s !== undefined) {
      s.item = item;
      if (fresh) s.keys = undefined;
      return s;
    }
    s = { index: oi, item, keys: undefined };
    this.slots.set(oi, s);
    const order = this.order;
    const last = order[order.length - 1];
    if (last === undefined || last.index < oi) order.push(s); // items almost always open in order
    else order.splice(lowerBound(order.length, (i) => order[i]!.index, oi), 0, s);
    return s;
  }

  private setKeys(slot: Slot, name: string, keys: Keys | undefined): void {
    if (keys !== undefined) (slot.keys ??= new Map()).set(name, keys);
    else slot.keys?.delete(name);
  }
}
