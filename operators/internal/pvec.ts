// A persistent vector (not exported from the package): a 32-way trie plus a tail, as Clojure's. Every
// operation returns a new vector and leaves the old one intact, sharing all but the path it changed, so
// `set` / `push` cost O(log32 n) (O(1) on the last 32 elements, where streaming writes) whatever the length.

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

type Node = unknown[];

export class PVec<T> {
  private static readonly EMPTY = new PVec<never>(0, BITS, [], []);

  private constructor(
    readonly size: number,
    private readonly shift: number,
    private readonly root: Node,
    private readonly tail: readonly T[],
  ) {}

  static empty<T>(): PVec<T> {
    return PVec.EMPTY;
  }

  /** A vector of the elements of `a` (O(n), once). */
  static from<T>(a: readonly T[]): PVec<T> {
    if (a.length <= WIDTH) return a.length === 0 ? PVec.EMPTY : new PVec<T>(a.length, BITS, [], a.slice());
    let v = new PVec<T>(WIDTH, BITS, [], a.slice(0, WIDTH));
    for (let i = WIDTH; i < a.length; i += WIDTH) v = v.pushTail(a.slice(i, i + WIDTH));
    return v;
  }

  private tailOffset(): number {
    return this.size < WIDTH ? 0 : ((this.size - 1) >>> BITS) << BITS;
  }

  private leafFor(i: number): readonly T[] {
    if (i >= this.tailOffset()) return this.tail;
    let node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(i >>> level) & MASK] as Node;
    return node as T[];
  }

  get(i: number): T | undefined {
    return i >= 0 && i < this.size ? this.leafFor(i)[i & MASK] : undefined;
  }

  /** The vector with `v` at `i` (`0 <= i < size`), or pushed when `i === size`. */
  set(i: number, v: T): PVec<T> {
    if (i === this.size) return this.push(v);
    if (i < 0 || i > this.size) throw new RangeError(`PVec.set(${i}) on size ${this.size}`);
    if (i >= this.tailOffset()) {
      const tail = this.tail.slice();
      tail[i & MASK] = v;
      return new PVec(this.size, this.shift, this.root, tail);
    }
    return new PVec(this.size, this.shift, assoc(this.shift, this.root, i, v), this.tail);
  }

  push(v: T): PVec<T> {
    if (this.size - this.tailOffset() < WIDTH) return new PVec(this.size + 1, this.shift, this.root, [...this.tail, v]);
    return this.pushTail([v]);
  }

  /** The vector with `v` inserted at `i`, later elements moving up: O(1) at the end, O(n) elsewhere (rare). */
  insert(i: number, v: T): PVec<T> {
    if (i === this.size) return this.push(v);
    const a = this.toArray();
    a.splice(i, 0, v);
    return PVec.from(a);
  }

  toArray(): T[] {
    const out = new Array<T>(this.size);
    for (let i = 0; i < this.size; i += WIDTH) {
      const leaf = this.leafFor(i);
      for (let j = 0; j < leaf.length && i + j < this.size; j++) out[i + j] = leaf[j]!;
    }
    return out;
  }

  /** The full tail moves into the trie and `next` (1..32 elements) becomes the tail. */
  private pushTail(next: T[]): PVec<T> {
    const leaf = this.tail as unknown as Node;
    let root: Node;
    let shift = this.shift;
    if (this.size >>> BITS > 1 << this.shift) {
      root = [this.root, newPath(this.shift, leaf)];
      shift += BITS;
    } else {
      root = pushLeaf(this.size, this.shift, this.root, leaf);
    }
    return new PVec(this.size + next.length, shift, root, next);
  }
}

function assoc(level: number, node: Node, i: number, v: unknown): Node {
  const copy = node.slice();
  if (level === 0) copy[i & MASK] = v;
  else {
    const sub = (i >>> level) & MASK;
    copy[sub] = assoc(level - BITS, node[sub] as Node, i, v);
  }
  return copy;
}

function pushLeaf(size: number, level: number, parent: Node, leaf: Node): Node {
  const sub = ((size - 1) >>> level) & MASK;
  const copy = parent.slice();
  if (level === BITS) copy[sub] = leaf;
  else {
    const child = parent[sub] as Node | undefined;
    copy[sub] = child !== undefined ? pushLeaf(size, level - BITS, child, leaf) : newPath(level - BITS, leaf);
  }
  return copy;
}

function newPath(level: number, leaf: Node): Node {
  return level === 0 ? leaf : [newPath(level - BITS, leaf)];
}
