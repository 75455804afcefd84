import { Observable } from 'rxjs';
import { DecodeError, NetworkError, OpenAIRxError } from '../errors.js';
import { keepWarm } from '../warmup.js';
import { reportUnhandled } from '../report-unhandled.js';
import { burstEnded, burstStarts } from '../burst.js';

/** Anything a stream body can come as. */
export type StreamSource =
  | string
  | Uint8Array
  | ArrayBuffer
  | Response
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>;

/**
 * Decodes whole chunks (no character cut at the end), for every stream: one ICU converter, warm, instead of one
 * per stream (a TextDecoder made per body and called with `stream` makes a converter of its own: 2.6 µs per
 * ~300-byte chunk in the gateway's paced run, 1,000 converters cold in the cache, against ~0.4 µs). Each call
 * flushes, so nothing of one chunk (or stream) is left for the next; a character cut at a chunk's end waits in
 * its Utf8. One call with `stream` first keeps Node on ICU: its fast path (taken by a decoder never called with
 * `stream`) is faster on ASCII but about twice as slow on text with other characters.
 */
let wholeChunks = icuDecoder();

function icuDecoder(): TextDecoder {
  const d = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  d.decode(new Uint8Array(0), { stream: true });
  return d;
}

function decodeWhole(bytes: Uint8Array): string {
  try {
    return wholeChunks.decode(bytes);
  } catch {
    wholeChunks = icuDecoder();
    throw new DecodeError('invalid UTF-8 in the stream body');
  }
}

/**
 * Where the whole characters of `b` end: `b.length`, or the start of a character cut at the end, one that the
 * next bytes can still complete (a valid lead and, when there, a second byte in its range: the WHATWG decoder
 * fails at once on any other, so those are left in for the decoding to refuse).
 */
export function wholeEnd(b: Uint8Array): number {
  const n = b.length;
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const c = b[i]!;
    if (c < 0x80) return n;
    if (c < 0xc0) continue; // a continuation byte: its lead is further back
    const have = n - i;
    if (c < 0xc2 || c > 0xf4 || have >= (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2)) return n;
    if (have > 1) {
      const d = b[i + 1]!;
      const [lo, hi] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      if (d < lo || d > hi) return n;
    }
    return i;
  }
  return n;
}

/**
 * Incremental UTF-8 → text, split characters carried across chunks (the few bytes of a character cut at a
 * chunk's end wait for the next chunk; every chunk is then decoded whole). A BOM is kept: the SSE scanner strips
 * exactly one, so a second one stays data whichever way the body arrived (bytes or text).
 */
export class Utf8 {
  /** The start of a character cut at the end of the last chunk (1–3 bytes), copied out of it. */
  private tail: Uint8Array | undefined;
  text(chunk: Uint8Array | string, last = false): string {
    if (typeof chunk === 'string') return chunk;
    let bytes = chunk;
    const tail = this.tail;
    if (tail !== undefined) {
      this.tail = undefined;
      bytes = new Uint8Array(tail.length + chunk.length);
      bytes.set(tail);
      bytes.set(chunk, tail.length);
    }
    const end = last ? bytes.length : wholeEnd(bytes);
    if (end < bytes.length) {
      this.tail = bytes.slice(end);
      bytes = bytes.subarray(0, end);
    }
    return decodeWhole(bytes);
  }
  /**
   * `text` of a chunk whose bytes are all ASCII, given as its text (the same characters): no decoding. After a
   * character cut at the last chunk's end it fails as the decoding would (an ASCII byte cannot continue one).
   */
  ascii(text: string): string {
    if (this.tail === undefined) return text;
    this.tail = undefined;
    throw new DecodeError('invalid UTF-8 in the stream body');
  }
  /** End of body: a character cut in half is a truncated body, not bad input (`false`). */
  flush(): boolean {
    const complete = this.tail === undefined;
    this.tail = undefined;
    return complete;
  }
}

function isReadableStream(s: unknown): s is ReadableStream<Uint8Array> {
  return typeof s === 'object' && s !== null && typeof (s as ReadableStream).getReader === 'function';
}
function isAsyncIterable(s: unknown): s is AsyncIterable<Uint8Array | string> {
  return typeof s === 'object' && s !== null && typeof (s as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}
function isFetchResponse(s: unknown): s is Response {
  return typeof s === 'object' && s !== null && 'body' in s && typeof (s as Response).status === 'number' && 'headers' in s;
}

/** The end of a body: `complete` is false when it stopped inside a UTF-8 character. */
export interface BodyEnd {
  readonly complete: boolean;
}

/**
 * A stream source as an Observable of decoded text. Byte and string sources emit synchronously;
 * streams are read by a reader this Observable owns, cancelled on unsubscribe. A last value `{ complete }`
 * marks the end of the body.
 */
export function textOf(source: StreamSource): Observable<string | BodyEnd> {
  return new Observable<string | BodyEnd>((subscriber) => {
    const utf8 = new Utf8();
    try {
      if (typeof source === 'string') {
        subscriber.next(utf8.text(source));
        subscriber.next({ complete: true });
        subscriber.complete();
        return undefined;
      }
      if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
        const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : source;
        subscriber.next(utf8.text(bytes, false));
        subscriber.next({ complete: utf8.flush() });
        subscriber.complete();
        return undefined;
      }
    } catch (e) {
      subscriber.error(e);
      return undefined;
    }
    if (isFetchResponse(source)) {
      if (!source.body) {
        subscriber.next({ complete: true });
        subscriber.complete();
        return undefined;
      }
      return readStream(source.body, utf8, subscriber);
    }
    if (isReadableStream(source)) return readStream(source, utf8, subscriber);
    if (isAsyncIterable(source)) return readIterable(source, utf8, subscriber);
    subscriber.error(new TypeError('unsupported stream source: expected a string, bytes, a Response, a ReadableStream or an AsyncIterable'));
    return undefined;
  });
}

