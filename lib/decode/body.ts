import { Observable } from 'rxjs';
import { NetworkError, OpenAIRxError } from '../errors.js';
import { createSSEScanner, type SSELimits } from '../sse/scanner.js';
import type { BodyEnd } from '../sse/source.js';

/** What a protocol decoder does with the messages of one SSE body. */
export interface BodyDecoder<T> {
  /** Emits what the message holds; returns how it ends the stream, if it does. Throws typed errors. */
  message(event: string | undefined, data: string, unterminated: boolean, next: (value: T) => void): 'complete' | Error | undefined;
  /** The body ended (`complete: false`: inside a UTF-8 character) without the message that ends it. */
  end(complete: boolean): 'complete' | Error;
  /** The connection broke while reading. */
  broken(e: unknown): Error;
}

/**
 * Runs decoded body text through the SSE scanner and a protocol decoder. Stops reading (unsubscribes
 * from the text) as soon as the decoder has seen its end.
 */
export function decodeBody<T>(text: Observable<string | BodyEnd>, limits: SSELimits, createDecoder: () => BodyDecoder<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const decoder = createDecoder();
    let finished = false;
    const finish = (how: 'complete' | Error): void => {
      finished = true;
      if (how === 'complete') subscriber.complete();
      else subscriber.error(how);
    };
    const next = (v: T): void => subscriber.next(v);
    const scanner = createSSEScanner((event, data, unterminated) => {
      if (finished) return;
      const how = decoder.message(event, data, unterminated, next);
      if (how !== undefined) finish(how);
    }, limits);
    return text.subscribe({
      next(chunk) {
        if (finished) return;
        try {
          if (typeof chunk === 'string') scanner.feed(chunk);
          else {
            scanner.end();
            if (!finished) finish(decoder.end(chunk.complete));
          }
        } catch (e) {
          finish(e instanceof Error ? e : new Error(String(e)));
        }
      },
      error(e: unknown) {
        if (!finished) finish(decoder.broken(e));
      },
    });
  });
}

/**
 * Whether an error from the body's source is the connection failing (resumable) rather than a typed
 * library error or a programming error (a wrong source type), which pass through as they are.
 */
export function isConnectionFailure(e: unknown): boolean {
  if (e instanceof NetworkError) return true;
  if (e instanceof OpenAIRxError) return false;
  return !(e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError);
}
