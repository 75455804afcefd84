import type { JsonSink } from './json-scanner.js';

// The value level of the incremental JSON parser: what the scanner found, built into the value shown so far.
// Completed values are built once and never copied again; only the open containers (the path from the root to
// where the text is) are copied to show a change, and only when the copy credit covers it (see partial-json.ts).

/** An open array or object. */
interface Frame {
  readonly array: boolean;
  /** Its completed entries, mutated in place (never shown: a copy is). */
  readonly items: unknown[] | Record<string, unknown>;
  /** How many entries: what a copy costs. */
  size: number;
  /** An object's key whose value has begun. */
  key: string | undefined;
  /** The copy last shown, and the change count when it was made: reused at the close if nothing changed since. */
  shown: unknown;
  shownAt: number;
}

/** Slots a write earns whatever its length, and per character: small documents show every change. */
export const CREDIT_PER_WRITE = 64;
export const CREDIT_PER_CHARACTER = 8;

const NONE: unique symbol = Symbol('none');

/** `o[key] = v` that keeps `__proto__` an own property, as JSON.parse does. */
function setEntry(o: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value: v, writable: true, enumerable: true, configurable: true });
  else o[key] = v;
}

export class PartialValueBuilder implements JsonSink {
  private readonly stack: Frame[] = [];
  /** Entries in all open containers, plus one per container: what showing a change costs. */
  private openSlots = 0;
  private leaf = '';
  private leafOpen = false;
  private root: unknown = NONE;
  /** Visible changes so far, and the count when the value was last shown. */
  private changes = 0;
  private shownChanges = 0;
  private credit = 0;
  /** The value last shown. */
  shown: unknown = undefined;
  /** Entries copied so far to show changes (the cost the credit bounds). */
  copiedSlots = 0;

  open(array: boolean): void {
    this.stack.push({ array, items: array ? [] : {}, size: 0, key: undefined, shown: undefined, shownAt: -1 });
    this.openSlots++;
    this.changes++;
  }

  close(): void {
    const f = this.stack.pop()!;
    this.openSlots -= f.size + 1;
    // Unchanged since it was shown: the shown copy is its final value, so it stays the same object.
    this.commit(f.shownAt === this.changes ? f.shown : f.items);
  }

  key(key: string): void {
    this.stack[this.stack.length - 1]!.key = key;
  }

  stringStart(): void {
    this.leaf = '';
    this.leafOpen = true;
    this.changes++;
  }

  stringAppend(text: string): void {
    this.leaf += text;
    this.changes++;
  }

  stringEnd(): void {
    this.leafOpen = false;
    this.commit(this.leaf);
    this.leaf = '';
  }

  scalar(value: number | boolean | null): void {
    this.commit(value);
    this.changes++;
  }

  /** After a write of `length` characters: shows the value if it changed and the credit covers the copies. */
  settle(length: number): boolean {
    this.credit += CREDIT_PER_WRITE + CREDIT_PER_CHARACTER * length;
    if (this.changes === this.shownChanges || this.openSlots > this.credit) return false;
    this.credit -= this.openSlots;
    this.show();
    return true;
  }

  /** The final value (the scanner has checked the text is complete). */
  finish(): unknown {
    this.shown = this.root;
    this.shownChanges = this.changes;
    return this.root;
  }

  private commit(v: unknown): void {
    const f = this.stack[this.stack.length - 1];
    if (f === undefined) {
      this.root = v;
      return;
    }
    if (f.array) {
      (f.items as unknown[]).push(v);
    } else {
      const items = f.items as Record<string, unknown>;
      const key = f.key!;
      const repeated = Object.prototype.hasOwnProperty.call(items, key); // the last one wins, as in JSON.parse
      setEntry(items, key, v);
      f.key = undefined;
      if (repeated) return;
    }
    f.size++;
    this.openSlots++;
  }

  /** Copies the open containers, innermost first, each with its begun child; completed entries are shared. */
  private show(): void {
    let child: unknown = this.leafOpen ? this.leaf : NONE;
    for (let d = this.stack.length - 1; d >= 0; d--) {
      const f = this.stack[d]!;
      let copy: unknown[] | Record<string, unknown>;
      if (f.array) {
        copy = (f.items as unknown[]).slice();
        if (child !== NONE) copy.push(child);
      } else {
        copy = { ...(f.items as Record<string, unknown>) };
        if (child !== NONE && f.key !== undefined) setEntry(copy, f.key, child);
      }
      this.copiedSlots += f.size + 1;
      f.shown = copy;
      f.shownAt = this.changes;
      child = copy;
    }
    this.shown = this.stack.length > 0 ? child : this.root !== NONE ? this.root : child === NONE ? undefined : child;
    this.shownChanges = this.changes;
  }
}
