// Writing a Responses stream to a client as SSE, `id: <sequence_number>` on every event, with backpressure:
// a source read from the event log is let go when the socket's buffer is full, and read again after the last
// event written on 'drain' (a slow reader of the log costs one socket buffer). The live source of the client that
// started a stream cannot be read again unless the log holds it: its events wait for the client in memory, up to
// a bound; past it the source is let go for the log when the log records the stream, else the stream ends.
import type { ServerResponse } from 'node:http';
import type { Observable, Subscription } from 'rxjs';
import { rawDataOf } from '../lib/decode/raw-data.js';
import { isTerminalType } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { responsesErrorFrame } from '../lib/sse/error-frame.js';
import { GatewayStreamError } from './stream-errors.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and friends: do not buffer the stream.
  'x-accel-buffering': 'no',
} as const;

/** One SSE event: `id:` (its sequence number, what `Last-Event-ID` brings back), `event:` and `data:`. */
export function sseFrame(e: ResponseStreamEvent): string {
  const type = e.type;
  // A type with a line break would forge SSE fields: refused upstream by the decoder, checked again here.
  const safeType = typeof type === 'string' && !/[\r\n]/.test(type) ? type : 'message';
  const seq = e.sequence_number;
  // The upstream's own text when the decoder kept it (the same JSON, not serialised again); one with line
  // breaks (multi-line `data:`) would need a `data:` per line: serialised instead.
  const raw = rawDataOf(e);
  const data = raw !== undefined && raw.indexOf('\n') === -1 ? raw : JSON.stringify(e);
  return `${Number.isSafeInteger(seq) ? `id: ${seq as number}\n` : ''}event: ${safeType}\ndata: ${data}\n\n`;
}

export interface PumpOptions {
  readonly res: ServerResponse;
  /** The cursor the client resumes after (`starting_after`, `Last-Event-ID`). */
  readonly startingAfter?: number;
  /**
   * The events after `after`. `attempt` 0 is the first subscription; later ones follow a pause for
   * backpressure (they must read from the log).
   */
  readonly open: (after: number | undefined, attempt: number) => Observable<ResponseStreamEvent>;
  /** The first source (attempt 0) is live: what it sent and was not written yet exists nowhere else but the log. */
  readonly live?: LiveSource;
  /** Milliseconds between `: keep-alive` comments; 0 for none. */
  readonly heartbeatMs: number;
  /** The source failed before anything was written: answer with a JSON error. */
  readonly onFailedBeforeStart: (err: unknown) => void;
  /**
   * The terminal event of a cancelled stream (`response.cancelled`), or `undefined` when it was not cancelled.
   * Asked when the source ends (completes or fails) before a terminal event was written: a cancelled stream
   * ends with it (numbered one past the last event written), so that a client sees the cancel, never the
   * interruption a body cut short looks like (which a resuming client would reconnect after).
   */
  readonly cancelled?: () => Promise<ResponseStreamEvent | undefined>;
  /** Each event written. */
  readonly onEvent?: () => void;
  /** Once, when the pump is done (ended, failed, or the client left). */
  readonly onDone: () => void;
}

/** How the live source of a stream's starting client is held for a client that reads slower than it sends. */
export interface LiveSource {
  /** Most bytes waiting for the client (written, not yet taken by its socket) before the source is let go or the stream ends. */
  readonly maxPendingBytes: number;
  /**
   * Whether the events not yet sent can be read from the log instead: then, past `maxPendingBytes`, the source is
   * let go and the log read from the socket's 'drain' on; else the stream ends with `client_too_slow`.
   */
  readonly canReread: () => boolean;
}

/** A running pump: `stop()` ends it (the gateway closing). */
export interface Pump {
  stop(): void;
}

/** Joined frames are written once they reach this many characters (the socket's high-water mark), else on the next tick. */
const FLUSH_AT = 16 * 1024;

