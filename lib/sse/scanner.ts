import { LimitExceededError } from '../errors.js';
import { positiveInt } from '../options.js';

/**
 * Receives each SSE message: its `event:` name (if any), its joined `data:` lines, and whether the body
 * ended inside it (no blank line after it: it may be cut short). Positional, so no object per message.
 */
export type SSEMessageHandler = (event: string | undefined, data: string, unterminated: boolean) => void;

export interface SSELimits {
  /** Longest line, in characters, before a `LimitExceededError` (default 128 Mi). Comment lines count too. */
  readonly maxLineLength?: number;
  /**
   * Largest event (its buffered `data:`), in characters (default 128 Mi: a 64 MiB image event decodes).
   * Comments and unknown fields are dropped as they arrive and never count.
   */
  readonly maxEventSize?: number;
}

export const DEFAULT_MAX_LINE_LENGTH = 128 * 1024 * 1024;
export const DEFAULT_MAX_EVENT_SIZE = 128 * 1024 * 1024;

/** @internal Throws the `InvalidOptionError` of a limit that is not an integer ≥ 1. */
export function checkSSELimits(limits: SSELimits): void {
  positiveInt('maxLineLength', limits.maxLineLength);
  positiveInt('maxEventSize', limits.maxEventSize);
}

export interface SSEScanner {
  /** Feeds decoded text (one leading BOM is stripped); calls `onMessage` for each complete message. Throws `LimitExceededError`. */
  feed(text: string): void;
  /** The body ended: delivers a last message that lacked its blank line. */
  end(): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** What the line being read turned out to be, once its first characters tell. */
const Line = {
  /** Too short to tell (`"da"` may become `data:` or `dax:`). */
  Undecided: 0,
  /** A `data:` or `event:` line: buffered until its line end. */
  Kept: 1,
  /** A comment, `id:`, `retry:` or unknown field: nothing this library reads, so dropped as it arrives. */
  Dropped: 2,
} as const;
type Line = (typeof Line)[keyof typeof Line];

/** How a line's first characters classify it; `whole` says they are all of it so far. */
function classify(head: string, whole: boolean): Line {
  if (head.charCodeAt(0) === COLON) return Line.Dropped;
  const colon = head.indexOf(':');
  const name = colon === -1 ? head : head.slice(0, colon);
  if (colon !== -1) return name === 'data' || name === 'event' ? Line.Kept : Line.Dropped;
  // No colon yet: still possibly `data`/`event` only while it is a prefix of one and nothing follows.
  if (whole && ('data'.startsWith(name) || 'event'.startsWith(name))) return Line.Undecided;
  return Line.Dropped;
}

/** What the scanner hands each message to (the decoders implement it; `createSSEScanner` wraps a function). */
export interface SSEMessageSink {
  onMessage(event: string | undefined, data: string, unterminated: boolean): void;
}

/**
 * Text → SSE messages, by the WHATWG rules (CR, LF and CRLF line ends; comments; multi-line data), with
 * the explicit limits a network edge needs. A CR that ends a chunk ends its line at once (a CR-only
 * server's last event is not held back waiting for a possible LF); an LF starting the next chunk is then
 * the second half of that CRLF. Lines that cannot matter (comments, unknown fields) are never buffered.
 *
 * A class rather than closures made per stream: the optimised code of its methods belongs to functions that
 * live as long as the module, so it survives a full GC between streams (the code of a closure dies with the
 * closures of its last stream, and each new stream then runs unoptimised until V8 compiles it again).
 */
export class SSEScannerCore implements SSEScanner {
  // The line being read: its fragments (only for kept or undecided lines), their length, its full length.
  private parts: string[] = [];
  private partsLength = 0;
  private lineLength = 0;
  private kind: Line = Line.Undecided;
  // The message being read.
  private data = '';
  private hasData = false;
  private event: string | undefined = undefined;
  private afterCR = false;
  private ending = false;
  private started = false;
  private readonly maxLine: number;
  private readonly maxEvent: number;

  constructor(
    private readonly sink: SSEMessageSink,
    limits: SSELimits = {},
  ) {
    this.maxLine = limits.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.maxEvent = limits.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  }

  private dispatch(): void {
    const name = this.event;
    this.event = undefined;
    if (!this.hasData) return;
    const d = this.data;
    this.data = '';
    this.hasData = false;
    this.sink.onMessage(name, d, this.ending);
  }

  private addData(value: string): void {
    const data = this.hasData ? `${this.data}\n${value}` : value;
    this.data = data;
    this.hasData = true;
    if (data.length > this.maxEvent) throw new LimitExceededError('maxEventSize', this.maxEvent);
  }

