import { LimitExceededError } from '../errors.js';

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

/**
 * Text → SSE messages, by the WHATWG rules (CR, LF and CRLF line ends; comments; multi-line data), with
 * the explicit limits a network edge needs. A CR that ends a chunk ends its line at once (a CR-only
 * server's last event is not held back waiting for a possible LF); an LF starting the next chunk is then
 * the second half of that CRLF. Lines that cannot matter (comments, unknown fields) are never buffered.
 */
export function createSSEScanner(onMessage: SSEMessageHandler, limits: SSELimits = {}): SSEScanner {
  const maxLine = limits.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const maxEvent = limits.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  // The line being read: its fragments (only for kept or undecided lines), their length, its full length.
  let parts: string[] = [];
  let partsLength = 0;
  let lineLength = 0;
  let kind: Line = Line.Undecided;
  // The message being read.
  let data = '';
  let hasData = false;
  let event: string | undefined;
  let afterCR = false;
  let ending = false;
  let started = false;

  const dispatch = (): void => {
    const name = event;
    event = undefined;
    if (!hasData) return;
    const d = data;
    data = '';
    hasData = false;
    onMessage(name, d, ending);
  };

  const addData = (value: string): void => {
    data = hasData ? `${data}\n${value}` : value;
    hasData = true;
    if (data.length > maxEvent) throw new LimitExceededError('maxEventSize', maxEvent);
  };

  /** One complete line (terminator removed). */
  const line = (s: string): void => {
    if (s.length === 0) return dispatch();
    const c = s.charCodeAt(0);
    if (c === COLON) return;
    // The usual lines first, without looking for the colon.
    if (s.startsWith('data:')) return addData(s.charCodeAt(5) === SPACE ? s.slice(6) : s.slice(5));
    if (s.startsWith('event:')) {
      event = (s.charCodeAt(6) === SPACE ? s.slice(7) : s.slice(6)) || undefined;
      return;
    }
    const colon = s.indexOf(':');
    const name = colon === -1 ? s : s.slice(0, colon);
    // `data` / `event` with no colon: the field with an empty value.
    if (name === 'data') addData('');
    else if (name === 'event') event = undefined;
  };

  /** The end of the line being read, whose last piece is `text[from, to)`. */
  const endLine = (text: string, from: number, to: number): void => {
    const pending = kind;
    const length = lineLength + (to - from);
    lineLength = 0;
    kind = Line.Undecided;
    if (length > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
    if (pending === Line.Dropped) return;
    if (parts.length === 0) return line(text.slice(from, to));
    parts.push(text.slice(from, to));
    const s = parts.join('');
    parts = [];
    partsLength = 0;
    line(s);
  };

  /** A piece of a line whose end has not arrived yet. */
  const holdTail = (tail: string): void => {
    lineLength += tail.length;
    if (lineLength > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
    if (kind === Line.Dropped) return;
    parts.push(tail);
    partsLength += tail.length;
    if (kind === Line.Undecided) {
      const head = parts.length === 1 ? tail.slice(0, 6) : parts.join('').slice(0, 6);
      kind = classify(head, head.length === partsLength);
      if (kind === Line.Dropped) {
        parts = [];
        partsLength = 0;
        return;
      }
    }
    // A data line still arriving counts towards the event it belongs to.
    if (kind === Line.Kept && data.length + partsLength > maxEvent + 6) throw new LimitExceededError('maxEventSize', maxEvent);
  };

  return {
    feed(text) {
      const len = text.length;
      if (len === 0) return;
      let pos = 0;
      if (!started) {
        started = true;
        // Exactly one BOM, and only at the very start (WHATWG): a second one is data.
        if (text.charCodeAt(0) === 0xfeff) pos = 1;
      }
      if (afterCR) {
        afterCR = false;
        if (text.charCodeAt(pos) === LF) pos++;
      }
      let lf = text.indexOf('\n', pos);
      let cr = text.indexOf('\r', pos);
      while (pos < len) {
        if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos);
        if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr);
        if (end === -1) {
          holdTail(pos === 0 ? text : text.slice(pos));
          return;
        }
        endLine(text, pos, end);
        pos = end + 1;
        if (end === cr) {
          if (pos === len) afterCR = true;
          else if (text.charCodeAt(pos) === LF) pos++;
        }
      }
    },
    end() {
      // A final line and event without their line ends are still a line and an event.
      ending = true;
      if (lineLength > 0) endLine('', 0, 0);
      dispatch();
    },
  };
}
