// The concatenation of a list of strings that change, for outputText (not exported from the package).

/**
 * `full` is the concatenation of `leaves`. Changing or appending the last string costs O(1) (the streaming
 * case: `full` is the cached prefix of the others plus it); changing another costs O(log n) through a
 * segment tree of concatenations, built the first time it is needed; inserting before the end (parts that
 * open out of order) rebuilds that tree, O(n). V8 concatenates into ropes, so no text is copied.
 */
export class Joined {
  full = '';
  private readonly leaves: string[] = [];
  /** The concatenation of every leaf but the last. */
  private prefix = '';
  private tree: string[] | undefined;
  private cap = 0;
  /** A leaf whose path in the tree is out of date (the last, written on the fast path), or -1. */
  private stale = -1;

  get length(): number {
    return this.leaves.length;
  }

  at(i: number): string {
    return this.leaves[i]!;
  }

  set(i: number, s: string): void {
    const leaves = this.leaves;
    const last = leaves.length - 1;
    leaves[i] = s;
    if (i === last) {
      if (this.tree !== undefined && this.stale !== i) {
        this.flush();
        this.stale = i;
      }
    } else {
      this.ensureTree();
      this.flush();
      this.path(i);
      this.prefix = this.query(last);
    }
    this.full = this.prefix + leaves[last]!;
  }

  insert(i: number, s: string): void {
    const leaves = this.leaves;
    if (i === leaves.length) {
      this.prefix = this.full;
      leaves.push(s);
      if (this.tree !== undefined) {
        this.flush();
        if (leaves.length > this.cap) this.build();
        else this.path(i);
      }
    } else {
      leaves.splice(i, 0, s);
      this.build();
      this.prefix = this.query(leaves.length - 1);
    }
    this.full = this.prefix + leaves[leaves.length - 1]!;
  }

  private ensureTree(): void {
    if (this.tree === undefined) this.build();
  }

  private build(): void {
    const n = this.leaves.length;
    let cap = 1;
    while (cap < n) cap *= 2;
    const tree = new Array<string>(2 * cap).fill('');
    for (let i = 0; i < n; i++) tree[cap + i] = this.leaves[i]!;
    for (let p = cap - 1; p >= 1; p--) tree[p] = tree[2 * p]! + tree[2 * p + 1]!;
    this.tree = tree;
    this.cap = cap;
    this.stale = -1;
  }

  private flush(): void {
    if (this.stale >= 0 && this.stale < this.leaves.length) this.path(this.stale);
    this.stale = -1;
  }

  private path(i: number): void {
    const tree = this.tree!;
    let p = this.cap + i;
    tree[p] = this.leaves[i]!;
    for (p >>= 1; p >= 1; p >>= 1) tree[p] = tree[2 * p]! + tree[2 * p + 1]!;
  }

  /** The concatenation of leaves [0, r). */
  private query(r: number): string {
    const tree = this.tree!;
    let left = '';
    let right = '';
    let lo = this.cap;
    let hi = this.cap + r;
    while (lo < hi) {
      if (lo & 1) left += tree[lo++]!;
      if (hi & 1) right = tree[--hi]! + right;
      lo >>= 1;
      hi >>= 1;
    }
    return left + right;
  }
}
