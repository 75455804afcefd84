import { Observable, type OperatorFunction } from 'rxjs';
import { DecodeError, ResponseStreamError } from '../lib/errors.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { responsesErrorFrame } from '../lib/sse/error-frame.js';
import { oneOf } from '../lib/options.js';
import { eventError, isRecord } from './internal/chat-fields.js';

/** One SSE block; a type with a line break would forge extra SSE fields, so it is refused. */
function encode(e: unknown): string {
  if (!isRecord(e)) throw eventError(e, '', 'the event is not an object');
  const type = e['type'];
  if (typeof type !== 'string' || /[\r\n]/.test(type)) throw eventError(e, 'type', 'not a single-line string');
  let json: string;
  try {
    json = JSON.stringify(e);
  } catch {
    throw eventError(e, '', 'the event cannot be serialised as JSON');
  }
  return `event: ${type}\ndata: ${json}\n\n`;
}

export interface ToResponsesSSEOptions {
  /**
   * `'error'` (default): an upstream error ends the text stream with that error. `'event'`: it is
   * written as a final `event: error` (unless the stream already carried its `response.failed` /
   * `error` event) and the text stream completes, as a proxy would serve it.
   */
  readonly onError?: 'error' | 'event';
}

/**
 * Encodes Responses events as SSE text, one `event:` + `data:` block per event, ready to write to an
 * HTTP response (`Content-Type: text/event-stream`). Decoding the text gives back the same events.
 *
 * ```
 * --created--delta--completed--|
 *   toResponsesSSE()
 * --s1-------s2-----s3---------|     s = "event: <type>\ndata: <json>\n\n"
 * ```
 *
 * ```ts
 * streamResponse(body, config).pipe(toResponsesSSE()).subscribe((text) => res.write(text))
 * ```
 */
export function toResponsesSSE(options: ToResponsesSSEOptions = {}): OperatorFunction<ResponseStreamEvent, string> {
  const asEvent = oneOf('onError', options.onError, ['error', 'event']) === 'event';
  return (source) =>
    new Observable<string>((subscriber) => {
      let lastSeq: number | undefined;
      const fail = (err: unknown): void => {
        if (!asEvent) return subscriber.error(err);
        // A ResponseStreamError stands for an event already written.
        if (!(err instanceof ResponseStreamError)) subscriber.next(responsesErrorFrame(err, lastSeq));
        subscriber.complete();
      };
      return source.subscribe({
        next(e) {
          let text: string;
          try {
            text = encode(e);
          } catch (err) {
            // A hand-built event that cannot be framed ends the stream like an upstream error.
            if (!(err instanceof DecodeError)) throw err;
            return fail(err);
          }
          if (typeof e.sequence_number === 'number') lastSeq = e.sequence_number;
          subscriber.next(text);
        },
        error: fail,
        complete: () => subscriber.complete(),
      });
    });
}
