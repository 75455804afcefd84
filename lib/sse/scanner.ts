import { createParser, type EventSourceParser } from 'eventsource-parser';
import { LimitExceededError } from '../errors.js';

/**
 * Receives each SSE message: its `event:` name (if any), its joined `data:` lines, and whether the body
 * ended inside it (no blank line after it: it may be cut short). Positional, so no object per message.
 */
export type SSEMessageHandler = (event: string | undefined, data: string, unterminated: boolean) => void;

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
export function createSSEScanner(onMessage: SSEMessageHandler, limits: SSELimits = {}): SSEScanner {
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
      onMessage(m.event, data, ending);
    },
    onError(e) {
      // Unknown fields and bad `retry:` values are ignored, as the SSE spec says; only the buffer limit is fatal.
      if (e.type === 'max-buffer-size-exceeded') overflow = new LimitExceededError('maxEventSize', maxEvent);
    },
  });

  /** Measures every line of `text`, the first one continuing the pending line. */
  const checkLines = (text: string): void => {
    const breaks = /\r\n?|\n/g;
    let start = 0;
    for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
      if (lineLength + (m.index - start) > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
      lineLength = 0;
      start = m.index + m[0].length;
    }
    lineLength += text.length - start;
    if (lineLength > maxLine) throw new LimitExceededError('maxLineLength', maxLine);
  };

  return {
    feed(text) {
      // A line can only be too long if the pending part plus this chunk is: most chunks skip the scan.
      if (lineLength + text.length > maxLine) checkLines(text);
      else {
        // Only the tail after the last LF can hold a later CR: never scan the whole chunk for one.
        const lf = text.lastIndexOf('\n');
        const lastBreak = text.indexOf('\r', lf + 1) === -1 ? lf : text.lastIndexOf('\r');
        lineLength = lastBreak === -1 ? lineLength + text.length : text.length - lastBreak - 1;
      }
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
