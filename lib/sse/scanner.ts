import { createParser, type EventSourceParser } from 'eventsource-parser';
import { LimitExceededError } from '../errors.js';

/** One SSE message: its `event:` name (if any) and its joined `data:` lines. */
export interface SSEMessage {
  readonly event: string | undefined;
  readonly data: string;
  /** The body ended inside this message (no blank line after it): it may be cut short. */
  readonly unterminated: boolean;
}

export interface SSELimits {
  /** Longest line, in characters, before a `LimitExceededError` (default 128 Mi). */
  readonly maxLineLength?: number;
  /** Largest event (its buffered data), in characters (default 128 Mi: a 64 MiB image event decodes). */
  readonly maxEventSize?: number;
}

export const DEFAULT_MAX_LINE_LENGTH = 128 * 1024 * 1024;
export const DEFAULT_MAX_EVENT_SIZE = 128 * 1024 * 1024;

export interface SSEScanner {
  /** Feeds decoded text; calls `onMessage` for each complete message. Throws `LimitExceededError`. */
  feed(text: string): void;
  /** The body ended: delivers a last message that lacked its blank line. */
  end(): void;
}

/**
 * Text → SSE messages, on top of eventsource-parser (CR, LF, CRLF; comments; multi-line data),
 * adding the explicit limits the parser leaves to its caller.
 */
export function createSSEScanner(onMessage: (m: SSEMessage) => void, limits: SSELimits = {}): SSEScanner {
  const maxLine = limits.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const maxEvent = limits.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  let overflow: LimitExceededError | undefined;
  let lineLength = 0;
  let ending = false;
  const parser: EventSourceParser = createParser({
    maxBufferSize: maxEvent,
    onEvent(m) {
      const { data } = m;
      if (data.length > maxEvent) throw new LimitExceededError('maxEventSize', maxEvent);
      if (data.length > maxLine && longestLine(data) > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
      onMessage({ event: m.event, data, unterminated: ending });
    },
    onError(e) {
      // Unknown fields and bad `retry:` values are ignored, as the SSE spec says; only the buffer limit is fatal.
      if (e.type === 'max-buffer-size-exceeded') overflow = new LimitExceededError('maxEventSize', maxEvent);
    },
  });

  return {
    feed(text) {
      const lastBreak = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
      lineLength = lastBreak === -1 ? lineLength + text.length : text.length - lastBreak - 1;
      if (lineLength > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
      parser.feed(text);
      if (overflow) throw overflow;
    },
    end() {
      // A final event without its blank line is still an event: terminate it.
      ending = true;
      parser.feed('\n\n');
      if (overflow) throw overflow;
    },
  };
}

function longestLine(data: string): number {
  let longest = 0;
  let start = 0;
  for (let i = data.indexOf('\n'); i !== -1; i = data.indexOf('\n', start)) {
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  return Math.max(longest, data.length - start);
}
