// The gateway's HTTP errors: an OpenAI-style JSON body ({ error: { message, type, param, code } }) with its
// status, so the official SDK and any OpenAI-compatible client raise their own typed errors from it.
import { HTTPError, IdleTimeoutError, NetworkError, NotAnEventStreamError } from '../lib/errors.js';
import { redactThenCut } from '../lib/redact.js';

/** The body of an OpenAI API error response. */
export interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** Statuses the gateway answers with itself (upstream errors are passed through with their own status). */
export type GatewayErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 429 | 500 | 502 | 503 | 504;

const MAX_MESSAGE = 500;
const MAX_FIELD = 200;

/**
 * An error the gateway answers a request with: `status` and an OpenAI-style `body`. Thrown or returned by
 * routes, `authorize` and the chat request mapping; the handler writes it as JSON (or as a final SSE `error`
 * event once a stream has started). The message and every field are cut and credential shapes masked, so an
 * echo of a key never reaches a client or a log.
 */
export class GatewayHttpError extends Error {
  override readonly name = 'GatewayHttpError';
  readonly body: OpenAIErrorBody;
  constructor(
    /** A {@link GatewayErrorStatus}, or an upstream's own status passed through. */
    readonly status: number,
    message: string,
    options: { readonly type?: string; readonly param?: string | null; readonly code?: string | null } = {},
  ) {
    const safe = redactThenCut(message, MAX_MESSAGE);
    super(safe);
    // Every field may come from an upstream's error (passed through): each is masked and cut like the message.
    const field = (v: string | null | undefined): string | null => (typeof v === 'string' ? redactThenCut(v, MAX_FIELD) : null);
    this.body = {
      error: { message: safe, type: field(options.type) ?? defaultType(status), param: field(options.param), code: field(options.code) },
    };
  }
  toJSON(): OpenAIErrorBody {
    return this.body;
  }
}

function defaultType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A 400 for a request the gateway cannot use, naming the parameter (a JSON path such as `messages[2].content`). */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null): GatewayHttpError {
  return new GatewayHttpError(400, message, { type: 'invalid_request_error', param, code });
}

/** Whether a value is a GatewayHttpError (also across duplicate module copies: ESM and CJS). */
export function isGatewayHttpError(value: unknown): value is GatewayHttpError {
  return value instanceof GatewayHttpError || (value instanceof Error && value.name === 'GatewayHttpError' && 'body' in value && 'status' in value);
}

/**
 * What a client is told when the upstream failed before a stream started: an upstream HTTP error passes
 * through with its status and fields; no answer in time is a 504; anything else (unreachable, not an event
 * stream, a broken body) is a 502. Messages are the library's own (never a key: the transports mask them).
 */
export function upstreamError(e: unknown): GatewayHttpError {
  if (isGatewayHttpError(e)) return e;
  if (e instanceof NotAnEventStreamError) return new GatewayHttpError(502, `The upstream answered ${e.status} without an event stream.`, { code: 'bad_gateway' });
  if (e instanceof HTTPError) {
    return new GatewayHttpError(e.status, e.apiMessage ?? `The upstream answered ${e.status}.`, { type: e.errorType ?? undefined, param: e.param ?? null, code: e.errorCode ?? null });
  }
  if (e instanceof FirstEventTimeout) return new GatewayHttpError(504, `The upstream sent no event in time (${e.message}).`, { code: 'gateway_timeout' });
  if (e instanceof IdleTimeoutError) return new GatewayHttpError(504, 'The upstream stopped sending events.', { code: 'gateway_timeout' });
  if (e instanceof NetworkError) return new GatewayHttpError(502, `The upstream could not be reached${e.errorCode ? ` (${e.errorCode})` : ''}.`, { code: 'bad_gateway' });
  return new GatewayHttpError(502, `The upstream stream failed${e instanceof Error && 'code' in e ? ` (${String((e as { code: unknown }).code)})` : ''}.`, { code: 'bad_gateway' });
}

/** The upstream sent no event within `timeouts.upstreamMs` (answered 504). */
export class FirstEventTimeout extends Error {
  override readonly name = 'FirstEventTimeout';
}
