import { Observable, type Subscriber } from 'rxjs';
import { NetworkError, OpenAIRxError } from '../errors.js';
import { SSEScannerCore, type SSELimits, type SSEMessageSink } from '../sse/scanner.js';
import type { BodyEnd } from '../sse/source.js';

/** Where a decoder's values go (the stream's subscriber). */
export interface ValueSink<T> {
  next(value: T): void;
}

/** What a protocol decoder does with the messages of one SSE body. */
export interface BodyDecoder<T> {
  /** Emits what the message holds; returns how it ends the stream, if it does. Throws typed errors. */
  message(event: string | undefined, data: string, unterminated: boolean, out: ValueSink<T>): 'complete' | Error | undefined;
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
  return new Observable<T>((subscriber) => text.subscribe(new BodyDecoding(subscriber, createDecoder(), limits)));
}

/**
 * One body being decoded: the text's observer and the scanner's sink. A class, not closures made per
 * stream, so that the optimised code of the per-event path lives as long as the module and survives a full
 * GC between streams (see SSEScannerCore).
 */
class BodyDecoding<T> implements SSEMessageSink {
  private finished = false;
  private readonly scanner: SSEScannerCore;

  constructor(
    private readonly subscriber: Subscriber<T>,
    private readonly decoder: BodyDecoder<T>,
    limits: SSELimits,
  ) {
    this.scanner = new SSEScannerCore(this, limits);
  }

  onMessage(event: string | undefined, data: string, unterminated: boolean): void {
    if (this.finished) return;
    const how = this.decoder.message(event, data, unterminated, this.subscriber);
    if (how !== undefined) this.finish(how);
  }

  private finish(how: 'complete' | Error): void {
    this.finished = true;
    if (how === 'complete') this.subscriber.complete();
    else this.subscriber.error(how);
  }

  next(chunk: string | BodyEnd): void {
    if (this.finished) return;
    try {
      if (typeof chunk === 'string') this.scanner.feed(chunk);
      else {
        this.scanner.end();
        if (!this.finished) this.finish(this.decoder.end(chunk.complete));
      }
    } catch (e) {
      this.finish(e instanceof Error ? e : new Error(String(e)));
    }
  }

  error(e: unknown): void {
    if (!this.finished) this.finish(this.decoder.broken(e));
  }

  complete(): void {
    // the text always ends with a BodyEnd, which ends the decoding
  }
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
