// Writing a Responses stream to a client as SSE, `id: <sequence_number>` on every event, with backpressure:
// a source read from the event log is let go when the socket's buffer is full, and read again after the last
// event written on 'drain' (a slow reader of the log costs one socket buffer). The live source of the client that
// started a stream cannot be read again unless the log holds it: its events wait for the client in memory, up to
// a bound; past it the source is let go for the log when the log records the stream, else the stream ends.
import type { ServerResponse } from 'node:http';
import { Subscriber, type Observable, type Subscription } from 'rxjs';
import { inBurst } from '../lib/burst.js';
import { spacedRawDataOf } from '../lib/decode/raw-data.js';
import { isTerminalType } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { reportUnhandled } from '../lib/report-unhandled.js';
import { responsesErrorFrame } from '../lib/sse/error-frame.js';
import { afterReads as sharedAfterReads, type AfterReads } from './after-reads.js';
import { writeChunk, writeCounterOf, type DrainSource } from './chunk-write.js';
import { GatewayStreamError } from './stream-errors.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and friends: do not buffer the stream.
  'x-accel-buffering': 'no',
} as const;

/** One SSE event: `id:` (its sequence number, what `Last-Event-ID` brings back), `event:` and `data:`. */
export function sseFrame(e: ResponseStreamEvent): string {
  const seq = e.sequence_number;
  // The upstream's own text when the decoder kept it (the same JSON, not serialised again), with the space that
  // follows `data:`; one with line breaks (multi-line `data:`) would need a `data:` per line: serialised instead.
  const raw = spacedRawDataOf(e);
  const data = raw !== undefined && raw.indexOf('\n') === -1 ? raw : ` ${JSON.stringify(e)}`;
  return `${Number.isSafeInteger(seq) ? `id: ${seq as number}\n` : ''}${frameHead(e.type)}${data}\n\n`;
}

/** `event: <type>\ndata:` of the types met (a few dozen: the documented ones), each checked once, not per event. */
const heads = new Map<string, string>();
/** More types than the API has: past this many (or past this length), a head is made per event (an upstream inventing types gets no cache). */
const MAX_HEADS = 256;
const MAX_CACHED_TYPE = 64;
const MESSAGE_HEAD = 'event: message\ndata:';

/** The last type asked for and its head: a run of deltas asks for the same one (a comparison, not a hash of a fresh string). */
let lastType: unknown = undefined;
let lastHead = MESSAGE_HEAD;

function frameHead(type: unknown): string {
  if (type === lastType) return lastHead;
  if (typeof type !== 'string') return MESSAGE_HEAD;
  let head = heads.get(type);
  if (head === undefined) {
    // A type with a line break would forge SSE fields: refused upstream by the decoder, checked again here.
    head = /[\r\n]/.test(type) ? MESSAGE_HEAD : `event: ${type}\ndata:`;
    if (heads.size >= MAX_HEADS || type.length > MAX_CACHED_TYPE) return head;
    heads.set(type, head);
  }
  lastType = type;
  lastHead = head;
  return head;
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
  /** Where an upstream read's writes wait for the turn's other reads: the gateway's shared queue unless given (a test's clock). */
  readonly afterReads?: AfterReads;
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
  // Read once: the options objects of a thousand pumps do not share one shape (their routes differ), and a property
  // read per event from them missed V8's cache of shapes on most events (a runtime look-up each).
  const { res, live: liveSource, onEvent } = o;
  const counter = writeCounterOf(res);
  const afterReads = o.afterReads ?? sharedAfterReads;
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
  /** What the last write's bytes wait in when it returned false (the socket, when written to it directly). */
  let lastWrite: DrainSource = res;
  /** What the pump waits on for 'drain' while it has let its source go. */
  let waitingOn: DrainSource = res;
  let terminalSeen = false;

  const finish = (): void => {
    if (ended) return;
    ended = true;
    sub?.unsubscribe();
    clearInterval(beat);
    waitingOn.off('drain', resume);
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
    const written = writeChunk(res, text, counter);
    lastWrite = written.drainOn;
    const ok = written.ok;
    // Never after the terminal event: the source completes next, and a reader that took a stream over only
    // completes once its last appends are acknowledged (let go now, they would be dropped).
    if (paused || terminalSeen) return;
    if (!live || liveSource === undefined) {
      if (!ok) letGo();
      return;
    }
    // The socket's buffer is the memory the live events wait in: bytes written and not yet taken by the client.
    if (res.writableLength <= liveSource.maxPendingBytes) return;
    if (liveSource.canReread()) letGo();
    else tooSlow();
  };

  /** Lets the source go until the socket drains; then the events after the last one written come from the log. */
  const letGo = (): void => {
    paused = true;
    sub?.unsubscribe();
    waitingOn = lastWrite;
    waitingOn.once('drain', resume);
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
    onEvent?.();
    if (pending.length >= FLUSH_AT) flush();
    else if (!scheduled) {
      scheduled = true;
      // From an upstream read (lib/burst.ts): with the other streams' writes of this turn, after its reads
      // (after-reads.ts); from the log: on a tick, once the events it handed over at once are joined.
      if (inBurst()) afterReads(flush);
      else process.nextTick(flush);
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
    live = liveSource !== undefined && attempt === 0;
    const current = o.open(last, attempt++).subscribe(new PumpSubscriber(next, error, complete));
    sub = current;
    if (paused || ended) current.unsubscribe();
  };

  const error = (err: unknown): void => {
    if (ended || paused) return;
    if (!started) return failBeforeStart(err);
    end({ error: err });
  };

  const complete = (): void => {
    if (ended || paused) return;
    end();
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

/**
 * The pump's subscriber to its source: a Subscriber of its own, not an observer object that `subscribe()` wraps in
 * two more layers every event crosses. As there, what its handlers throw stays with them (reported as rxjs reports
 * an observer's error, on a timer), and never reaches the source: the live source is the producer's, which runs
 * on for the log and other clients whatever one client's pump does.
 */
class PumpSubscriber extends Subscriber<ResponseStreamEvent> {
  constructor(
    private readonly onNext: (e: ResponseStreamEvent) => void,
    private readonly onError: (err: unknown) => void,
    private readonly onComplete: () => void,
  ) {
    super();
  }

  protected override _next(e: ResponseStreamEvent): void {
    try {
      this.onNext(e);
    } catch (err) {
      reportUnhandled(err);
    }
  }

  protected override _error(err: unknown): void {
    try {
      this.onError(err);
    } catch (e) {
      reportUnhandled(e);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      this.onComplete();
    } catch (e) {
      reportUnhandled(e);
    } finally {
      this.unsubscribe();
    }
  }
}
