// One stream's events in the memory log, kept as their UTF-8 JSON one after another in a byte array that grows by
// doubling, with their sequence numbers and ends in a typed array beside it: nothing per event on the JS heap.
// Kept as objects (the parsed event with its raw text), every event a gateway appended outlived a scavenge or two
// and was copied into the old generation: the young collections that stop a paced gateway grew with the events
// it kept, and the old generation with every stream kept for its TTL (docs/performance.md, the gateway).
// A reader gets the events parsed again, each a new object carrying its stored text (`rawDataOf`).
import { keepRawData } from '../decode/raw-data.js';
import type { ResponseStreamEvent } from '../events/responses.js';

type Bytes = Uint8Array<ArrayBufferLike>;
type Index = Float64Array<ArrayBufferLike>;

/** The UTF-8 codec of the store: Node's Buffer where there is one, else TextEncoder/TextDecoder. */
interface Utf8 {
  alloc(size: number): Bytes;
  length(s: string): number;
  /** Writes `s` at `at` (room for `length(s)` bytes there) and answers how many bytes it wrote. */
  write(into: Bytes, s: string, at: number): number;
  read(from: Bytes, start: number, end: number): string;
}

const nodeUtf8 = (): Utf8 => ({
  // Not from Buffer's shared pool: a small store would pin an 8 KB slab for as long as its stream is kept.
  alloc: (size) => Buffer.allocUnsafeSlow(size) as unknown as Bytes,
  length: (s) => Buffer.byteLength(s, 'utf8'),
  write: (into, s, at) => (into as unknown as Buffer).write(s, at, 'utf8'),
  read: (from, start, end) => (from as unknown as Buffer).toString('utf8', start, end),
});

const webUtf8 = (): Utf8 => {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    alloc: (size) => new Uint8Array(size),
    length: (s) => encoder.encode(s).length,
    write: (into, s, at) => encoder.encodeInto(s, into.subarray(at)).written,
    read: (from, start, end) => decoder.decode(from.subarray(start, end)),
  };
};

const utf8: Utf8 = typeof Buffer === 'function' ? nodeUtf8() : webUtf8();
const EMPTY_BYTES: Bytes = new Uint8Array(0);
const EMPTY_INDEX: Index = new Float64Array(0);

/** The size an event is charged (`maxBytes`): the UTF-8 length of the text it is stored as. */
export const byteLength = (text: string): number => utf8.length(text);

/** The most UTF-8 bytes a text of `length` UTF-16 units can take (3 per unit: a pair's 4 bytes are 2 units). */
export const mostBytes = (length: number): number => 3 * length;

/**
 * A stream's stored events: append-only, sequence numbers increasing. An append stages its events past the
 * stored ones, then stores them all (`commit`) or none (`drop`): no array of them made per append.
 */
export class StoredEvents {
  private data = EMPTY_BYTES;
  /** Bytes of `data` stored: the stream's size. */
  bytes = 0;
  /** For event i: its sequence number at 2i, the end of its text in `data` at 2i + 1. */
  private index = EMPTY_INDEX;
  /** Events stored. */
  count = 0;
  /** Events staged (past `count`), and their bytes (past `bytes`). */
  private staged = 0;
  private stagedBytes = 0;

  /**
   * Stages an event stored as `text` (its JSON), numbered `seq` (above every other), and answers its size in bytes
   * (`measured` when the caller measured it). Where the room left holds its most bytes, the text is encoded once, not
   * measured first; else it is measured, and the array grows as it would for that size.
   */
  stage(seq: number, text: string, measured?: number): number {
    const at = this.bytes + this.stagedBytes;
    const i = this.count + this.staged;
    if (at + (measured ?? mostBytes(text.length)) > this.data.length) {
      const need = at + (measured ?? utf8.length(text));
      if (need > this.data.length) this.data = grown(this.data, at, need, utf8.alloc);
    }
    if (2 * i + 2 > this.index.length) this.index = grownIndex(this.index, 2 * i, 2 * i + 2);
    const size = utf8.write(this.data, text, at);
    this.index[2 * i] = seq;
    this.index[2 * i + 1] = at + size;
    this.staged++;
    this.stagedBytes += size;
    return size;
  }

  /** Stores the staged events. */
  commit(): void {
    this.count += this.staged;
    this.bytes += this.stagedBytes;
    this.drop();
  }

  /** Forgets the staged events. */
  drop(): void {
    this.staged = 0;
    this.stagedBytes = 0;
  }

  /** The position of the first event numbered above `after` (binary search: stored sequence numbers increase). */
  firstAfter(after: number): number {
    let i = 0;
    let hi = this.count;
    while (i < hi) {
      const mid = (i + hi) >>> 1;
      if (this.index[2 * mid]! <= after) i = mid + 1;
      else hi = mid;
    }
    return i;
  }

  /** The events at positions [from, to), parsed: new objects, each carrying its stored text (`rawDataOf`). */
  read(from: number, to: number): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    for (let i = from; i < to; i++) {
      const text = utf8.read(this.data, i === 0 ? 0 : this.index[2 * i - 1]!, this.index[2 * i + 1]!);
      const e = JSON.parse(text) as ResponseStreamEvent;
      keepRawData(e, text);
      out.push(e);
    }
    return out;
  }

  /** Lets go of every event (the stream was dropped): whatever still holds the stream holds no events. */
  release(): void {
    this.data = EMPTY_BYTES;
    this.index = EMPTY_INDEX;
    this.bytes = 0;
    this.count = 0;
    this.drop();
  }

  /** Gives back the room kept for growth (the stream ended: nothing more is appended while it is kept). */
  fit(): void {
    if (this.data.length > this.bytes) this.data = grown(this.data, this.bytes, this.bytes, utf8.alloc);
    if (this.index.length > 2 * this.count) this.index = grownIndex(this.index, 2 * this.count, 2 * this.count);
  }
}

/** A copy of the first `used` bytes of `data` in an array of at least `need` bytes (twice what it had when growing). */
function grown(data: Bytes, used: number, need: number, alloc: (size: number) => Bytes): Bytes {
  const next = alloc(need > data.length ? Math.max(need, 2 * data.length, 256) : need);
  next.set(data.subarray(0, used));
  return next;
}

function grownIndex(index: Index, used: number, need: number): Index {
  const next = new Float64Array(need > index.length ? Math.max(need, 2 * index.length, 16) : need);
  next.set(index.subarray(0, used));
  return next;
}
