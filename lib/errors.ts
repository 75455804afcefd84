// Typed errors. Every error says what was wrong and where, and carries no request headers or
// configuration, so an API key can never travel inside one.
import { redactThenCut } from './redact.js';

/** Base class of every error the library raises. `code` tells them apart without `instanceof`. */
export abstract class OpenAIRxError extends Error {
  abstract readonly code: string;
  /** Whether trying again (reconnecting, resuming) can help. */
  readonly retryable: boolean = false;
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const [k, v] of Object.entries(this)) if (k !== 'cause' && k !== 'event') out[k] = v;
    return out;
  }
}

const EXCERPT = 80;
/** A short excerpt for error messages: never a whole payload; credential shapes are masked before the cut. */
export function excerpt(text: string, max = EXCERPT): string {
  return JSON.stringify(redactThenCut(text, max));
}

/**
 * A payload that is not valid JSON, not an event, or fails its event's codec. The message names the event
 * type, sequence number, field path and what was expected, and never quotes the payload (it carries user
 * content into logs); a short raw `excerpt` is kept apart, not enumerable, so `toJSON` and loggers skip it.
 */
export class DecodeError extends OpenAIRxError {
  override readonly name = 'DecodeError';
  readonly code = 'decode_error';
  /** The start of the offending payload, for debugging by hand. */
  declare readonly excerpt?: string;
  constructor(
    readonly reason: string,
    readonly eventType?: string,
    readonly sequenceNumber?: number,
    readonly path?: string,
    excerptText?: string,
  ) {
    super(
      [
        reason,
        eventType !== undefined ? `event type ${JSON.stringify(eventType)}` : undefined,
        sequenceNumber !== undefined ? `sequence_number ${sequenceNumber}` : undefined,
        path ? `at ${path}` : undefined,
      ].filter(Boolean).join(', '),
    );
    if (excerptText !== undefined) Object.defineProperty(this, 'excerpt', { value: excerpt(excerptText), enumerable: false, configurable: true });
  }
}

const SEQUENCE_IN_TEXT = /"sequence_number"\s*:\s*(\d{1,15})\b/;
/**
 * A data line that is not JSON: named by its event type and, when the text shows one, its sequence
 * number (read from the raw text), with its length rather than its content.
 */
export function malformedJSON(data: string, eventType?: string, sequenceNumber?: number): DecodeError {
  const seq = sequenceNumber ?? SEQUENCE_IN_TEXT.exec(data)?.[1];
  return new DecodeError(`malformed JSON (${data.length} characters) where a JSON object was expected`, eventType, seq === undefined ? undefined : Number(seq), undefined, data);
}

/** A configured limit (line length, event size, buffered values) was exceeded. */
export class LimitExceededError extends OpenAIRxError {
  override readonly name = 'LimitExceededError';
  readonly code = 'limit_exceeded';
  constructor(
    readonly limit: 'maxLineLength' | 'maxEventSize' | 'maxBuffer' | 'maxQueue' | 'maxFrameSize',
    readonly max: number,
  ) {
    super(`${limit} of ${max} exceeded`);
  }
}

/** `sequence: 'strict'` saw a number that skipped ahead. */
export class SequenceGapError extends OpenAIRxError {
  override readonly name = 'SequenceGapError';
  readonly code = 'sequence_gap';
  constructor(
    readonly expected: number,
    readonly received: number,
    readonly eventType: string,
  ) {
    super(`sequence_number ${received} (event type ${JSON.stringify(eventType)}) where ${expected} was expected`);
  }
}

/** The body ended before a terminal event: resumable from `lastSequenceNumber`. */
export class StreamInterruptedError extends OpenAIRxError {
  override readonly name = 'StreamInterruptedError';
  readonly code = 'stream_interrupted';
  override readonly retryable = true;
  constructor(
    readonly responseId: string | undefined,
    readonly lastSequenceNumber: number | undefined,
    reason = 'the stream ended before a terminal event',
  ) {
    super(`${reason} (response ${responseId ?? 'unknown'}, last sequence_number ${lastSequenceNumber ?? 'none'})`);
  }
}

