import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../lib/events/chat.js';
import { DecodeError } from '../lib/errors.js';
import { oneOf } from '../lib/options.js';
import { isRecord } from './internal/chat-fields.js';
import { chatErrorFrame } from '../lib/sse/error-frame.js';

export interface ToChatSSEOptions {
  /**
   * `'error'` (default): an upstream error ends the text stream with that error. `'event'`: it is
   * written as `data: {"error": …}` (what the API sends and the SDKs raise) and the text stream
   * completes without `[DONE]`.
   */
  readonly onError?: 'error' | 'event';
}

/**
 * Encodes chat chunks as Chat Completions SSE text: one `data:` line per chunk and `data: [DONE]`
 * when the chunks complete, ready to write to an HTTP response (`Content-Type: text/event-stream`).
 *
 * ```
 * --c1--c2--|
 *   toChatSSE()
 * --s1--s2--(d|)     s = "data: <json>\n\n", d = "data: [DONE]\n\n"
 * ```
 *
 * ```ts
 * streamResponse(body, config).pipe(toChatChunks(), toChatSSE()).subscribe((text) => res.write(text))
 * ```
 */
export function toChatSSE(options: ToChatSSEOptions = {}): OperatorFunction<ChatCompletionChunk, string> {
  const asEvent = oneOf('onError', options.onError, ['error', 'event']) === 'event';
  return (source) =>
    new Observable<string>((subscriber) => {
      const fail = (err: unknown): void => {
        if (!asEvent) return subscriber.error(err);
        subscriber.next(chatErrorFrame(err));
        subscriber.complete();
      };
      return source.subscribe({
        next(c) {
          let json: string | undefined;
          try {
            json = isRecord(c) ? JSON.stringify(c) : undefined;
          } catch {
            json = undefined;
          }
          // A hand-built chunk that is not a JSON object ends the stream like an upstream error.
          if (json === undefined) return fail(new DecodeError('the chunk is not a serialisable JSON object', 'chat.completion.chunk'));
          subscriber.next(`data: ${json}\n\n`);
        },
        error: fail,
        complete() {
          subscriber.next('data: [DONE]\n\n');
          subscriber.complete();
        },
      });
    });
}
