// The gateway's upstream when the operator passed no `fetch`: HTTP/1.1 over keep-alive connections of its own
// (upstream-connection.ts). The answer is masked as its bytes arrive and read without web streams: each socket
// read goes through the masking scan and on to the body's reader, one promise, where `fetch` took undici's stream,
// a TransformStream and their readers (a quarter of the gateway's CPU per delta, and ~40 KB of heap per open
// stream).
import type { Socket } from 'node:net';
import { isAscii } from 'node:buffer';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { UpstreamConnections, type UpstreamAnswer, type UpstreamConnectionOptions, type UpstreamRequest } from './upstream-connection.js';
import { BYTES_AT_LEAST, StreamRedactor } from '../lib/redact-stream.js';
import { isKeptHeader, NO_BODY, type MaskedUpstream, type UpstreamInit } from './answer-masking.js';
import { PreparedSecrets, redactString, type Secrets } from '../lib/redact.js';
import type { PushingReader, PushSink } from '../lib/sse/source.js';

/** Bytes gathered for a reader that does not read before the socket is paused. */
const HIGH_WATER_BYTES = 1 << 20;
/** A Buffer as the Uint8Array it is (the DOM and Node typings disagree on its buffer's type). */
const bytes = (b: Buffer): Uint8Array => b as unknown as Uint8Array;

const DONE: ReadableStreamReadDoneResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

/** `fetch`'s errors, so that the callers' handling (502 with the system code, NetworkError) is the same. */
const fetchFailed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });
const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

const RESOLVED = Promise.resolve();

/** Where a body's bytes come from: the answer itself, or the decompressor it is written into. */
interface BodySource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * The body of an upstream answer, masked: the subset of a `ReadableStream` and its reader that the library's
 * transports and the gateway's relay use (`getReader`, `read`, `cancel`). The socket is paused while
 * {@link HIGH_WATER_BYTES} wait for a read.
 *
 * Its reader also pushes (`PushingReader`, lib/sse/source.ts): the decoder then gets each socket read's chunks,
 * masked, at the end of that read's callback (the socket's `data` listeners around the HTTP client's), with no
 * read promise and no continuation per read; chunks that come outside a socket read (buffered before the first
 * one, or from a decompressor) go on a microtask.
 */
class MaskedBody implements Pick<PushingReader, 'pushTo' | 'unpush'> {
  private readonly queue: Uint8Array[] = [];
  /**
   * The chunks not read yet. The HTTP parser hands each chunk of a chunked body over on its own (one per upstream
   * write, often one event), all of a socket read before the reader's continuation runs: they are masked and read
   * as one piece when the reader takes them (one scan, one promise, one UTF-8 decoding per socket read).
   */
  private part: Buffer | undefined;
  /** The chunks after `part` (a read's several, or several reads' unread): an array only then, not one per read that outlives it. */
  private moreParts: Buffer[] | undefined;
  private partsBytes = 0;
  private readonly redactor: StreamRedactor;
  private ended = false;
  private failed = false;
  private failure: unknown;
  private waiting: { resolve: (r: ReadableStreamReadResult<Uint8Array>) => void; reject: (e: unknown) => void } | undefined;
  private paused = false;
  locked = false;
  /** Where the chunks go while pushing. */
  private sink: PushSink | undefined;
  /** Inside a socket read's `data` callback, between the listeners around the HTTP client's. */
  private inRead = false;
  private hooked = false;
  private flushQueued = false;
  private readonly readStarts = (): void => {
    this.inRead = true;
  };
  private readonly readEnds = (): void => {
    this.inRead = false;
    if (this.sink !== undefined && this.part !== undefined) this.flush();
  };
  private readonly flushLater = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  constructor(
    private readonly source: BodySource,
    secrets: PreparedSecrets,
    private readonly stop: () => void,
    /** The connection, when `source` is the answer itself (not a decompressor's output). */
    private readonly socket: Socket | undefined,
  ) {
    this.redactor = new StreamRedactor(secrets);
    source.on('data', (chunk: Buffer) => this.data(chunk));
    source.on('end', () => this.end());
    source.on('error', (e: unknown) => this.fail(e));
    source.on('close', () => {
      if (!this.ended) this.fail(new Error('the upstream connection closed before the body ended'));
    });
  }

