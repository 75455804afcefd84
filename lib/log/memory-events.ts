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
 * Bytes of a segment past the first: a stream's first segment grows by doubling (a copy each time) up to this
 * size, and then the stream takes a new segment of this size (or of one event's, if larger) each time one fills,
 * without copying the ones it has. Grown by doubling to the end, a long stream copied its bytes about twice over,
 * and a new array of megabytes was new pages the kernel had to clear (docs/performance.md, the gateway's bulk run).
 */
export const SEGMENT_BYTES = 64 * 1024;

/**
 * A stream's stored events: append-only, sequence numbers increasing. An append stages its events past the
 * stored ones, then stores them all (`commit`) or none (`drop`): no array of them made per append.
 *
 * The bytes are kept in segments, each event whole in one. An event's offsets are counted over the events' bytes
 * alone (the room left at a segment's end, where the next event did not fit, is not counted): event i ends at
 * `index[2i + 1]` and starts where event i − 1 ended; a segment begins at the offset of the first event in it.
 */
export class StoredEvents {
  /** The last segment (the one written to), and the offset its first byte stands for. */
  private data = EMPTY_BYTES;
  private base = 0;
  /** The segments before it and their offsets, once there are any (most streams have one segment). */
  private earlier: Bytes[] | undefined;
  private bases: number[] | undefined;
  /** Bytes stored (over every segment): the stream's size. */
  bytes = 0;
  /** For event i: its sequence number at 2i, the end of its text (an offset) at 2i + 1. */
  private index = EMPTY_INDEX;
  /** Events stored. */
  count = 0;
  /** Events staged (past `count`), and their bytes (past `bytes`). */
  private staged = 0;
  private stagedBytes = 0;

  /**
   * Stages an event stored as `text` (its JSON), numbered `seq` (above every other), and answers its size in bytes
   * (`measured` when the caller measured it). Where the room left holds its most bytes, the text is encoded once, not
   * measured first; else it is measured, and room made for that size.
   */
  stage(seq: number, text: string, measured?: number): number {
    const at = this.bytes + this.stagedBytes;
    const i = this.count + this.staged;
    if (at - this.base + (measured ?? mostBytes(text.length)) > this.data.length) this.room(at, measured ?? utf8.length(text));
    if (2 * i + 2 > this.index.length) this.index = grownIndex(this.index, 2 * i, 2 * i + 2);
    const size = utf8.write(this.data, text, at - this.base);
    this.index[2 * i] = seq;
    this.index[2 * i + 1] = at + size;
    this.staged++;
    this.stagedBytes += size;
    return size;
  }

  /** Room for `size` bytes at offset `at` in the last segment: the first one grown, or a new one begun at `at`. */
  private room(at: number, size: number): void {
    const used = at - this.base;
    if (used + size <= this.data.length) return;
    if (this.data.length < SEGMENT_BYTES) {
      this.data = grown(this.data, used, used + size, utf8.alloc);
      return;
    }
    (this.earlier ??= []).push(this.data);
    (this.bases ??= []).push(this.base);
    this.data = utf8.alloc(Math.max(SEGMENT_BYTES, size));
    this.base = at;
  }

  /** Stores the staged events. */
  commit(): void {
    this.count += this.staged;
    this.bytes += this.stagedBytes;
    this.drop();
  }

  /** Forgets the staged events (and the segments begun for them alone). */
  drop(): void {
    this.staged = 0;
    this.stagedBytes = 0;
    // A segment begun at `bytes` holds nothing stored: it stays, as the room for the next event.
    while (this.base > this.bytes) this.previous();
  }

  /** Goes back to the segment before the last (the last given up). */
  private previous(): void {
    this.data = this.earlier!.pop()!;
    this.base = this.bases!.pop()!;
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
    let k = -1; // the earlier segment read from (-1: none yet)
    for (let i = from; i < to; i++) {
      const start = i === 0 ? 0 : this.index[2 * i - 1]!;
      const end = this.index[2 * i + 1]!;
      let text: string;
      if (start >= this.base) text = utf8.read(this.data, start - this.base, end - this.base);
      else {
        const bases = this.bases!;
        // The segment the event starts in: its base is the last one at or before `start` (events never straddle).
        if (k < 0 || start < bases[k]! || (k + 1 < bases.length && start >= bases[k + 1]!)) k = segmentAt(bases, start);
        text = utf8.read(this.earlier![k]!, start - bases[k]!, end - bases[k]!);
      }
      const e = JSON.parse(text) as ResponseStreamEvent;
      keepRawData(e, text);
      out.push(e);
    }
    return out;
  }

  /** Lets go of every event (the stream was dropped): whatever still holds the stream holds no events. */
  release(): void {
    this.data = EMPTY_BYTES;
    this.base = 0;
    this.earlier = undefined;
    this.bases = undefined;
    this.index = EMPTY_INDEX;
    this.bytes = 0;
    this.count = 0;
    this.drop();
  }

  /** Gives back the room kept for growth (the stream ended: nothing more is appended while it is kept). */
  fit(): void {
    // A last segment with nothing stored (begun for dropped events) is given up; a later one begins at a base above 0.
    while (this.base > 0 && this.base === this.bytes) this.previous();
    const used = this.bytes - this.base;
    if (this.data.length > used) this.data = grown(this.data, used, used, utf8.alloc);
    if (this.index.length > 2 * this.count) this.index = grownIndex(this.index, 2 * this.count, 2 * this.count);
  }
}

/** The segment whose base is the last at or before `offset` (`bases` increase, the first is 0). */
function segmentAt(bases: readonly number[], offset: number): number {
  let lo = 0;
  let hi = bases.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (bases[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
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
