// An HTTP/1.1 response read from a connection's bytes: the head, then the body by its framing (RFC 9112 §6.3),
// handed on as views of the bytes read (no copy). node:http's client copies every body chunk into a buffer of its
// own and passes it through two streams: for a paced answer, one event per read, that was 8% of the gateway's CPU
// samples and one of the two young `ArrayBuffer`s each delta left for the collector (docs/performance.md, the
// gateway's fifteenth round). No I/O here: upstream-connection.ts feeds it.

/** What the upstream answered that is not HTTP/1.1 as the gateway reads it: the connection is not used again. */
export class Http1ResponseError extends Error {
  readonly code = 'HPE_INVALID_RESPONSE';
  constructor(message: string) {
    super(`invalid upstream response: ${message}`);
    this.name = 'Http1ResponseError';
  }
}

export interface ResponseHead {
  readonly status: number;
  /** Names and values, one after the other, as they came (values without surrounding whitespace). */
  readonly rawHeaders: string[];
  /** Whether the connection may carry another request once this body has ended. */
  readonly keepAlive: boolean;
}

export interface ResponseSink {
  /** The final answer's head (1xx answers before it are read and skipped). */
  head(head: ResponseHead): void;
  /** A piece of the body: a view of bytes read, valid until the next read (keep or copy it before then). */
  body(piece: Buffer): void;
  /** The body has ended (its framing is complete). */
  end(): void;
}

export interface ResponseLimits {
  /** Bytes of a head (status line and headers), and of a chunked body's trailers. Default 16 KiB, as node:http. */
  readonly maxHeadBytes?: number;
}

/** (A Buffer is the Uint8Array `indexOf` takes: the DOM and Node typings disagree on its buffer's type.) */
const CRLF2 = Buffer.from('\r\n\r\n') as unknown as Uint8Array;
/** An HTTP token (RFC 9110 §5.6.2): a header's name, a request's method. */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A value's characters: visible ASCII, space, tab and obs-text; no CR, LF or NUL. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5][0-9][0-9])(?: [^\r\n]*)?$/;
/** Hex digits of a chunk size: at most 13 (within Number.MAX_SAFE_INTEGER). */
const MAX_SIZE_DIGITS = 13;
const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
const MAX_SIZE_LINE = 4096;

const enum State {
  Head,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  Length,
  UntilClose,
  Done,
}

/**
 * Reads one response from the bytes `push`ed to it and tells `sink` of its head, its body's pieces and its end.
 * `push` throws an {@link Http1ResponseError} for bytes that are not a response (the caller closes the connection).
 */
export class Http1Response {
  private state = State.Head;
  /** Bytes of an unfinished head, size line or trailers, kept across reads. */
  private held: Buffer | undefined;
  /** Body bytes left in the current chunk, or of a content-length body. */
  private left = 0;
  private keepAlive = false;
  private readonly maxHeadBytes: number;

  constructor(
    private readonly sink: ResponseSink,
    /** The request's method: a HEAD request's answer has no body, whatever its headers say. */
    private readonly method: string,
    limits: ResponseLimits = {},
  ) {
    this.maxHeadBytes = limits.maxHeadBytes ?? 16 * 1024;
  }

  /** Whether the body has ended. */
  get done(): boolean {
    return this.state === State.Done;
  }

  /** Whether the connection may be used again: the body ended, the answer allows it, and nothing came after it. */
  get reusable(): boolean {
    return this.state === State.Done && this.keepAlive;
  }

  /** Reads the bytes of one socket read. */
  push(bytes: Buffer): void {
    let b = bytes;
    if (this.held !== undefined) {
      b = Buffer.concat([this.held, bytes] as unknown as Uint8Array[]);
      this.held = undefined;
    }
    let at = 0;
    while (at < b.length) {
      switch (this.state) {
        case State.Head:
          at = this.readHead(b, at);
          break;
        case State.ChunkSize:
          at = this.readChunkSize(b, at);
          break;
        case State.ChunkData:
        case State.Length: {
          const end = Math.min(b.length, at + this.left);
          this.left -= end - at;
          this.sink.body(b.subarray(at, end));
          at = end;
          if (this.left === 0) {
            if (this.state === State.Length) this.finish();
            else this.state = State.ChunkEnd;
          }
          break;
        }
        case State.ChunkEnd:
          if (b.length - at < 2) return this.hold(b, at);
          if (b[at] !== 13 || b[at + 1] !== 10) throw new Http1ResponseError('a chunk not followed by CRLF');
          at += 2;
          this.state = State.ChunkSize;
          break;
        case State.Trailers:
          at = this.readTrailers(b, at);
          break;
        case State.UntilClose:
          this.sink.body(b.subarray(at));
          at = b.length;
          break;
        case State.Done:
          // Bytes after the answer, unasked: the connection is not reused.
          this.keepAlive = false;
          return;
      }
      if (at < 0) return; // held for the next read
    }
  }

  /** The connection ended: a body that runs until then ends; any other unfinished answer is an error. */
  close(): void {
    if (this.state === State.UntilClose) return this.finish();
    if (this.state !== State.Done) throw new Http1ResponseError(this.state === State.Head ? 'the connection closed before an answer' : 'the connection closed before the body ended');
  }