  private data(chunk: Buffer): void {
    if (this.ended) return;
    if (this.part === undefined) this.part = chunk;
    else (this.moreParts ??= []).push(chunk);
    this.partsBytes += chunk.length;
    if (this.sink !== undefined) {
      // Pushed at the end of the socket read, with the chunks after it in the same read.
      if (!this.inRead) this.later();
    } else {
      const w = this.waiting;
      if (w !== undefined) {
        // Its value is taken when read: with the chunks that came after this one in the same socket read.
        this.waiting = undefined;
        w.resolve(new GatheredRead(this));
        return;
      }
    }
    if (this.partsBytes >= HIGH_WATER_BYTES && !this.paused) {
      this.paused = true;
      this.source.pause();
    }
  }

  /** Starts pushing to `sink`: what has come already goes on a microtask. */
  pushTo(sink: PushSink): void {
    if (this.waiting !== undefined) throw new TypeError('a read is already pending');
    this.sink = sink;
    if (!this.ended && this.socket !== undefined && !this.hooked) {
      this.hooked = true;
      this.socket.prependListener('data', this.readStarts);
      this.socket.on('data', this.readEnds);
    }
    if (this.queue.length > 0 || this.part !== undefined || this.ended) this.later();
  }

  /** Stops pushing: the body is read (or cancelled) from here on. */
  unpush(): void {
    this.sink = undefined;
    this.unhook();
  }

  private unhook(): void {
    this.inRead = false;
    if (!this.hooked) return;
    this.hooked = false;
    this.socket!.removeListener('data', this.readStarts);
    this.socket!.removeListener('data', this.readEnds);
  }

  private later(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    void RESOLVED.then(this.flushLater);
  }

  /** Pushes what has come, in order, then the end once the body has ended (and stops pushing). */
  private flush(): void {
    const sink = this.sink;
    if (sink === undefined) return;
    while (this.queue.length > 0) {
      sink.chunk(this.queue.shift()!);
      if (this.sink !== sink) return;
    }
    if (this.part !== undefined) {
      const value = this.take(true);
      if (value.length > 0) sink.chunk(value);
      if (this.sink !== sink) return;
    }
    if (!this.ended) return;
    this.unpush();
    if (this.failed) sink.fail(this.failure);
    else sink.end();
  }

  /**
   * @internal The chunks gathered so far, masked (empty when all of it is held back, or nothing came). `asText`: a
   * piece whose bytes are all ASCII (most of a model's answer) comes as its text, which the reader then need not
   * decode: the masking's latin1 string of a small piece is that text already, and a large one's is a plain copy.
   */
  take(asText: true): Uint8Array | string;
  take(): Uint8Array;
  take(asText = false): Uint8Array | string {
    const first = this.part;
    if (first === undefined) return EMPTY;
    const more = this.moreParts;
    this.dropParts();
    if (this.paused) {
      this.paused = false;
      this.source.resume();
    }
    const chunk = more === undefined ? first : Buffer.concat([first, ...more] as unknown as Uint8Array[]);
    const redactor = this.redactor;
    if (asText && isAscii(chunk)) {
      const text = chunk.toString('latin1');
      if (chunk.length < BYTES_AT_LEAST) {
        // What `pushBytes` does with a small piece, keeping the string it scans.
        const out = redactor.push(text);
        return redactor.unchanged ? text : bytes(Buffer.from(out, 'latin1'));
      }
      // A bulk read: its one text is tested, cut and decoded (no copies of it as bytes and again as text).
      const out = redactor.pushLatin1(chunk, text);
      return typeof out === 'string' ? out : bytes(out);
    }
    // Most reads hold no secret: their own bytes go on (or those after the tail held back from the last read).
    const out = redactor.pushBytes(chunk);
    return asText && isAscii(out) ? out.toString('latin1') : bytes(out);
  }

  private dropParts(): void {
    this.part = undefined;
    this.moreParts = undefined;
    this.partsBytes = 0;
  }

  private deliver(value: Uint8Array): void {
    const w = this.waiting;
    if (w !== undefined) {
      this.waiting = undefined;
      w.resolve({ done: false, value });
      return;
    }
    this.queue.push(value);
  }