/** No data arrived within the idle timeout. */
export class IdleTimeoutError extends OpenAIRxError {
  override readonly name = 'IdleTimeoutError';
  readonly code = 'idle_timeout';
  override readonly retryable = true;
  constructor(readonly idleTimeoutMs: number) {
    super(`no data for ${idleTimeoutMs} ms`);
  }
}

/** `response.failed` or an `error` event ended the stream. The event itself is on `event`. */
export class ResponseStreamError extends OpenAIRxError {
  override readonly name: string = 'ResponseStreamError';
  readonly code: string;
  constructor(
    readonly eventType: 'response.failed' | 'error' | string,
    readonly errorCode: string | null | undefined,
    message: string,
    readonly param: string | null | undefined,
    readonly sequenceNumber: number | undefined,
    readonly responseId: string | undefined,
    readonly event: unknown,
  ) {
    super(`${eventType}: ${errorCode ? `${errorCode}: ` : ''}${message}`);
    this.code = errorCode ?? 'response_error';
    Object.defineProperty(this, 'event', { enumerable: false });
  }
}

/**
 * The response was cancelled (`POST /responses/{id}/cancel`): its terminal `response.cancelled` (or a
 * lifecycle event whose `response.status` is `cancelled`) ended the stream. Final: not retryable, so no
 * resume logic reconnects to a response that will never go on. A `ResponseStreamError`, so code that handles
 * a failed response handles this one too; `code` tells them apart.
 */
export class ResponseCancelledError extends ResponseStreamError {
  override readonly name = 'ResponseCancelledError';
  override readonly code = 'response_cancelled';
  constructor(eventType: string, sequenceNumber: number | undefined, responseId: string | undefined, event: unknown) {
    super(eventType, 'response_cancelled', `the response${responseId !== undefined ? ` ${responseId}` : ''} was cancelled`, null, sequenceNumber, responseId, event);
  }
}

/**
 * The model refused to answer (a `refusal` content part, `response.refusal.delta` / `.done`) where an answer
 * was expected: `refusal` carries its text, which is the model's, not the user's.
 */
export class RefusalError extends OpenAIRxError {
  override readonly name = 'RefusalError';
  readonly code = 'refusal';
  constructor(
    readonly refusal: string,
    readonly responseId: string | undefined,
  ) {
    super(`the model refused${responseId !== undefined ? ` (response ${responseId})` : ''}: ${excerpt(refusal, 200)}`);
  }
}

/**
 * The response ended `incomplete` (`response.incomplete`: `max_output_tokens`, `content_filter`, ...) before
 * what was being read of it was complete. `reason` is `response.incomplete_details.reason` when the API gave one.
 */
export class IncompleteResponseError extends OpenAIRxError {
  override readonly name = 'IncompleteResponseError';
  readonly code = 'response_incomplete';
  constructor(
    readonly reason: string | undefined,
    readonly responseId: string | undefined,
    what: string,
  ) {
    super(`the response${responseId !== undefined ? ` ${responseId}` : ''} ended incomplete (${reason ?? 'no reason given'}) before ${what} was complete`);
  }
}

