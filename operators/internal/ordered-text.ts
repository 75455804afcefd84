// The texts of a response's parts, kept in output order and concatenated, for outputText (not exported from
// the package).

interface Node {
  readonly oi: number;
  readonly ci: number;
  text: string;
  /** The concatenation of the subtree's texts in order (V8 concatenates into ropes: nothing is copied). */
  sum: string;
  height: number;
  left: Node | undefined;
  right: Node | undefined;
}

const before = (oi: number, ci: number, n: Node): boolean => oi < n.oi || (oi === n.oi && ci < n.ci);
const heightOf = (n: Node | undefined): number => (n === undefined ? 0 : n.height);
const sumOf = (n: Node | undefined): string => (n === undefined ? '' : n.sum);

/**
 * Parts keyed by (output_index, content_index), in that order, and `full`, the concatenation of their texts.
 * An AVL tree whose nodes hold the concatenation of their subtree, so that every operation costs O(log n)
 * whatever the order the parts open in (ascending, descending, random): setting a part's text or opening a
 * part recomputes the one path from the root. Writing the last part (the streaming case: deltas on the part
 * that opened last) costs O(1): `full` is the cached text of every other part plus it, and the path is
 * brought up to date only when another operation needs it.
 *
 * `work` counts the nodes each operation touches (a test reads it to check the cost without timing).
 */
export class OrderedText {
  full = '';
  work = 0;
  private root: Node | undefined;
  private readonly byOutput = new Map<number, Map<number, Node>>();
  /** The last part in order, whose text `full` ends with. */
  private last: Node | undefined;
  /** The concatenation of every part before `last`. */
  private prefix = '';
  /** The sums on the path to `last` miss its latest text. */
  private stale = false;

  /** The text of part (oi, ci), or `undefined` when it never opened. */
  get(oi: number, ci: number): string | undefined {
    return this.byOutput.get(oi)?.get(ci)?.text;
  }

  /** Sets the text of part (oi, ci), opening it when new. */
  set(oi: number, ci: number, text: string): void {
    this.work++;
    const node = this.byOutput.get(oi)?.get(ci);
    if (node !== undefined && node === this.last) {
      node.text = text;
      this.stale = true;
      this.full = this.prefix + text;
      return;
    }
    this.flush();
    if (node === undefined) {
      const fresh: Node = { oi, ci, text, sum: text, height: 1, left: undefined, right: undefined };
      let parts = this.byOutput.get(oi);
      if (parts === undefined) this.byOutput.set(oi, (parts = new Map()));
      parts.set(ci, fresh);
      this.root = this.insert(this.root, fresh);
      if (this.last === undefined || before(this.last.oi, this.last.ci, fresh)) this.last = fresh;
    } else {
      node.text = text;
      this.update(this.root!, node);
    }
    this.prefix = this.before();
    this.full = this.prefix + this.last!.text;
  }

  private insert(n: Node | undefined, fresh: Node): Node {
    this.work++;
    if (n === undefined) return fresh;
    if (before(fresh.oi, fresh.ci, n)) n.left = this.insert(n.left, fresh);
    else n.right = this.insert(n.right, fresh);
    return this.balance(n);
  }

  /** Recomputes the sums on the path from `n` down to `target`. */
  private update(n: Node, target: Node): void {
    this.work++;
    if (n !== target) this.update(before(target.oi, target.ci, n) ? n.left! : n.right!, target);
    pull(n);
  }

  /** Brings the path to `last` up to date after writes on the fast path. */
  private flush(): void {
    if (!this.stale) return;
    this.stale = false;
    this.update(this.root!, this.last!);
  }

  /** The concatenation of every part before `last`: what lies left of the right spine. */
  private before(): string {
    let s = '';
    for (let n = this.root; n !== undefined; n = n.right) {
      this.work++;
      s += sumOf(n.left);
      if (n.right !== undefined) s += n.text;
    }
    return s;
  }

  private balance(n: Node): Node {
    const d = heightOf(n.left) - heightOf(n.right);
    if (d > 1) {
      if (heightOf(n.left!.left) < heightOf(n.left!.right)) n.left = rotateLeft(n.left!);
      return rotateRight(n);
    }
    if (d < -1) {
      if (heightOf(n.right!.right) < heightOf(n.right!.left)) n.right = rotateRight(n.right!);
      return rotateLeft(n);
    }
    pull(n);
    return n;
  }
}

function pull(n: Node): void {
  n.height = 1 + Math.max(heightOf(n.left), heightOf(n.right));
  n.sum = sumOf(n.left) + n.text + sumOf(n.right);
}

function rotateRight(n: Node): Node {
  const l = n.left!;
  n.left = l.right;
  pull(n);
  l.right = n;
  pull(l);
  return l;
}

function rotateLeft(n: Node): Node {
  const r = n.right!;
  n.right = r.left;
  pull(n);
  r.left = n;
  pull(r);
  return r;
}
