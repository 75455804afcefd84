import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { DecodeError, malformedJSON, ResponseStreamError, StreamInterruptedError } from '../errors.js';
import { describeFailure, VALIDATE_MODES, type ValidateMode } from '../events/decode.js';
import { oneOf } from '../options.js';
import { ChatCompletionChunk } from '../events/chat.js';
import { chatChunkOk } from '../events/chat-fast-check.js';
import { checkSSELimits, type SSELimits } from '../sse/scanner.js';
import { textOf, textOfChunks, type BodyEnd, type StreamSource } from '../sse/source.js';
import { decodeBody, isConnectionFailure, type BodyDecoder, type ValueSink } from './body.js';
import { NOT_JSON, providerError, type ProviderErrorEvent } from './provider-error.js';
import { keepWarm } from '../warmup.js';
import { keepShape } from '../events/shapes.js';

/** How many chunks of a stream have their shape kept (lib/events/shapes.ts): the role chunk and content ones. */
const SHAPED_CHUNKS = 3;

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
  // The hand-written check first (exactly the codec's `is`); the codec's `validate` only to name what failed.
  if (validate === 'strict' && !chatChunkOk(u)) {
    const r = ChatCompletionChunk.validate(u, [{ key: '', type: ChatCompletionChunk, actual: u }]);
    if (r._tag === 'Left') {
      const { path, reason } = describeFailure(r.left);
      throw new DecodeError(reason, 'chat.completion.chunk', index, path);
    }
  }
  // No `choices` (audio usage chunks): an empty list, so the type holds whatever the provider left out.
  const o = u as { choices?: unknown };
  if (o.choices === undefined || o.choices === null) o.choices = [];
  return u as ChatCompletionChunk;
}

/**
 * Decodes a Chat Completions SSE body (`data:` lines ending with `data: [DONE]`) into chunks.
 * A provider's error (`{"error": …}`, also beside chunk fields, or an `event: error` message, whatever its
 * payload) ends the stream with a `ResponseStreamError` carrying its code, message and param.
 *
 * ```ts
 * fromChatCompletionsSSE(await fetch(url, init), { requireDone: false })   // a provider that omits [DONE]
 *   .subscribe((chunk) => console.log(chunk.choices[0]?.delta?.content));
 * ```
 */
export function fromChatCompletionsSSE(source: StreamSource, options: ChatCompletionsSSEOptions = {}): Observable<ChatCompletionChunk> {
  checkChatSSEOptions(options);
  return chatFromText(textOf(source), options);
}

/**
 * The same decoder as an operator over body chunks (bytes or text); the source completing ends the body.
 *
 * ```ts
 * body$.pipe(decodeChatCompletionsSSE()).subscribe((chunk) => console.log(chunk.choices[0]?.finish_reason));
 * ```
 */
export function decodeChatCompletionsSSE(options: ChatCompletionsSSEOptions = {}): OperatorFunction<Uint8Array | string, ChatCompletionChunk> {
  checkChatSSEOptions(options);
  return (chunks) => chatFromText(textOfChunks(chunks), options);
}

/** @internal Throws the `InvalidOptionError` of the first option the decoder cannot work with (at the call, not per stream). */
export function checkChatSSEOptions(options: ChatCompletionsSSEOptions): void {
  oneOf('validate', options.validate, VALIDATE_MODES);
  checkSSELimits(options);
}

function chatFromText(text: Observable<string | BodyEnd>, options: ChatCompletionsSSEOptions): Observable<ChatCompletionChunk> {
  return decodeBody(text, options, () => chatDecoder(options));
}

function chatDecoder(options: ChatCompletionsSSEOptions): BodyDecoder<ChatCompletionChunk> {
  keepWarm('chat decoding', chatShapes);
  return new ChatDecoder(options.validate ?? 'strict', options.requireDone !== false);
}

/** A class (not closures per stream) so that its optimised code survives a full GC between streams (see SSEScannerCore). */
class ChatDecoder implements BodyDecoder<ChatCompletionChunk> {
  private lastId: string | undefined = undefined;
  private count = 0;

  constructor(
    private readonly validate: ValidateMode,
    private readonly requireDone: boolean,
  ) {}

  private streamError(e: ProviderErrorEvent, u: unknown): ResponseStreamError {
    const id = typeof u === 'object' && u !== null ? (u as { id?: unknown }).id : undefined;
    return new ResponseStreamError('error', e.code, e.message, e.param, undefined, typeof id === 'string' && id !== '' ? id : this.lastId, e);
  }

  private interrupted(reason: string): StreamInterruptedError {
    return new StreamInterruptedError(this.lastId, this.count > 0 ? this.count - 1 : undefined, reason);
  }

  message(event: string | undefined, data: string, unterminated: boolean, out: ValueSink<ChatCompletionChunk>): 'complete' | Error | undefined {
    if (data === '[DONE]') return 'complete';
    let u: unknown;
    try {
      u = JSON.parse(data);
    } catch {
      if (unterminated) throw this.interrupted('the stream ended inside a chunk');
      u = NOT_JSON;
    }
    // A provider's error, in any of its shapes (also beside chunk fields, as OpenRouter sends it).
    const report = providerError(event, u, data);
    if (report !== undefined) return this.streamError(report, u);
    if (u === NOT_JSON) throw malformedJSON(data, 'chat.completion.chunk', this.count);
    const chunk = decodeChunk(u, this.validate, this.count);
    // The maps of a stream's first chunks (the role chunk, then content deltas: the shape of nearly every chunk),
    // kept once per process so that they, and the code that checks for them, survive a full GC between streams.
    if (this.count < SHAPED_CHUNKS) keepShape(`chat.completion.chunk ${this.count}`, u as Readonly<Record<string, unknown>>);
    this.lastId = chunk.id;
    this.count++;
    out.next(chunk);
    return undefined;
  }

  end(complete: boolean): 'complete' | Error {
    return !this.requireDone && complete
      ? 'complete'
      : this.interrupted(complete ? 'the stream ended without data: [DONE]' : 'the stream ended inside a UTF-8 character');
  }

  broken(e: unknown): Error {
    return isConnectionFailure(e) ? this.interrupted('the connection broke') : (e as Error);
  }
}

/** One decoding kept open once the first one starts, unless warm-ups are off (see `responsesShapes`). */
const chatShapes = (): Subscription =>
  new Observable<string>(() => undefined).pipe(decodeChatCompletionsSSE()).subscribe({
    next: () => undefined,
    error: () => undefined,
    complete: () => undefined,
  });