/** Whether `e` says the response was cancelled. Duck-typed on `code`, so that a second copy of the library (ESM next to CJS) counts too. */
export function isCancellation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'response_cancelled';
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);
/** A non-2xx HTTP answer. */
export class HTTPError extends OpenAIRxError {
  override readonly name: string = 'HTTPError';
  readonly code: string;
  override readonly retryable: boolean;
  constructor(
    readonly status: number,
    readonly errorCode: string | null | undefined,
    readonly apiMessage: string | undefined,
    readonly requestId: string | null | undefined,
    readonly errorType?: string | null,
    readonly param?: string | null,
    /** How long the server asked to wait (`retry-after-ms` / `retry-after`), in ms, when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}${errorCode ? ` ${errorCode}` : ''}${apiMessage ? `: ${apiMessage}` : ''}${requestId ? ` (request ${requestId})` : ''}`);
    this.code = errorCode ?? `http_${status}`;
    this.retryable = RETRYABLE_STATUS.has(status) || status >= 500;
  }
}

/** What a Durable Streams server's answer means, as `DurableStreamError.code`. */
export type DurableStreamErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'rate_limited'
  | 'server_error'
  | 'protocol_error'
  | `http_${number}`;

/**
 * A Durable Streams server refused a read (`fromDurableStream`) or answered outside the protocol. `code` names the
 * status (`not_found` 404, `gone` 410: deleted or before what the server retains, `forbidden` 403, `bad_request` 400:
 * e.g. an offset it never minted, `conflict` 409, `rate_limited` 429, `server_error` 5xx) or `protocol_error` (a
 * success without the headers the protocol requires). `url` is the stream's origin and path only: no query (where
 * tokens travel), no credentials; no header value is ever kept. `message` may hold a short masked excerpt of the
 * server's body. Retryable for 408, 429 and 5xx.
 */
export class DurableStreamError extends OpenAIRxError {
  override readonly name = 'DurableStreamError';
  readonly code: DurableStreamErrorCode;
  override readonly retryable: boolean;
  constructor(
    /** The HTTP status (the success's own for a `protocol_error`). */
    readonly status: number,
    /** The stream's URL without its query, fragment or credentials. */
    readonly url: string,
    reason?: string,
    /** How long the server asked to wait (`Retry-After`), in ms, when it said. */
    readonly retryAfterMs?: number,
    code?: DurableStreamErrorCode,
  ) {
    const c = code ?? durableStreamCode(status);
    super(`${c} (HTTP ${status}) reading ${url}${reason ? `: ${reason}` : ''}`);
    this.code = c;
    this.retryable = c !== 'protocol_error' && (status === 408 || status === 429 || status >= 500);
  }
}

function durableStreamCode(status: number): DurableStreamErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'server_error' : `http_${status}`;
  }
}

/**
 * The request could not be made or the connection broke (fetch rejected, socket reset). `cause` is the
 * underlying error; `errorCode` its system code (`ECONNREFUSED`, `ENOTFOUND`, …) when it has one.
 */
export class NetworkError extends OpenAIRxError {
  override readonly name = 'NetworkError';
  readonly code = 'network_error';
  override readonly retryable = true;
  readonly errorCode?: string;
  constructor(reason: string, options: { readonly cause?: unknown; readonly errorCode?: string } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.errorCode !== undefined) this.errorCode = options.errorCode;
  }
}

/**
 * The caller's `signal` aborted the request or the stream. Final: not retryable, so `resumeFrom` does not
 * reconnect after the caller asked to stop.
 */
export class AbortedError extends OpenAIRxError {
  override readonly name = 'AbortedError';
  readonly code = 'aborted';
  constructor() {
    super("the caller's signal aborted the request");
  }
}

export function isOpenAIRxError(e: unknown): e is OpenAIRxError {
  return e instanceof OpenAIRxError;
}

/**
 * An option that cannot work, refused before anything is sent or read: a constructor's or function's option, a
 * configuration value or an argument such as a response id or a cursor (a `baseURL` that is not an http(s) URL
 * or carries `user:password@`, a `maxEvents` of -1, a `validate` mode that does not exist…). The one error of
 * the package for them, thrown or, where the option reaches an Observable, its error. `option` names it, as a
 * path when nested (`upstream.baseURL`, `limits.maxBodyBytes`, `tools`); the message says what was wrong and
 * never quotes a key or a URL's credentials. Not retryable: trying again cannot fix it.
 */
