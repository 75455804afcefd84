import { throwError, type Observable } from 'rxjs';
import { checkCursor } from '../cursor.js';
import { excerpt, InvalidOptionError } from '../errors.js';
import { checkChatSSEOptions, fromChatCompletionsSSE, type ChatCompletionsSSEOptions } from '../decode/chat-sse.js';
import { checkResponsesSSEOptions, fromResponsesSSE, type ResponsesSSEOptions } from '../decode/responses-sse.js';
import type { ChatCompletionChunk } from '../events/chat.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { ResponseTextFormat } from '../schema/json-schema-format.js';
import { checkClientConfig, type ClientConfig } from './config.js';
import { streamOf } from './request.js';

export interface ResponsesStreamConfig extends ClientConfig, ResponsesSSEOptions {}
export interface ChatStreamConfig extends ClientConfig, ChatCompletionsSSEOptions {}

/** A `POST /responses` body; any field of the API is passed through. */
export type ResponseCreateParams = {
  readonly model?: string;
  readonly input?: unknown;
  /** How the output text is shaped: `format` is plain text, any JSON object, or JSON matching a schema (`jsonSchemaFormat`). */
  readonly text?: ResponseTextConfig;
  readonly [key: string]: unknown;
};

/** A request's `text`: its `format`, and any other field of the API (`verbosity`…) passed through. */
export type ResponseTextConfig = { readonly format?: ResponseTextFormat; readonly [key: string]: unknown };
/** A `POST /chat/completions` body. */
export type ChatCompletionCreateParams = { readonly model?: string; readonly messages: unknown[]; readonly [key: string]: unknown };

/**
 * `POST {baseURL}/responses` with `stream: true`, as a cold Observable of typed events. Each subscription
 * sends its own request; unsubscribing aborts it.
 *
 * ```ts
 * streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' }, { idleTimeoutMs: 30_000 })
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 *   .subscribe((text) => process.stdout.write(text));
 * ```
 */
export function streamResponse(body: ResponseCreateParams, config?: ResponsesStreamConfig): Observable<ResponseStreamEvent> {
  const invalid = refusal(() => checkResponsesConfig(config));
  if (invalid) return throwError(() => invalid);
  return streamOf('POST', '/responses', { ...body, stream: true }, config, (res) => fromResponsesSSE(res, config));
}

/** The options' error, if any: a transport reports it as its Observable's error, before a request is made. */
function refusal(check: () => void): unknown {
  try {
    check();
    return undefined;
  } catch (e) {
    return e;
  }
}

function checkResponsesConfig(config: ResponsesStreamConfig | undefined): void {
  checkClientConfig(config);
  checkResponsesSSEOptions(config ?? {});
}

/**
 * `GET {baseURL}/responses/{id}?stream=true&starting_after=N`: the events of a (background) response
 * after sequence number N, without the ones before.
 *
 * ```ts
 * // A background response picked up where a saved cursor left it (see resumeFrom for reconnecting too).
 * retrieveResponseStream(saved.responseId, { startingAfter: saved.sequenceNumber })
 *   .pipe(outputText())
 *   .subscribe((text) => render(text));
 * ```
 */
export function retrieveResponseStream(
  responseId: string,
  options: { readonly startingAfter?: number } = {},
  config?: ResponsesStreamConfig,
): Observable<ResponseStreamEvent> {
  const after = options.startingAfter;
  const invalid = checkResponseId(responseId) ?? checkCursor(after) ?? refusal(() => checkResponsesConfig(config));
  if (invalid) return throwError(() => invalid);
  const query = after === undefined ? '?stream=true' : `?stream=true&starting_after=${after}`;
  return streamOf('GET', `/responses/${encodeURIComponent(responseId)}${query}`, undefined, config, (res) =>
    fromResponsesSSE(res, { ...config, startingAfter: after ?? config?.startingAfter }),
  );
}

/** Ids seen in the wild (`resp_…`, UUIDs, provider prefixes with `.` or `:`): letters and digits first, then `_ - . : ~`. */
const PLAUSIBLE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:~-]{0,255}$/;

/**
 * Why a response id cannot go into a path, or `undefined`. `/ ? # % ..` (and anything else outside the
 * plausible set) could change the request's path, so they are refused rather than encoded.
 */
export function checkResponseId(id: unknown): InvalidOptionError | undefined {
  if (typeof id !== 'string') return new InvalidOptionError('responseId', `expected a string, got ${id === null ? 'null' : typeof id}`);
  if (PLAUSIBLE_ID.test(id) && !id.includes('..')) return undefined;
  return new InvalidOptionError('responseId', `${excerpt(id, 40)} is not a plausible response id (1–256 of A–Z a–z 0–9 _ - . : ~, starting with a letter or digit, no "..")`);
}

/**
 * `POST {baseURL}/chat/completions` with `stream: true`, as a cold Observable of chunks. Each subscription
 * sends its own request; unsubscribing aborts it.
 *
 * ```ts
 * streamChatCompletion({ model: 'gpt-5.4-nano', messages: [{ role: 'user', content: 'Say hello' }] })
 *   .pipe(map((chunk) => chunk.choices[0]?.delta?.content), filter((text) => typeof text === 'string'))
 *   .subscribe((text) => process.stdout.write(text));
 * ```
 */
export function streamChatCompletion(body: ChatCompletionCreateParams, config?: ChatStreamConfig): Observable<ChatCompletionChunk> {
  const invalid = refusal(() => {
    checkClientConfig(config);
    checkChatSSEOptions(config ?? {});
  });
  if (invalid) return throwError(() => invalid);
  return streamOf('POST', '/chat/completions', { ...body, stream: true }, config, (res) => fromChatCompletionsSSE(res, config));
}
