import { Observable } from 'rxjs';
import { DecodeError, excerpt, OpenAIRxError } from '../errors.js';
import { decodeTyped, type ValidateMode } from '../events/decode.js';
import { responseEventTable, type ResponseStreamEvent } from '../events/responses.js';
import { createSSEScanner, type SSELimits, type SSEMessage } from '../sse/scanner.js';
import { textOf, type StreamSource } from '../sse/source.js';
import { ResponseStreamTracker, type SequenceOptions } from './tracker.js';

export interface ResponsesSSEOptions extends SSELimits, SequenceOptions {
  /** `'strict'` (default) checks every documented event against its codec; `'off'` skips codecs for speed. */
  readonly validate?: ValidateMode;
}

/**
 * Decodes a Responses API SSE body into typed events.
 *
 * Completes after `response.completed` or `response.incomplete`; `response.failed` and `error` are
 * emitted and then end it with a `ResponseStreamError` (see `errorEvents`). A body that ends before a
 * terminal event ends it with `StreamInterruptedError`. Duplicated `sequence_number`s are dropped.
 *
 * ```ts
 * fromResponsesSSE(await fetch(url, init)).pipe(ofType('response.output_text.delta'))
 * ```
 */
export function fromResponsesSSE(source: StreamSource, options: ResponsesSSEOptions = {}): Observable<ResponseStreamEvent> {
  return new Observable<ResponseStreamEvent>((subscriber) => {
    const validate = options.validate ?? 'strict';
    const tracker = new ResponseStreamTracker(options);
    let finished = false;

    const onMessage = (m: SSEMessage): void => {
      if (finished) return;
      if (m.data === '[DONE]') {
        // Not part of the Responses protocol, but some proxies add it: it ends the body.
        finished = true;
        subscriber.error(tracker.interrupted('the stream sent [DONE] before a terminal event'));
        return;
      }
      let u: unknown;
      try {
        u = JSON.parse(m.data);
      } catch {
        if (m.unterminated) throw tracker.interrupted('the stream ended inside an event');
        throw new DecodeError(`malformed JSON ${excerpt(m.data)}`, m.event);
      }
      const event = decodeTyped(u, responseEventTable, validate, m.event) as ResponseStreamEvent;
      if (!tracker.admit(event)) return;
      subscriber.next(event);
      const end = tracker.terminal(event);
      if (end === undefined) return;
      finished = true;
      if (end === 'complete') subscriber.complete();
      else subscriber.error(end);
    };

    const scanner = createSSEScanner(onMessage, options);
    return textOf(source).subscribe({
      next(chunk) {
        if (finished) return;
        try {
          if (typeof chunk === 'string') scanner.feed(chunk);
          else {
            scanner.end();
            if (!finished) subscriber.error(tracker.interrupted(chunk.complete ? undefined : 'the stream ended inside a UTF-8 character'));
          }
        } catch (e) {
          finished = true;
          subscriber.error(e);
        }
      },
      error(e: unknown) {
        if (finished) return;
        finished = true;
        // A broken connection mid-body is an interruption: resumable from the last sequence number.
        subscriber.error(e instanceof OpenAIRxError && e.code !== 'network_error' ? e : tracker.interrupted(`the connection broke (${e instanceof Error ? e.message : 'unknown'})`));
      },
    });
  });
}
