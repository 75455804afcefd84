// Writing a Responses stream to a client as SSE, `id: <sequence_number>` on every event, with backpressure:
// a source read from the event log is let go when the socket's buffer is full, and read again after the last
// event written on 'drain' (a slow reader of the log costs one socket buffer). The live source of the client that
// started a stream cannot be read again unless the log holds it: its events wait for the client in memory, up to
// a bound; past it the source is let go for the log when the log records the stream, else the stream ends.
import type { ServerResponse } from 'node:http';
import { Subscriber, type Observable, type Subscription } from 'rxjs';
import { inBurst } from '../lib/burst.js';
import { isTerminalType } from '../lib/events/guards.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { reportUnhandled } from '../lib/report-unhandled.js';
import { responsesErrorFrame } from '../lib/sse/error-frame.js';
import { afterReads as sharedAfterReads, type AfterReads } from './after-reads.js';
import { writeChunk, writeCounterOf, type DrainSource } from './chunk-write.js';
import { SSE_HEADERS, sseFrame } from './sse-frame.js';
import { GatewayStreamError } from './stream-errors.js';

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
  return new SsePump(o);
}

/**
 * One client's pump: a class, its state in fields and its steps in shared methods, where a closure per step and a
 * context for the state were some sixteen functions per open stream (docs/performance.md, the gateway's sixteenth
 * round). Only what is handed out as a callback is bound: `finish` ('close'), `resume` ('drain'), `flush` (a tick).
 */
class SsePump implements Pump {
  // Read once: the options objects of a thousand pumps do not share one shape (their routes differ), and a property
  // read per event from them missed V8's cache of shapes on most events (a runtime look-up each).
  private readonly res: ServerResponse;
  private readonly liveSource: LiveSource | undefined;
  private readonly onEvent: (() => void) | undefined;
  private readonly counter: ReturnType<typeof writeCounterOf>;
  private readonly afterReads: AfterReads;
  private last: number | undefined;
  private attempt = 0;
  private sub: Subscription | undefined;
  /** Whether the current source is the live one (o.live, attempt 0). */
  private live = false;
  private started = false;
  private paused = false;
  private ended = false;
  private beat: NodeJS.Timeout | undefined;
  // Events that arrive together (one upstream chunk, one page of the log) leave in one write to the socket:
  // their frames are joined until the next tick, or until FLUSH_AT characters.
  private pending = '';
  private scheduled = false;
  /** What the last write's bytes wait in when it returned false (the socket, when written to it directly). */
  private lastWrite: DrainSource;
  /** What the pump waits on for 'drain' while it has let its source go. */
  private waitingOn: DrainSource;
  private terminalSeen = false;

  constructor(private readonly o: PumpOptions) {
    const { res } = o;
    this.res = res;
    this.liveSource = o.live;
    this.onEvent = o.onEvent;
    this.counter = writeCounterOf(res);
    this.afterReads = o.afterReads ?? sharedAfterReads;
    this.last = o.startingAfter;
    this.lastWrite = res;
    this.waitingOn = res;
    res.on('close', this.finish); // the client left (or the stream ended): the source is let go, the producer runs on
    // Gone already (while the route waited for the log or read the body): no 'close' will come.
    if (res.destroyed || res.writableEnded) {
      this.finish();
      return;
    }
    this.subscribe();
  }

  stop(): void {
    if (this.ended) return;
    if (!this.started) {
      this.finish();
      this.res.destroy();
      return;
    }
    this.flush();
    this.res.end();
    this.finish();
  }