type Sink = { next(v: string | BodyEnd): void; error(e: unknown): void; complete(): void; readonly closed: boolean };

function readStream(stream: ReadableStream<Uint8Array>, utf8: Utf8, sink: Sink): () => void {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = stream.getReader();
  } catch {
    sink.error(new NetworkError('the body stream is locked or already read'));
    return () => undefined;
  }
  const handOver = bodyHandOvers.get(stream);
  const pushing = reader as Partial<PushingReader>;
  if (typeof pushing.pushTo === 'function') return pushed(pushing as PushingReader, handOver ? () => handOver(reader) : () => reader.cancel(), utf8, sink);
  // Bound (one new function per stream) rather than an arrow (one code shared by all streams): see Pump.
  return pump(reader.read.bind(reader), handOver ? () => handOver(reader) : () => reader.cancel(), utf8, sink);
}

/** Where a {@link PushingReader} hands its body over, in order: chunks, then one `end` or one `fail`. */
export interface PushSink {
  /** A chunk's bytes, or a chunk whose bytes are all ASCII as its text (a pusher that has it needs no decoding). */
  chunk(chunk: Uint8Array | string): void;
  end(): void;
  fail(e: unknown): void;
}

/**
 * @internal A body's reader that can hand its chunks over as they come instead of per `read` (the gateway's
 * upstream body, lib-free of web streams): no promise per read and no continuation to resume. `pushTo` starts
 * it (what has come already goes first, later or at once); `unpush` stops it before the end, after which the
 * reader is read (or cancelled) as any other, by whoever the body is handed over to.
 */
export interface PushingReader extends ReadableStreamDefaultReader<Uint8Array> {
  pushTo(sink: PushSink): void;
  unpush(): void;
}

/** Reads a pushing body until the end, an error or the teardown (which stops the pushing, then cancels or hands over). */
function pushed(reader: PushingReader, cancel: () => unknown, utf8: Utf8, sink: Sink): () => void {
  const p = new Pushed(reader, cancel, utf8, sink);
  reader.pushTo(p);
  return () => p.teardown();
}

/** One pushing body being read: the same as `Pump`, its chunks handed over instead of read. */
class Pushed implements PushSink {
  private done = false;
  constructor(
    private readonly reader: PushingReader,
    private readonly cancel: () => unknown,
    private readonly utf8: Utf8,
    private readonly sink: Sink,
  ) {}

  chunk(chunk: Uint8Array | string): void {
    const sink = this.sink;
    if (this.done || sink.closed) return;
    let s: string;
    try {
      s = typeof chunk === 'string' ? this.utf8.ascii(chunk) : this.utf8.text(chunk);
    } catch (e) {
      sink.error(e); // its teardown stops the pushing and cancels
      return;
    }
    if (s.length === 0) return;
    // The chunk's events as one burst: a log writer sends them in one append (lib/burst.ts). As in `Pump.value`,
    // what a subscriber throws ends this stream and never reaches the pusher (the gateway pushes from the
    // connection's `data` listener, where a throw would be the process's).
    let thrown: { readonly e: unknown } | undefined;
    burstStarts();
    try {
      sink.next(s);
    } catch (e) {
      thrown = { e };
    }
    try {
      burstEnded();
    } catch (e) {
      thrown ??= { e };
    }
    if (thrown === undefined) return;
    if (sink.closed) reportUnhandled(thrown.e);
    else sink.error(thrown.e); // its teardown stops the pushing and cancels
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    const sink = this.sink;
    if (sink.closed) return;
    sink.next({ complete: this.utf8.flush() });
    sink.complete();
  }

  fail(e: unknown): void {
    if (this.done) return;
    this.done = true;
    if (!this.sink.closed) this.sink.error(toNetworkError(e));
  }

  teardown(): void {
    if (this.done) return;
    this.done = true;
    this.reader.unpush();
    cancelQuietly(this.cancel);
  }
}

/** What becomes of a body's reader when its reading stops before the end (see `handOverBody`). */
export type BodyHandOver = (reader: ReadableStreamDefaultReader<Uint8Array>) => void;

