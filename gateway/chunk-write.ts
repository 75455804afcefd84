// Writing a streamed answer's pieces as HTTP/1.1 chunks of the gateway's own: the chunk's size line, the bytes and
// the CRLF in one buffer and one socket write. `ServerResponse.write` corks the socket for each piece, queues four
// writes (size, CRLF, bytes, CRLF) and sends them in one writev on the next tick: at one event per piece (a paced
// stream) one write instead saves 8–15% of the gateway's CPU per delta (docs/performance.md, the seventh round).
import { OutgoingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const protoWrite = OutgoingMessage.prototype.write;

/** A `res.write` wrapper that only counts what passes (the access log's), and how to tell it of a direct write. */
export interface WriteCounter {
  readonly write: ServerResponse['write'];
  readonly count: (bytes: number) => void;
}
const counters = new WeakMap<ServerResponse, WriteCounter>();

/** Declares `write` (now `res.write`) a wrapper that only counts bytes: a direct write then counts through `count`. */
export function countsWrites(res: ServerResponse, write: ServerResponse['write'], count: (bytes: number) => void): void {
  counters.set(res, { write, count });
}

/**
 * The socket a chunk can go to directly, or `undefined` when `res.write` must take it: the answer is chunked, its
 * head is on the socket, the socket is this answer's (not a pipelined one's, `res.socket` is null until then) and
 * nothing of it waits in `res`; and `res.write` is Node's own (or the access log's count), not a wrapper that
 * transforms (a compression middleware). The internals read here fail safe: anything unexpected takes `res.write`.
 */
function directSocket(res: ServerResponse, counter: WriteCounter | undefined): Socket | undefined {
  const sock = res.socket;
  if (!sock || sock.destroyed || res.writableEnded || res.chunkedEncoding !== true) return undefined;
  const internals = res as unknown as { readonly _headerSent?: unknown };
  if (internals._headerSent !== true || (sock as unknown as { readonly _httpMessage?: unknown })._httpMessage !== res) return undefined;
  if (res.writableLength !== sock.writableLength) return undefined;
  if (res.write !== protoWrite && res.write !== counter?.write) return undefined;
  return sock;
}

/** Where a write's bytes wait when it returns false: its `'drain'` says when to write again. */
export type DrainSource = ServerResponse | Socket;

export interface ChunkWritten {
  /** `false` when the bytes wait in memory (as `write` returns): write again on `drainOn`'s `'drain'`. */
  readonly ok: boolean;
  readonly drainOn: DrainSource;
}

/** What counts `res`'s writes, if anything: set when its request starts, so a writer of many chunks looks it up once. */
export const writeCounterOf = (res: ServerResponse): WriteCounter | undefined => counters.get(res);

/**
 * Writes `text` (UTF-8) to the answer: as one chunk on its socket when that is safe, else through
 * `res.write`. The answer's end (`res.end`) closes the chunked body as usual.
 */
export function writeChunk(res: ServerResponse, text: string, counter: WriteCounter | undefined = counters.get(res)): ChunkWritten {
  const sock = text.length === 0 ? undefined : directSocket(res, counter);
  if (sock === undefined) return { ok: res.write(Buffer.from(text)), drainOn: res };
  if (text.length >= SCRATCH_FROM && 3 * text.length + SIZE_ROOM + 2 <= SCRATCH_BYTES && sock.writableLength === 0 && !(sock as { encrypted?: unknown }).encrypted) {
    return { ok: writeFromScratch(sock, text, counter), drainOn: sock };
  }
  const n = Buffer.byteLength(text);
  const head = n.toString(16).length + 2;
  const chunk = Buffer.allocUnsafe(head + n + 2);
  chunk.write(text, head, 'utf8');
  sizeAround(chunk, head, n);
  counter?.count(n);
  // (A Buffer is the Uint8Array `write` takes: the DOM and Node typings disagree on its buffer's type.)
  return { ok: sock.write(chunk as unknown as Uint8Array), drainOn: sock };
}

/**
 * The buffer chunks are encoded in, shared by every answer: one pass over the text, and no buffer made per write (a
 * bulk flush of 16K characters was a fresh 16–48 KB one). A socket that keeps a write (its buffer full, corked)
 * keeps the buffer: it is given up then, and the next write makes another. Written to only for a socket that holds
 * nothing (its bytes would go behind what waits there anyway). Not for TLS sockets (their record layer).
 */
let scratch: Buffer | undefined;
const SCRATCH_BYTES = 64 * 1024;
/**
 * Texts shorter than this take a buffer of their own, from Node's pool (a paced delta): a kept write then pins the
 * pool's 8 KB, where a view of the scratch would pin 64 KB for each slow client.
 */
const SCRATCH_FROM = 4096;
/** Room for the size line before the text: 8 hex digits (the scratch's size is less) and CRLF. */
const SIZE_ROOM = 10;

function writeFromScratch(sock: Socket, text: string, counter: WriteCounter | undefined): boolean {
  const buf = (scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES));
  // The text first (its UTF-8 length is what Buffer.write answers), then its size line right before it.
  const n = buf.write(text, SIZE_ROOM, 'utf8');
  const start = sizeAround(buf, SIZE_ROOM, n);
  counter?.count(n);
  const ok = sock.write(buf.subarray(start, SIZE_ROOM + n + 2) as unknown as Uint8Array);
  // Not taken whole at once: the socket (or libuv) holds a view of it until then; another socket must not write over it.
  if (sock.writableLength !== 0) scratch = undefined;
  return ok;
}

/** Makes the `n` bytes at `at` of `buf` a chunk: its size line (hex, CRLF) right before them, CRLF after; answers where it starts. */
function sizeAround(buf: Buffer, at: number, n: number): number {
  const size = n.toString(16);
  const start = at - 2 - size.length;
  buf.write(size, start, 'latin1');
  buf[at - 2] = 13;
  buf[at - 1] = 10;
  buf[at + n] = 13;
  buf[at + n + 1] = 10;
  return start;
}