export class InvalidOptionError extends OpenAIRxError {
  override readonly name = 'InvalidOptionError';
  readonly code = 'invalid_option';
  constructor(
    /** The option at fault, e.g. `maxBufferedEvents`, `upstream.baseURL`, `startingAfter`. */
    readonly option: string,
    /** What was wrong with it. */
    readonly reason: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${option}: ${reason}`, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/**
 * Text that is not JSON (or not yet all of it, at its end): `position` is the 0-based character offset where it
 * stopped being a JSON prefix, and the message says what was expected there. The text itself is never quoted
 * (it carries the model's answer into logs).
 */
export class JsonTextError extends OpenAIRxError {
  override readonly name = 'JsonTextError';
  readonly code = 'json_text';
  constructor(
    /** What was wrong, e.g. `expected ',' or '}'`. */
    readonly reason: string,
    /** 0-based character offset in the whole text. */
    readonly position: number,
  ) {
    super(`${reason} at position ${position}`);
  }
}

/** A 2xx answer whose body is not an event stream (an HTML page, a gateway's JSON error): the server's message, read up to 64 KiB. */
export class NotAnEventStreamError extends HTTPError {
  override readonly name = 'NotAnEventStreamError';
  override readonly code = 'not_an_event_stream';
  override readonly retryable = false;
  constructor(
    status: number,
    readonly contentType: string,
    apiMessage: string | undefined,
    requestId: string | null | undefined,
  ) {
    super(status, `not_an_event_stream`, `content-type ${JSON.stringify(contentType)} where text/event-stream was expected${apiMessage ? `: ${apiMessage}` : ''}`, requestId);
  }
}

/** A reconnect answered with another response than the one being resumed: splicing it in would mix two answers. */
export class ResponseMismatchError extends OpenAIRxError {
  override readonly name = 'ResponseMismatchError';
  readonly code = 'response_mismatch';
  constructor(
    readonly expectedResponseId: string,
    readonly receivedResponseId: string,
    readonly eventType: string | undefined,
  ) {
    super(`the stream carries response ${JSON.stringify(receivedResponseId)} where ${JSON.stringify(expectedResponseId)} was being resumed${eventType ? ` (event type ${JSON.stringify(eventType)})` : ''}`);
  }
}

/**
 * The durable event log failed: `reason` says how (see `EventLog`; `forbidden`: the store refused a command or
 * key to the log's user, e.g. a Redis ACL without it; `lost`: the log holds less than was already acknowledged
 * or delivered, events lost when a Redis master died before its replica had them; `corrupt`: a stream's keys
 * are not what the log wrote, e.g. overwritten with another type; `invalid`: what was given cannot be recorded, e.g.
 * an event without a sequence number, or a stream with no response id; `missing_dependency`: the store's client
 * package is not installed, e.g. ioredis for `redisEventLog`, named in the message and by the
 * `MissingPeerDependencyError` that is its `cause`); `retryable` when trying again can help.
 */
export class EventLogError extends OpenAIRxError {
  override readonly name = 'EventLogError';
  readonly code = 'event_log_error';
  override readonly retryable: boolean;
  constructor(
    readonly reason: 'lease_held' | 'fenced' | 'limit' | 'unavailable' | 'not_found' | 'forbidden' | 'lost' | 'corrupt' | 'invalid' | 'missing_dependency',
    message: string,
    readonly responseId?: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${reason}: ${message}${responseId !== undefined ? ` (response ${responseId})` : ''}`, options);
    this.retryable = reason === 'unavailable' || reason === 'lease_held';
  }
}

/**
 * A feature needs an optional peer dependency that is not installed: `ws` for a WebSocket on Node (the
 * socket's `events$` errors with it), `ioredis` for `redisEventLog` (its calls fail with
 * `EventLogError('missing_dependency')`, whose `cause` this is). Raised when the feature is used, never at
 * import; installing the package helps, trying again does not.
 */
export class MissingPeerDependencyError extends OpenAIRxError {
  override readonly name = 'MissingPeerDependencyError';
  readonly code = 'missing_peer_dependency';
  constructor(
    /** The package to install, e.g. `ioredis`. */
    readonly packageName: string,
    /** What needs it, e.g. `redisEventLog`. */
    readonly feature: string,
    /** Why, when not plain, e.g. `to send the connection's headers`. */
    reason?: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`${feature} needs the optional peer dependency '${packageName}'${reason ? ` ${reason}` : ''}: npm install ${packageName}`, options);
  }
}