/** Streams events from `open` to `res` until the source completes, fails, or the client leaves. */
export function pumpSSE(o: PumpOptions): Pump {
  const { res } = o;
  let last = o.startingAfter;
  let attempt = 0;
  let sub: Subscription | undefined;
  /** Whether the current source is the live one (o.live, attempt 0). */
  let live = false;
  let started = false;
  let paused = false;
  let ended = false;
  let beat: NodeJS.Timeout | undefined;
  // Events that arrive together (one upstream chunk, one page of the log) leave in one write to the socket:
  // their frames are joined until the next tick, or until FLUSH_AT characters.
  let pending = '';
  let scheduled = false;
  let terminalSeen = false;

  const finish = (): void => {
    if (ended) return;
    ended = true;
    sub?.unsubscribe();
    clearInterval(beat);
    res.off('drain', resume);
    o.onDone();
  };
  res.on('close', finish); // the client left (or the stream ended): the source is let go, the producer runs on
  // Gone already (while the route waited for the log or read the body): no 'close' will come.
  if (res.destroyed || res.writableEnded) {
    finish();
    return { stop: () => undefined };
  }

  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    if (o.heartbeatMs > 0) {
      beat = setInterval(() => {
        if (!paused && !ended && pending === '') res.write(': keep-alive\n\n');
      }, o.heartbeatMs);
      beat.unref();
    }
  };

  const failBeforeStart = (err: unknown): void => {
    finish();
    o.onFailedBeforeStart(err);
  };

  const flush = (): void => {
    scheduled = false;
    if (ended || pending === '') return;
    const text = pending;
    pending = '';
    // As bytes: the socket counts a string's characters, and maxPendingBytes is about memory (UTF-8 text is up to 3×).
    const ok = res.write(Buffer.from(text));
    // Never after the terminal event: the source completes next, and a reader that took a stream over only
    // completes once its last appends are acknowledged (let go now, they would be dropped).
    if (paused || terminalSeen) return;
    if (!live || o.live === undefined) {
      if (!ok) letGo();
      return;
    }
    // The socket's buffer is the memory the live events wait in: bytes written and not yet taken by the client.
    if (res.writableLength <= o.live.maxPendingBytes) return;
    if (o.live.canReread()) letGo();
    else tooSlow();
  };

  /** Lets the source go until the socket drains; then the events after the last one written come from the log. */
  const letGo = (): void => {
    paused = true;
    sub?.unsubscribe();
    res.once('drain', resume);
  };

  /** The live events waiting for the client went past the bound, and the log cannot hold them: a typed end. */
  const tooSlow = (): void => {
    paused = true;
    sub?.unsubscribe();
    res.end(responsesErrorFrame(new GatewayStreamError('client_too_slow'), last));
    finish();
  };

  const next = (e: ResponseStreamEvent): void => {
    if (ended || paused) return;
    start();
    pending += sseFrame(e);
    if (Number.isSafeInteger(e.sequence_number)) last = e.sequence_number as number;
    if (isTerminalType(e.type)) terminalSeen = true;
    o.onEvent?.();
    if (pending.length >= FLUSH_AT) flush();
    else if (!scheduled) {
      scheduled = true;
      process.nextTick(flush);
    }
  };

  /** Ends the response after the source ended (`err` when it failed); a cancelled stream ends with its terminal event. */
  const end = (err?: { readonly error: unknown }): void => {
    paused = true; // nothing more from this source while the ending is decided
    flush();
    // After a terminal event nothing more is said: the stream already ended in-band.
    if (terminalSeen || !o.cancelled) return close(undefined, err);
    void o.cancelled().catch(() => undefined).then((terminal) => close(terminal, err));
  };

  const close = (terminal: ResponseStreamEvent | undefined, err: { readonly error: unknown } | undefined): void => {
    if (ended) return;
    start();
    if (terminal !== undefined) res.write(sseFrame({ ...terminal, sequence_number: last === undefined ? 0 : last + 1 } as ResponseStreamEvent));
    else if (err !== undefined && !terminalSeen) res.write(responsesErrorFrame(err.error, last));
    res.end();
    finish();
  };

  const subscribe = (): void => {
    live = o.live !== undefined && attempt === 0;
    const current = o.open(last, attempt++).subscribe({
      next,
      error: (err: unknown) => {
        if (ended || paused) return;
        if (!started) return failBeforeStart(err);
        end({ error: err });
      },
      complete: () => {
        if (ended || paused) return;
        end();
      },
    });
    sub = current;
    if (paused || ended) current.unsubscribe();
  };

  function resume(): void {
    if (ended) return;
    paused = false;
    subscribe();
  }

  subscribe();

  return {
    stop: () => {
      if (ended) return;
      if (!started) {
        finish();
        res.destroy();
        return;
      }
      flush();
      res.end();
      finish();
    },
  };
}