  private end(): void {
    if (this.ended) return;
    // The chunks not read yet go before the held-back rest.
    if (this.part !== undefined) this.queue.push(this.take());
    const rest = this.redactor.end();
    if (rest !== '') this.deliver(bytes(Buffer.from(rest, 'latin1')));
    this.ended = true;
    this.settle();
  }

  private fail(e: unknown): void {
    if (this.ended) return;
    if (this.part !== undefined) this.queue.push(this.take());
    this.ended = true;
    this.failed = true;
    this.failure = fetchFailed(e);
    this.settle();
  }

  /** The waiting read, once the body has ended (its queued chunks are read first). */
  private settle(): void {
    if (this.sink !== undefined) return this.flush();
    const w = this.waiting;
    if (w === undefined) return;
    this.waiting = undefined;
    if (this.failed) w.reject(this.failure);
    else w.resolve(DONE);
  }

  getReader(): this {
    if (this.locked) throw new TypeError('the body is locked or already read');
    this.locked = true;
    return this;
  }

  releaseLock(): void {
    this.locked = false;
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.sink !== undefined) return Promise.reject(new TypeError('the body is being pushed'));
    const next = this.queue.shift();
    if (next !== undefined) return Promise.resolve({ done: false, value: next });
    if (this.part !== undefined) return Promise.resolve({ done: false, value: this.take() });
    if (this.ended) return this.failed ? Promise.reject(this.failure) : Promise.resolve(DONE);
    if (this.waiting !== undefined) return Promise.reject(new TypeError('a read is already pending'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** Stops the body: the connection is closed (not reused), a pending read ends as done. */
  cancel(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.queue.length = 0;
      this.dropParts();
      this.stop();
      this.settle();
    }
    return Promise.resolve();
  }

  /** The request's signal aborted mid-body: the reading fails with its reason, as fetch's does. */
  abort(reason: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failed = true;
    this.failure = reason;
    this.queue.length = 0;
    this.dropParts();
    this.stop();
    this.settle();
  }

  async text(): Promise<string> {
    const chunks: Uint8Array[] = [];
    for (let r = await this.getReader().read(); !r.done; r = await this.read()) chunks.push(r.value);
    return Buffer.concat(chunks).toString('utf8');
  }
}

const EMPTY = new Uint8Array(0);

/** A read resolved on a chunk's arrival, whose value is what has come by the time it is read (see `MaskedBody.part`). */
class GatheredRead {
  readonly done = false as const;
  private taken: Uint8Array | undefined;
  constructor(private readonly body: MaskedBody) {}
  get value(): Uint8Array {
    return (this.taken ??= this.body.take());
  }
}

/**
 * An upstream answer: status, allow-listed and masked headers, masked body. The part of a `Response` the gateway
 * and the library's transports read (`ok`, `status`, `headers`, `body`, `text`, `json`).
 */
class MaskedAnswer {
  readonly ok: boolean;
  readonly statusText = '';
  readonly redirected = false;
  readonly type = 'basic';
  readonly bodyUsed = false;
  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: Headers,
    readonly body: MaskedBody | null,
  ) {
    this.ok = status >= 200 && status <= 299;
  }
  text(): Promise<string> {
    return this.body === null ? Promise.resolve('') : this.body.text();
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
}

/** The answer's headers a client may see, values masked (as `maskedHeaders`). */
function keptHeaders(res: UpstreamAnswer, secrets: PreparedSecrets): Headers {
  const out = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (isKeptHeader(raw[i]!)) out.append(raw[i]!, redactString(raw[i + 1]!, secrets));
  }
  return out;
}

/** The answer's `content-encoding`, from its raw headers. */
function encodingOf(res: UpstreamAnswer): string {
  const raw = res.rawHeaders;
  let out: string | undefined;
  // Repeated, joined (then no single decoder matches: the bytes go as they are).
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.length === 16 && raw[i]!.toLowerCase() === 'content-encoding') out = out === undefined ? raw[i + 1]! : `${out}, ${raw[i + 1]!}`;
  return out ?? '';
}