const bodyHandOvers = new WeakMap<ReadableStream<Uint8Array>, BodyHandOver>();

/**
 * @internal When the reading of `body` stops before its end (the decoder saw the terminal event, or the
 * subscriber left), its reader goes to `handOver` instead of being cancelled: the HTTP layer then decides
 * between reading the rest (the connection stays reusable) and cancelling (an unsubscribe mid-stream).
 */
export function handOverBody(body: ReadableStream<Uint8Array>, handOver: BodyHandOver): void {
  bodyHandOvers.set(body, handOver);
}

function readIterable(iterable: AsyncIterable<Uint8Array | string>, utf8: Utf8, sink: Sink): () => void {
  const it = iterable[Symbol.asyncIterator]();
  return pump(it.next.bind(it), () => it.return?.(), utf8, sink);
}

/** Reads until the end, an error or the teardown, which cancels the read side. */
function pump(
  read: () => Promise<IteratorResult<Uint8Array | string>>,
  cancel: () => unknown,
  utf8: Utf8,
  sink: Sink,
): () => void {
  keepWarm('body reader', pumpShape);
  const p = new Pump(read, cancel, utf8, sink);
  p.step();
  return () => p.teardown();
}

/**
 * One body being read. A class rather than closures made per stream, so that the optimised code of the
 * per-chunk path belongs to functions that live as long as the module and survives a full GC between
 * streams (see SSEScannerCore); the two callbacks only forward to its methods.
 *
 * `read` is a bound function, a new one per stream, so the call in `step` sees a new target each stream and
 * TurboFan does not inline the runtime's read path (reader, controller, read request, the source's pull) into
 * `step` and `onValue`. Inlined, that code embeds the hidden classes of one stream's objects, which die with
 * them: after each full GC both functions were deoptimised ("weak objects") and compiled again with that whole
 * path, 20–70 ms of compiler time per stream on this machine.
 */
class Pump {
  private done = false;
  private readonly onValue: (r: IteratorResult<Uint8Array | string>) => void;
  private readonly onFailure: (e: unknown) => void;

  constructor(
    private readonly read: () => Promise<IteratorResult<Uint8Array | string>>,
    private readonly cancel: () => unknown,
    private readonly utf8: Utf8,
    private readonly sink: Sink,
  ) {
    // Bound methods, not arrows: an arrow's optimised code dies with the last stream's arrow at a full GC, and
    // each stream then compiled it again; the methods' code lives as long as the class.
    this.onValue = this.value.bind(this);
    this.onFailure = this.failure.bind(this);
  }

  step(): void {
    const read = this.read;
    read().then(this.onValue, this.onFailure);
  }

  private value(r: IteratorResult<Uint8Array | string>): void {
    const sink = this.sink;
    if (sink.closed) return;
    if (r.done) {
      this.done = true;
      sink.next({ complete: this.utf8.flush() });
      sink.complete();
      return;
    }
    try {
      const s = this.utf8.text(r.value);
      if (s.length > 0) sink.next(s);
    } catch (e) {
      sink.error(e);
      return;
    }
    if (!sink.closed) this.step();
  }

  private failure(e: unknown): void {
    this.done = true;
    if (!this.sink.closed) this.sink.error(toNetworkError(e));
  }

  teardown(): void {
    if (this.done) return;
    this.done = true;
    cancelQuietly(this.cancel);
  }
}

/** Cancels the read side, whatever it answers: a reader that cannot cancel is released with the subscription anyway. */
function cancelQuietly(cancel: () => unknown): void {
  try {
    Promise.resolve(cancel()).catch(() => undefined);
  } catch {
    // nothing left to do: the subscription is gone
  }
}

/** A read failure as a NetworkError. Only the error's name is kept: messages can quote URLs or headers. */
export function toNetworkError(e: unknown): Error {
  if (e instanceof OpenAIRxError) return e;
  const name = e instanceof Error ? e.name : typeof e;
  return new NetworkError(`the connection failed while reading the body (${name})`);
}

/** An Observable of body chunks (bytes or text) as decoded text, with the `BodyEnd` marker when it completes. */
export function textOfChunks(chunks: Observable<Uint8Array | string>): Observable<string | BodyEnd> {
  return new Observable<string | BodyEnd>((subscriber) => {
    const utf8 = new Utf8();
    return chunks.subscribe({
      next(c) {
        let s: string;
        try {
          s = utf8.text(c);
        } catch (e) {
          subscriber.error(e);
          return;
        }
        if (s.length > 0) subscriber.next(s);
      },
      error: (e: unknown) => subscriber.error(e),
      complete() {
        subscriber.next({ complete: utf8.flush() });
        subscriber.complete();
      },
    });
  });
}

/** A reader kept once the first body is read, unless warm-ups are off, so that its hidden class (and Utf8's) survives a full GC. */
const pumpShape = (): Pump =>
  new Pump(
    () => Promise.resolve({ done: true, value: undefined }),
    () => undefined,
    new Utf8(),
    { next: () => undefined, error: () => undefined, complete: () => undefined, closed: true },
  );