  private hold(b: Buffer, at: number): void {
    // A copy: `b` may be the socket's read, which the caller does not keep.
    this.held = Buffer.from(b.subarray(at) as unknown as Uint8Array);
  }

  /** Holds the rest of `b` (no line end yet), unless it is past `max`; answers -1 (wait for the next read). */
  private wait(b: Buffer, at: number, max: number, what: string): number {
    if (b.length - at > max) throw new Http1ResponseError(`${what} longer than ${max} bytes`);
    this.hold(b, at);
    return -1;
  }

  private readHead(b: Buffer, at: number): number {
    const end = b.indexOf(CRLF2, at);
    if (end === -1) return this.wait(b, at, this.maxHeadBytes, 'a head');
    if (end - at > this.maxHeadBytes) throw new Http1ResponseError(`a head longer than ${this.maxHeadBytes} bytes`);
    const lines = b.toString('latin1', at, end).split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (status === null) throw new Http1ResponseError(`the status line ${JSON.stringify(lines[0]!.slice(0, 64))}`);
    const code = Number(status[2]);
    const rawHeaders: string[] = [];
    let chunked = false;
    let encoded = false;
    let length: string | undefined;
    let close = status[1] === '0';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!TOKEN.test(name)) throw new Http1ResponseError(`a header line ${JSON.stringify(line.slice(0, 64))}`);
      const value = line.slice(colon + 1).trim();
      if (!VALUE.test(value)) throw new Http1ResponseError(`the value of ${name}`);
      rawHeaders.push(name, value);
      switch (name.toLowerCase()) {
        case 'transfer-encoding':
          encoded = true;
          // Chunked only as the last coding: anything else runs until the connection closes.
          chunked = /(?:^|,)[\t ]*chunked[\t ]*$/i.test(value);
          break;
        case 'content-length':
          for (const v of value.split(',')) {
            const n = v.trim();
            if (!/^[0-9]{1,15}$/.test(n) || (length !== undefined && n !== length)) throw new Http1ResponseError('its content-length');
            length = n;
          }
          break;
        case 'connection':
          if (/(?:^|,)[\t ]*close[\t ]*(?:,|$)/i.test(value)) close = true;
          else if (status[1] === '0' && /(?:^|,)[\t ]*keep-alive[\t ]*(?:,|$)/i.test(value)) close = false;
          break;
      }
    }
    at = end + 4;
    if (code < 200) {
      // 100 Continue, 103 Early Hints: the answer comes after. 101 was not asked for.
      if (code === 101) throw new Http1ResponseError('101 Switching Protocols, not asked for');
      return at;
    }
    this.keepAlive = !close;
    this.sink.head({ status: code, rawHeaders, keepAlive: !close });
    if (this.method === 'HEAD' || code === 204 || code === 304) this.finish();
    else if (encoded) {
      // Both framings given: the transfer coding's, and the connection is not reused (RFC 9112 §6.3).
      if (length !== undefined) this.keepAlive = false;
      this.state = chunked ? State.ChunkSize : State.UntilClose;
      if (!chunked) this.keepAlive = false;
    } else if (length !== undefined) {
      this.left = Number(length);
      this.state = State.Length;
      if (this.left === 0) this.finish();
    } else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
    return at;
  }

  private readChunkSize(b: Buffer, at: number): number {
    const lf = b.indexOf(10, at);
    if (lf === -1) return this.wait(b, at, MAX_SIZE_LINE, 'a chunk size line');
    if (lf - at > MAX_SIZE_LINE) throw new Http1ResponseError(`a chunk size line longer than ${MAX_SIZE_LINE} bytes`);
    const cr = lf - 1;
    if (lf === at || b[cr] !== 13) throw new Http1ResponseError('a chunk size line not ended by CRLF');
    // The size in hex (read here: one per paced delta), then whitespace and extensions, which are ignored.
    let size = 0;
    let i = at;
    for (let v = hexValue(b[i]!); i < cr && v >= 0; v = hexValue(b[++i]!)) size = size * 16 + v;
    if (i === at || i - at > MAX_SIZE_DIGITS) throw new Http1ResponseError('a chunk size');
    while (i < cr && (b[i] === 32 || b[i] === 9)) i++;
    if (i < cr && (b[i] !== 59 /* ; */ || b.indexOf(13, i) !== cr)) throw new Http1ResponseError('a chunk size');
    this.left = size;
    this.state = size === 0 ? State.Trailers : State.ChunkData;
    return lf + 1;
  }

  private readTrailers(b: Buffer, at: number): number {
    // No trailers: CRLF at once. Else lines up to an empty one (read past, not kept).
    if (b.length - at < 2) return this.wait(b, at, this.maxHeadBytes, 'trailers');
    if (b[at] === 13 && b[at + 1] === 10) {
      this.finish();
      return at + 2;
    }
    const end = b.indexOf(CRLF2, at);
    if (end === -1) return this.wait(b, at, this.maxHeadBytes, 'trailers');
    if (end - at > this.maxHeadBytes) throw new Http1ResponseError(`trailers longer than ${this.maxHeadBytes} bytes`);
    for (const line of b.toString('latin1', at, end).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) throw new Http1ResponseError(`a trailer line ${JSON.stringify(line.slice(0, 64))}`);
    }
    this.finish();
    return end + 4;
  }

  private finish(): void {
    this.state = State.Done;
    this.sink.end();
  }
}