/** The body's bytes as sent, decoded when the upstream compressed them despite `accept-encoding: identity`. */
function decoded(res: UpstreamAnswer): BodySource {
  const encoding = encodingOf(res).trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return res;
  // As a pipe: the answer paused while the decoder is full; a broken answer destroys it.
  let ended = false;
  res.on('data', (piece: Buffer) => {
    if (!decoder.write(piece)) res.pause();
  });
  decoder.on('drain', () => res.resume());
  res.on('end', () => {
    ended = true;
    decoder.end();
  });
  res.on('error', (e: Error) => decoder.destroy(e));
  res.on('close', () => {
    if (!ended) decoder.destroy(new Error('the upstream connection closed before the body ended'));
  });
  return decoder;
}

export interface NodeUpstream {
  readonly request: MaskedUpstream;
  /** Closes the agents' idle connections (the gateway's close). */
  close(): void;
}

/** The gateway's default upstream: HTTP/1.1 over keep-alive connections of its own. */
export function nodeUpstream(options: UpstreamConnectionOptions = {}): NodeUpstream {
  const connections = new UpstreamConnections(options);
  const request: MaskedUpstream = (url, init, secrets) => send(url, init, secrets, connections);
  return { request, close: () => connections.close() };
}

function send(url: string, init: UpstreamInit, secrets: Secrets, connections: UpstreamConnections): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  let target: URL;
  try {
    target = new URL(url);
  } catch (e) {
    return Promise.reject(new TypeError(`Failed to parse URL from ${url}`, { cause: e }));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new TypeError(`fetch failed: the protocol ${target.protocol} is not supported`));
  // Copied by Object.assign, not `{ ...init.headers, 'accept-encoding': … }`: a literal that starts with a spread and
  // adds a property gets a hidden class of its own in V8 11 (Node 20), a runtime call per request.
  const headers: Record<string, string | number> = Object.assign({}, init.headers);
  headers['accept-encoding'] = 'identity';
  const body = init.body === null || init.body === undefined ? undefined : typeof init.body === 'string' ? (Buffer.from(init.body) as unknown as Uint8Array) : init.body;
  if (body !== undefined) headers['content-length'] = body.byteLength;
  const method = (init.method ?? 'GET').toUpperCase();
  try {
    return answerOf(connections.request(target, method, headers, body), url, method, signal, secrets);
  } catch (e) {
    // As from fetch: a header that cannot be sent (a line break in a value) rejects, it does not throw.
    return Promise.reject(e);
  }
}

/**
 * The answer to `req`. In a scope of its own, apart from the request's headers and body: its listeners live as
 * long as the body is read (an idle stream's, for as long as it is open), and keep only what they use; the
 * promise's settling functions are let go once it has settled (else the resolved answer, its headers, stay too).
 */
function answerOf(req: UpstreamRequest, url: string, method: string, signal: AbortSignal | undefined, secrets: Secrets): Promise<Response> {
  let settle: ((answer: Response | undefined, error?: unknown) => void) | undefined;
  const promise = new Promise<Response>((resolve, reject) => {
    settle = (answer, error) => (answer !== undefined ? resolve(answer) : reject(error));
  });
  const settled = (answer: Response | undefined, error?: unknown): void => {
    const s = settle;
    settle = undefined;
    s?.(answer, error);
  };
  let answered = false;
  let body: MaskedBody | null = null;
  const onAbort = (): void => {
    req.destroy();
    if (!answered) settled(undefined, abortReason(signal!));
    // The body's reading fails as fetch's does: with the abort's reason.
    else body?.abort(abortReason(signal!));
  };
  const done = (): void => signal?.removeEventListener('abort', onAbort);
  signal?.addEventListener('abort', onAbort, { once: true });
  req.on('error', (e: Error) => {
    if (answered) return; // the body's source reports it
    done();
    settled(undefined, signal?.aborted === true ? abortReason(signal) : fetchFailed(e));
  });
  req.on('response', (res: UpstreamAnswer) => {
    answered = true;
    const status = res.statusCode;
    // Made ready once for the answer's headers and its body.
    const prepared = new PreparedSecrets(secrets);
    const headersOut = keptHeaders(res, prepared);
    if (method === 'HEAD' || NO_BODY.has(status)) {
      res.resume();
      res.on('close', done);
      return settled(new MaskedAnswer(url, status, headersOut, null) as unknown as Response);
    }
    const source = decoded(res);
    body = new MaskedBody(source, prepared, () => req.destroy(), source === res ? res.socket : undefined);
    res.on('close', done);
    settled(new MaskedAnswer(url, status, headersOut, body) as unknown as Response);
  });
  return promise;
}
