import { Observable } from 'rxjs';
import { DecodeError, excerpt, OpenAIRxError, ResponseStreamError, StreamInterruptedError } from '../errors.js';
import { describeFailure, type ValidateMode } from '../events/decode.js';
import { ChatCompletionChunk } from '../events/chat.js';
import { createSSEScanner, type SSELimits, type SSEMessage } from '../sse/scanner.js';
import { textOf, type StreamSource } from '../sse/source.js';

export interface ChatCompletionsSSEOptions extends SSELimits {
  /** `'strict'` (default) checks each chunk against the `chat.completion.chunk` codec; `'off'` skips it. */
  readonly validate?: ValidateMode;
  /**
   * `true` (default): a body that ends without `data: [DONE]` ends with `StreamInterruptedError`.
   * `false`: the end of the body completes the stream (for providers that omit `[DONE]`).
   */
  readonly requireDone?: boolean;
}

/** A parsed payload as a chunk; `index` (its position in the stream) stands in for a sequence number. */
export function decodeChunk(u: unknown, validate: ValidateMode, index: number): ChatCompletionChunk {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) throw new DecodeError('payload is not a JSON object', 'chat.completion.chunk', index);
  if (validate === 'strict') {
    const r = ChatCompletionChunk.validate(u, [{ key: '', type: ChatCompletionChunk, actual: u }]);
    if (r._tag === 'Left') {
      const { path, reason } = describeFailure(r.left);
      throw new DecodeError(reason, 'chat.completion.chunk', index, path);
    }
  }
  return u as ChatCompletionChunk;
}

/**
 * Decodes a Chat Completions SSE body (`data:` lines ending with `data: [DONE]`) into chunks.
 * An `{"error": …}` payload ends the stream with a `ResponseStreamError`.
 */
export function fromChatCompletionsSSE(source: StreamSource, options: ChatCompletionsSSEOptions = {}): Observable<ChatCompletionChunk> {
  return new Observable<ChatCompletionChunk>((subscriber) => {
    const validate = options.validate ?? 'strict';
    let finished = false;
    let lastId: string | undefined;
    let count = 0;
    const interrupted = (reason?: string) => new StreamInterruptedError(lastId, count > 0 ? count - 1 : undefined, reason);

    const onMessage = (m: SSEMessage): void => {
      if (finished) return;
      if (m.data === '[DONE]') {
        finished = true;
        subscriber.complete();
        return;
      }
      let u: unknown;
      try {
        u = JSON.parse(m.data);
      } catch {
        if (m.unterminated) throw interrupted('the stream ended inside a chunk');
        throw new DecodeError(`malformed JSON ${excerpt(m.data)}`, 'chat.completion.chunk', count);
      }
      if (typeof u === 'object' && u !== null && 'error' in u && !('choices' in u)) {
        const err = (u as { error: { code?: string | null; message?: string; param?: string | null } | null }).error ?? {};
        throw new ResponseStreamError('error', err.code, err.message ?? 'stream error', err.param, undefined, lastId, u);
      }
      const chunk = decodeChunk(u, validate, count);
      lastId = chunk.id;
      count++;
      subscriber.next(chunk);
    };

    const scanner = createSSEScanner(onMessage, options);
    return textOf(source).subscribe({
      next(c) {
        if (finished) return;
        try {
          if (typeof c === 'string') scanner.feed(c);
          else {
            scanner.end();
            if (finished) return;
            finished = true;
            if (options.requireDone === false && c.complete) subscriber.complete();
            else subscriber.error(interrupted(c.complete ? 'the stream ended without data: [DONE]' : 'the stream ended inside a UTF-8 character'));
          }
        } catch (e) {
          finished = true;
          subscriber.error(e);
        }
      },
      error(e: unknown) {
        if (finished) return;
        finished = true;
        subscriber.error(e instanceof OpenAIRxError && e.code !== 'network_error' ? e : interrupted('the connection broke'));
      },
    });
  });
}
