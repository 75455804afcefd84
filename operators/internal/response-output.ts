// The output items accumulateResponse assembles (not exported from the package).
import { lowerBound, placeAt, type Keys } from './dense.js';
import type { Growth } from './grow.js';
import { PVec } from './pvec.js';

export type Obj = Record<string, unknown>;

export function isObj(u: unknown): u is Obj {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/**
 * Lists up to this long are emitted as plain arrays, copied when they change; a longer one is emitted as an
 * enumerable accessor that builds the array on first read (then a plain data property), so that emitting a
 * snapshot never costs the length of a list.
 */
export const EAGER_MAX = 32;

/** A list of an item or part, kept dense (see placeAt): `keys` maps logical indices to positions after a gap. */
interface List {
  vec: PVec<unknown>;
  keys: Keys | undefined;
  /** The parts of a `content` / `summary` list that are assembled here, by logical index. */
  nodes: Map<number, Node> | undefined;
}

/**
 * An item or part being assembled: `fields` as last set (the lists named in `lists` are read from there, not
 * from `fields`), and `view`, the immutable object emitted for it, shared by every value until it changes.
 */
interface Node extends Growth {
  fields: Obj;
  lists: Map<string, List> | undefined;
  view: Obj;
}

interface Slot extends Node {
  readonly index: number;
  /** Position in output order. */
  pos: number;
  /** Index maps of nested lists with gaps (`action.commands`). */
  nested: Map<string, Keys> | undefined;
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

/** Sets `target[name]` to the elements of `vec`: a plain array when short, else built when first read. */
export function attachList(target: Obj, name: string, vec: PVec<unknown>): void {
  if (vec.size <= EAGER_MAX) {
    target[name] = vec.toArray();
    return;
  }
  const own = (o: Obj, value: unknown): void => {
    Object.defineProperty(o, name, { value, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(target, name, {
    enumerable: true,
    configurable: true,
    get(this: Obj) {
      const a = vec.toArray();
      own(this, a);
      return a;
    },
    set(this: Obj, value: unknown) {
      own(this, value);
    },
  });
}

function build(node: Node): Obj {
  if (node.lists === undefined) return node.fields;
  const v: Obj = { ...node.fields };
  for (const [name, l] of node.lists) attachList(v, name, l.vec);
  return v;
}

function newNode(fields: Obj): Node {
  return { fields, lists: undefined, view: fields, n: 0 };
}

function listOf(node: Node, name: string): List {
  let l = node.lists?.get(name);
  if (l === undefined) {
    const a = node.fields[name];
    l = { vec: PVec.from(Array.isArray(a) ? (a as unknown[]) : []), keys: undefined, nodes: undefined };
    (node.lists ??= new Map()).set(name, l);
  }
  return l;
}

/**
 * Sets logical `index` of `l` to `f(element)`. While the indices seen are 0..n-1 the position is the index;
 * after a gap `keys` maps indices to positions, so no index value costs more than one element. Writing at or
 * after the end costs O(1); only an index that falls between earlier ones (out of order) costs the length.
 */
function place(l: List, index: number, f: (old: unknown) => unknown): void {
  const vec = l.vec;
  if (l.keys === undefined) {
    if (index < vec.size) {
      l.vec = vec.set(index, f(vec.get(index)));
      return;
    }
    if (index === vec.size) {
      l.vec = vec.push(f(undefined));
      return;
    }
    const keys: Keys = new Array<number>(vec.size);
    for (let i = 0; i < vec.size; i++) keys[i] = i;
    l.keys = keys;
  }
  const keys = l.keys;
  const n = keys.length;
  if (n === 0 || keys[n - 1]! < index) {
    keys.push(index);
    l.vec = vec.push(f(undefined));
    return;
  }
  const pos = keys[n - 1] === index ? n - 1 : lowerBound(n, (i) => keys[i]!, index);
  if (keys[pos] === index) {
    l.vec = vec.set(pos, f(vec.get(pos)));
  } else {
    keys.splice(pos, 0, index);
    l.vec = vec.insert(pos, f(undefined));
  }
}

/**
 * Output items by output_index. Every change copies only the path to what changed (the part, the item,
 * a path of the persistent vectors that hold the lists), so values already emitted keep what they showed
 * and an event costs the same whatever the number of items, parts or annotations (see `attachList`).
 */
export class ResponseOutput {
  private slots = new Map<number, Slot>();
  private sorted: Slot[] = [];
  private order: PVec<Obj> = PVec.empty();

  reset(): void {
    this.slots = new Map();
    this.sorted = [];
    this.order = PVec.empty();
  }

  has(oi: number): boolean {
    return this.slots.has(oi);
  }

  /** Sets the item at `oi` as an event sent it (its lists start over from the item's). */
  put(oi: number, item: Obj): void {
    const s = this.slots.get(oi);
    if (s === undefined) {
      this.add(oi, item);
      return;
    }
    s.fields = item;
    s.lists = undefined;
    s.nested = undefined;
    s.n = 0;
    this.touch(s);
  }

  /** Sets `target.output` to the items in output_index order (see `attachList`). */
  attach(target: Obj): void {
    attachList(target, 'output', this.order);
  }

  /** Replaces the item at `oi` (or its placeholder) with `f(item)`; `g` counts the growth of its text field. */
  updateItem(oi: number, type: string, id: string | undefined, f: (it: Obj, g: Growth) => Obj): void {
    const s = this.slot(oi, type, id);
    s.fields = f(s.fields, s);
    this.touch(s);
  }

  /** Replaces element `index` of the item's list `list` (kept dense, see place) with `f(element)`. */
  updateList(oi: number, type: string, id: string | undefined, list: string, index: number, f: (old: unknown) => unknown): void {
    const s = this.slot(oi, type, id);
    place(listOf(s, list), index, f);
    this.touch(s);
  }

  /** Like updateList for a short list inside an object field of the item (`action.commands`), copied. */
  updateNested(oi: number, type: string, outer: string, list: string, index: number, f: (old: unknown) => unknown): void {
    const s = this.slot(oi, type, undefined);
    const it = s.fields;
    const o = isObj(it[outer]) ? it[outer] : {};
    const [next, keys] = placeAt(o[list], s.nested?.get(list), index, f);
    if (keys !== undefined) (s.nested ??= new Map()).set(list, keys);
    else s.nested?.delete(list);
    s.fields = { ...it, [outer]: { ...o, [list]: next } };
    this.touch(s);
  }

  /** Replaces part `index` of the item's `content` / `summary` with `f(part)`; `fresh()` when there is none. */
  updatePart(oi: number, type: string, id: string | undefined, list: 'content' | 'summary', index: number, fresh: () => Obj, f: (p: Obj, g: Growth) => Obj): void {
    const s = this.slot(oi, type, id);
    const l = listOf(s, list);
    place(l, index, (old) => {
      const p = partNode(l, index, old, fresh);
      p.fields = f(p.fields, p);
      p.view = build(p);
      return p.view;
    });
    this.touch(s);
  }

  /** Sets part `index` to `part` as an event sent it (its own annotations replace ours). */
  replacePart(oi: number, type: string, id: string | undefined, list: 'content' | 'summary', index: number, part: Obj): void {
    const s = this.slot(oi, type, id);
    const l = listOf(s, list);
    place(l, index, () => part);
    l.nodes?.delete(index);
    this.touch(s);
  }

  /** Sets annotation `ai` of content part `ci` (kept dense like the other lists). */
  annotate(oi: number, id: string | undefined, ci: number, ai: number, annotation: unknown, fresh: () => Obj): void {
    const s = this.slot(oi, 'message', id);
    const l = listOf(s, 'content');
    place(l, ci, (old) => {
      const p = partNode(l, ci, old, fresh);
      place(listOf(p, 'annotations'), ai, () => annotation);
      p.view = build(p);
      return p.view;
    });
    this.touch(s);
  }

  /** The slot at `oi`, a placeholder one when the item was never seen. */
  private slot(oi: number, type: string, id: string | undefined): Slot {
    return this.slots.get(oi) ?? this.add(oi, placeholder(type, id));
  }

  private add(oi: number, item: Obj): Slot {
    const s: Slot = { index: oi, pos: 0, fields: item, lists: undefined, view: item, n: 0, nested: undefined };
    this.slots.set(oi, s);
    const sorted = this.sorted;
    const last = sorted[sorted.length - 1];
    if (last === undefined || last.index < oi) {
      // items almost always open in order
      s.pos = sorted.length;
      sorted.push(s);
      this.order = this.order.push(item);
    } else {
      const at = lowerBound(sorted.length, (i) => sorted[i]!.index, oi);
      sorted.splice(at, 0, s);
      for (let i = at; i < sorted.length; i++) sorted[i]!.pos = i;
      this.order = this.order.insert(at, item);
    }
    return s;
  }

  /** The slot changed: a new view, in the output at its position. */
  private touch(s: Slot): void {
    s.view = build(s);
    this.order = this.order.set(s.pos, s.view);
  }
}

/** The node of part `index` of `l`, made from the element there (or `fresh()`) the first time. */
function partNode(l: List, index: number, old: unknown, fresh: () => Obj): Node {
  let p = l.nodes?.get(index);
  if (p === undefined) {
    p = newNode(isObj(old) ? old : fresh());
    (l.nodes ??= new Map()).set(index, p);
  }
  return p;
}