  private readonly finish = (): void => {
    if (this.ended) return;
    this.ended = true;
    this.sub?.unsubscribe();
    clearInterval(this.beat);
    this.waitingOn.off('drain', this.resume);
    this.o.onDone();
  };

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, SSE_HEADERS);
    this.res.flushHeaders();
    if (this.o.heartbeatMs > 0) {
      this.beat = setInterval(() => {
        if (!this.paused && !this.ended && this.pending === '') this.res.write(': keep-alive\n\n');
      }, this.o.heartbeatMs);
      this.beat.unref();
    }
  }

  private failBeforeStart(err: unknown): void {
    this.finish();
    this.o.onFailedBeforeStart(err);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.ended || this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    // As bytes: the socket counts a string's characters, and maxPendingBytes is about memory (UTF-8 text is up to 3×).
    const written = writeChunk(this.res, text, this.counter);
    this.lastWrite = written.drainOn;
    const ok = written.ok;
    // Never after the terminal event: the source completes next, and a reader that took a stream over only
    // completes once its last appends are acknowledged (let go now, they would be dropped).
    if (this.paused || this.terminalSeen) return;
    const liveSource = this.liveSource;
    if (!this.live || liveSource === undefined) {
      if (!ok) this.letGo();
      return;
    }
    // The socket's buffer is the memory the live events wait in: bytes written and not yet taken by the client.
    if (this.res.writableLength <= liveSource.maxPendingBytes) return;
    if (liveSource.canReread()) this.letGo();
    else this.tooSlow();
  };

  /** Lets the source go until the socket drains; then the events after the last one written come from the log. */
  private letGo(): void {
    this.paused = true;
    this.sub?.unsubscribe();
    this.waitingOn = this.lastWrite;
    this.waitingOn.once('drain', this.resume);
  }

  /** The live events waiting for the client went past the bound, and the log cannot hold them: a typed end. */
  private tooSlow(): void {
    this.paused = true;
    this.sub?.unsubscribe();
    this.res.end(responsesErrorFrame(new GatewayStreamError('client_too_slow'), this.last));
    this.finish();
  }

  /** @internal The source's next event (PumpSubscriber). */
  next(e: ResponseStreamEvent): void {
    if (this.ended || this.paused) return;
    this.start();
    this.pending += sseFrame(e);
    if (Number.isSafeInteger(e.sequence_number)) this.last = e.sequence_number as number;
    if (isTerminalType(e.type)) this.terminalSeen = true;
    this.onEvent?.();
    if (this.pending.length >= FLUSH_AT) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      // From an upstream read (lib/burst.ts): with the other streams' writes of this turn, after its reads
      // (after-reads.ts); from the log: on a tick, once the events it handed over at once are joined.
      if (inBurst()) this.afterReads(this.flush);
      else process.nextTick(this.flush);
    }
  }

  /** Ends the response after the source ended (`err` when it failed); a cancelled stream ends with its terminal event. */
  private end(err?: { readonly error: unknown }): void {
    this.paused = true; // nothing more from this source while the ending is decided
    this.flush();
    // After a terminal event nothing more is said: the stream already ended in-band.
    const o = this.o;
    if (this.terminalSeen || !o.cancelled) return this.close(undefined, err);
    void o.cancelled().catch(() => undefined).then((terminal) => this.close(terminal, err));
  }

  private close(terminal: ResponseStreamEvent | undefined, err: { readonly error: unknown } | undefined): void {
    if (this.ended) return;
    this.start();
    const last = this.last;
    if (terminal !== undefined) this.res.write(sseFrame({ ...terminal, sequence_number: last === undefined ? 0 : last + 1 } as ResponseStreamEvent));
    else if (err !== undefined && !this.terminalSeen) this.res.write(responsesErrorFrame(err.error, last));
    this.res.end();
    this.finish();
  }

  private subscribe(): void {
    this.live = this.liveSource !== undefined && this.attempt === 0;
    const current = this.o.open(this.last, this.attempt++).subscribe(new PumpSubscriber(this));
    this.sub = current;
    if (this.paused || this.ended) current.unsubscribe();
  }

  /** @internal The source failed (PumpSubscriber). */
  error(err: unknown): void {
    if (this.ended || this.paused) return;
    if (!this.started) return this.failBeforeStart(err);
    this.end({ error: err });
  }

  /** @internal The source completed (PumpSubscriber). */
  complete(): void {
    if (this.ended || this.paused) return;
    this.end();
  }

  private readonly resume = (): void => {
    if (this.ended) return;
    this.paused = false;
    this.subscribe();
  };
}

/**
 * The pump's subscriber to its source: a Subscriber of its own, not an observer object that `subscribe()` wraps in
 * two more layers every event crosses. As there, what its handlers throw stays with them (reported as rxjs reports
 * an observer's error, on a timer), and never reaches the source: the live source is the producer's, which runs
 * on for the log and other clients whatever one client's pump does.
 */
class PumpSubscriber extends Subscriber<ResponseStreamEvent> {
  constructor(private readonly pump: SsePump) {
    super();
  }

  protected override _next(e: ResponseStreamEvent): void {
    try {
      this.pump.next(e);
    } catch (err) {
      reportUnhandled(err);
    }
  }

  protected override _error(err: unknown): void {
    try {
      this.pump.error(err);
    } catch (e) {
      reportUnhandled(e);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      this.pump.complete();
    } catch (e) {
      reportUnhandled(e);
    } finally {
      this.unsubscribe();
    }
  }
}