  /**
   * The line `text[from, to)` (terminator removed). The usual `data:` and `event:` lines are matched in `text`
   * without a slice of the whole line (a line ends before a CR or LF, which neither name holds, or at the text's
   * end, so a match never runs past it): only the value is cut out.
   */
  private line(text: string, from: number, to: number): void {
    if (text.startsWith('data:', from)) {
      const v = from + 5;
      return this.addData(v < to && text.charCodeAt(v) === SPACE ? text.slice(v + 1, to) : text.slice(v, to));
    }
    if (text.startsWith('event:', from)) {
      const v = from + 6;
      this.event = (v < to && text.charCodeAt(v) === SPACE ? text.slice(v + 1, to) : text.slice(v, to)) || undefined;
      return;
    }
    if (from === to) return this.dispatch();
    if (text.charCodeAt(from) === COLON) return;
    const s = text.slice(from, to);
    const colon = s.indexOf(':');
    const name = colon === -1 ? s : s.slice(0, colon);
    // `data` / `event` with no colon: the field with an empty value.
    if (name === 'data') this.addData('');
    else if (name === 'event') this.event = undefined;
  }

  /**
   * The end of the line being read, whose last piece is `text[from, to)`. Protected for `scanSSEText` (text.ts),
   * which reads a whole text in one feed and so sees every line here whole, with its place in the text.
   */
  protected endLine(text: string, from: number, to: number): void {
    const pending = this.kind;
    const length = this.lineLength + (to - from);
    this.lineLength = 0;
    this.kind = Line.Undecided;
    if (length > this.maxLine) throw new LimitExceededError('maxLineLength', this.maxLine);
    if (pending === Line.Dropped) return;
    const parts = this.parts;
    if (parts.length === 0) return this.line(text, from, to);
    parts.push(text.slice(from, to));
    const s = parts.join('');
    this.parts = [];
    this.partsLength = 0;
    this.line(s, 0, s.length);
  }

  /** A piece of a line whose end has not arrived yet. */
  private holdTail(tail: string): void {
    this.lineLength += tail.length;
    if (this.lineLength > this.maxLine) throw new LimitExceededError('maxLineLength', this.maxLine);
    if (this.kind === Line.Dropped) return;
    this.parts.push(tail);
    this.partsLength += tail.length;
    if (this.kind === Line.Undecided) {
      const head = this.parts.length === 1 ? tail.slice(0, 6) : this.parts.join('').slice(0, 6);
      this.kind = classify(head, head.length === this.partsLength);
      if (this.kind === Line.Dropped) {
        this.parts = [];
        this.partsLength = 0;
        return;
      }
    }
    // A data line still arriving counts towards the event it belongs to.
    if (this.kind === Line.Kept && this.data.length + this.partsLength > this.maxEvent + 6) throw new LimitExceededError('maxEventSize', this.maxEvent);
  }

  feed(text: string): void {
    const len = text.length;
    if (len === 0) return;
    let pos = 0;
    if (!this.started) {
      this.started = true;
      // Exactly one BOM, and only at the very start (WHATWG): a second one is data.
      if (text.charCodeAt(0) === 0xfeff) pos = 1;
    }
    if (this.afterCR) {
      this.afterCR = false;
      if (text.charCodeAt(pos) === LF) pos++;
    }
    let lf = text.indexOf('\n', pos);
    let cr = text.indexOf('\r', pos);
    if (cr === -1) {
      // LF line ends only (nearly every server): a loop that never reads `cr`. With `cr` read inside the loop,
      // TurboFan scheduled its (pure) search there too and rescanned the rest of the chunk for a CR at every
      // line (seen with a uprobe on memchr): a fifth of the decoder's time on the tools workload.
      while (lf !== -1) {
        this.endLine(text, pos, lf);
        pos = lf + 1;
        lf = text.indexOf('\n', pos);
      }
      if (pos < len) this.holdTail(pos === 0 ? text : text.slice(pos));
      return;
    }
    while (pos < len) {
      if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr);
      if (end === -1) {
        this.holdTail(pos === 0 ? text : text.slice(pos));
        return;
      }
      this.endLine(text, pos, end);
      pos = end + 1;
      if (end === cr) {
        if (pos === len) this.afterCR = true;
        else if (text.charCodeAt(pos) === LF) pos++;
      }
    }
  }

  end(): void {
    // A final line and event without their line ends are still a line and an event.
    this.ending = true;
    if (this.lineLength > 0) this.endLine('', 0, 0);
    this.dispatch();
  }
}

/** A message handler function as a sink (called without a `this`, as before). */
class FunctionSink implements SSEMessageSink {
  constructor(private readonly handler: SSEMessageHandler) {}
  onMessage(event: string | undefined, data: string, unterminated: boolean): void {
    const handler = this.handler;
    handler(event, data, unterminated);
  }
}

/** An SSE scanner calling `onMessage` for each message (its `feed` and `end` may be called detached). */
export function createSSEScanner(onMessage: SSEMessageHandler, limits: SSELimits = {}): SSEScanner {
  const scanner = new SSEScannerCore(new FunctionSink(onMessage), limits);
  return { feed: (text) => scanner.feed(text), end: () => scanner.end() };
}
