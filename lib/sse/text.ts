// SSE text read whole, with the place of each line and message in it: the decoders' scanner (SSEScannerCore),
// for the tools that keep a recording as it was written (the test servers' transcripts, the CLI's captures)
// and must read it exactly as a client will. No second set of rules for line ends, BOMs or fields.
import { SSEScannerCore, type SSELimits, type SSEMessageSink } from './scanner.js';

/** One line of the text, as the scanner ended it. */
export interface SSETextLine {
  /** 1-based, counting every line end the scanner sees (CR, LF or CRLF each end one line). */
  readonly number: number;
  /** The line without its line end. */
  readonly text: string;
  /** The field it sets: the name before its first colon (`''` for a comment), `undefined` for a blank line. */
  readonly field: string | undefined;
  /** `false` for a last line the text ends inside (no line end after it). */
  readonly terminated: boolean;
}

/** One message of the text (a `data:` line or more, dispatched by a blank line or the end of the text). */
export interface SSETextMessage {
  readonly event: string | undefined;
  readonly data: string;
  /** The text ended inside it (no blank line after it): it may have been cut short. */
  readonly unterminated: boolean;
  /** Where its text starts: just after the previous message (comments and blank lines before it included). */
  readonly start: number;
  /** Where it ends: after the line end of its blank line (the end of the text when unterminated). */
  readonly end: number;
  /** The number of its first line (after the last blank line before it), and of its first and last `data` lines. */
  readonly line: number;
  readonly firstDataLine: number;
  readonly lastDataLine: number;
}

/** What `scanSSEText` tells: each message, and (when wanted) each line before the message it belongs to. */
export interface SSETextReader {
  onMessage(message: SSETextMessage): void;
  onLine?(line: SSETextLine): void;
}

type Pending = Omit<SSETextMessage, 'end'>;

/** The scanner's sink, handing each message to the scanner that dispatched it (not known before `super`). */
class Relay implements SSEMessageSink {
  to: TextScanner | undefined;
  onMessage(event: string | undefined, data: string, unterminated: boolean): void {
    this.to?.dispatched(event, data, unterminated);
  }
}

/** The scanner told of each line end before it acts on it (a message it completes is kept until its end is known). */
class TextScanner extends SSEScannerCore {
  private number = 0;
  private start = -1;
  private blockLine = 0;
  private firstData = 0;
  private lastData = 0;
  private pending: Pending | undefined;

  constructor(
    private readonly reader: SSETextReader,
    private readonly textLength: number,
    limits: SSELimits | undefined,
  ) {
    const relay = new Relay();
    super(relay, limits);
    relay.to = this;
  }

  dispatched(event: string | undefined, data: string, unterminated: boolean): void {
    this.pending = { event, data, unterminated, start: this.start, line: this.blockLine, firstDataLine: this.firstData, lastDataLine: this.lastData };
  }

  /** The message dispatched last ends where the next line starts (or where the text does). */
  flush(end: number): void {
    const p = this.pending;
    if (p === undefined) return;
    this.pending = undefined;
    this.start = end;
    // Named field by field: `{ ...p, end }` would give each message a hidden class of its own (V8 11, Node 20).
    this.reader.onMessage({ event: p.event, data: p.data, unterminated: p.unterminated, start: p.start, end, line: p.line, firstDataLine: p.firstDataLine, lastDataLine: p.lastDataLine });
  }

  protected override endLine(text: string, from: number, to: number): void {
    this.flush(from);
    if (this.start < 0) this.start = from; // after a BOM the scanner skipped
    const s = text.slice(from, to);
    const colon = s.indexOf(':');
    const field = s === '' ? undefined : colon === -1 ? s : s.slice(0, colon);
    const number = ++this.number;
    if (field !== undefined && this.blockLine === 0) this.blockLine = number;
    if (field === 'data') {
      if (this.firstData === 0) this.firstData = number;
      this.lastData = number;
    }
    // `to` past the text: the line end `scanSSEText` added to a last line that had none.
    this.reader.onLine?.({ number, text: s, field, terminated: to < this.textLength });
    super.endLine(text, from, to);
    if (field === undefined) this.blockLine = this.firstData = this.lastData = 0;
  }
}

/**
 * Reads `text` as one whole SSE body, exactly as the decoders' scanner reads it (one leading BOM skipped; CR, LF
 * and CRLF line ends; comments; multi-line data; a last message without its blank line), telling each message
 * with its place in the text and, when `reader.onLine` is given, each line. Throws `LimitExceededError` past
 * the limits (default 128 Mi characters).
 */
export function scanSSEText(text: string, reader: SSETextReader, limits?: SSELimits): void {
  const last = text.charCodeAt(text.length - 1);
  // (A text that is only a BOM has no line, so none to end.)
  const lineEnded = text === '' || text === '\uFEFF' || last === 10 || last === 13;
  const scanner = new TextScanner(reader, text.length, limits);
  // A last line without its line end gets one, so that the scanner hands every line to `endLine` whole;
  // the end of the text still ends its message as unterminated, as for any client.
  scanner.feed(lineEnded ? text : `${text}\n`);
  scanner.end();
  scanner.flush(text.length);
}

/** The messages of `text`, as `scanSSEText` reads them. */
export function sseMessagesOf(text: string, limits?: SSELimits): SSETextMessage[] {
  const out: SSETextMessage[] = [];
  scanSSEText(text, { onMessage: (m) => out.push(m) }, limits);
  return out;
}

/**
 * The message's text as written, completed with the line ends it lacks when the text ended inside it, so that
 * it is a whole message wherever it is put (served alone, or followed by others).
 */
export function wholeMessageText(text: string, m: SSETextMessage): string {
  const written = text.slice(m.start, m.end);
  if (!m.unterminated) return written;
  const last = text.charCodeAt(m.end - 1);
  // After a line end, one more of the same makes the blank line (a CR + LF would pair up as one line end).
  if (last === 10 || last === 13) return written + text.charAt(m.end - 1);
  return `${written}\n\n`;
}
