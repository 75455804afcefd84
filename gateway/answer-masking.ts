// What of an upstream's answer may reach a client. The upstream may echo the key it was sent (a 401 "Incorrect
// API key provided: sk-proj-****abcd", a header, a body that quotes a request) and the gateway's key is shared by
// every caller: every answer the gateway relays (status aside) is masked on its way in, before any route reads it.
// Headers come through an allow-list, their values masked; the body is masked as it streams, byte for byte
// elsewhere, whatever its size and however it is cut into chunks.
import { headerSecrets, isAsciiText, PreparedSecrets, redactString, secretsOf, type Secrets } from '../lib/redact.js';
import { StreamRedactor } from '../lib/redact-stream.js';

/**
 * Upstream response headers a client gets (values masked): what the body is, the request id and timing the
 * SDKs and support requests use, and rate limits and retry advice. Everything else is dropped: cookies,
 * `www-authenticate`, redirects (`location`: a client must not be sent to the upstream itself),
 * `openai-organization` / `openai-project` (not secrets, but they name the operator's account to every tenant),
 * server and CDN headers, and any header an upstream adds that might echo a credential.
 */
const KEPT = new Set([
  'content-type', 'content-disposition', 'content-language', 'cache-control', 'etag', 'last-modified',
  'x-request-id', 'openai-processing-ms', 'openai-version',
  'retry-after', 'retry-after-ms', 'x-should-retry',
]);
const KEPT_PREFIXES = ['x-ratelimit-'];

/** Statuses whose answer has no body (a `Response` refuses one; the node:http upstream reads none). */
export const NO_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** A text in the unit the body is masked in: its UTF-8 bytes, one latin1 character each (an ASCII key as it is). */
const asBytes = (s: string): string => (isAsciiText(s) ? s : Buffer.from(s, 'utf8').toString('latin1'));

/**
 * The secrets masked in what comes back from a request sent with these upstream headers: the gateway's own
 * upstream key, and the credentials the request carried (the caller's key from `authorize`, or its own).
 */
export function answerSecrets(upstreamKey: string | undefined, headers: Readonly<Record<string, string>>): Secrets {
  return secretsOf(upstreamKey, ...headerSecrets(headers)).map(asBytes);
}

/** Whether an upstream response header may reach a client. */
export function isKeptHeader(name: string): boolean {
  const n = name.toLowerCase();
  return KEPT.has(n) || KEPT_PREFIXES.some((p) => n.startsWith(p));
}

/** The allow-listed headers, values masked. Header values are bytes (latin1), as the secrets are here. */
export function maskedHeaders(headers: Headers, secrets: Secrets | PreparedSecrets): Headers {
  const out = new Headers();
  headers.forEach((value, name) => {
    if (isKeptHeader(name)) out.set(name, redactString(value, secrets));
  });
  return out;
}

/** The body's bytes masked as they stream; at most a small tail held back between chunks. */
export function maskedBody(body: ReadableStream<Uint8Array>, secrets: Secrets | PreparedSecrets): ReadableStream<Uint8Array> {
  const redactor = new StreamRedactor(secrets);
  const emit = (text: string, controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (text === '') return;
    const bytes = Buffer.from(text, 'latin1');
    controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => emit(redactor.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1')), controller),
      flush: (controller) => emit(redactor.end(), controller),
    }),
  );
}

/**
 * The upstream's answer as a client may see it: the same status, allow-listed and masked headers, the body
 * masked as it streams. Every route that relays or reads an upstream answer gets this one.
 */
export function maskedAnswer(up: Response, secrets: Secrets): Response {
  if (up.body !== null && NO_BODY.has(up.status)) void up.body.cancel().catch(() => undefined);
  const prepared = new PreparedSecrets(secrets); // once for the headers and the body
  const body = up.body === null || NO_BODY.has(up.status) ? null : maskedBody(up.body, prepared);
  return new Response(body, { status: up.status, statusText: '', headers: maskedHeaders(up.headers, prepared) });
}

/** What a request upstream is given: the part of `RequestInit` the gateway uses. */
export interface UpstreamInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | null;
  readonly signal?: AbortSignal | null;
}

/**
 * How the gateway asks its upstream: `fetch`'s contract (a rejection when no answer comes, the body's reading
 * failing when the connection breaks, `signal` aborting either), redirects never followed, and the answer already
 * {@link maskedAnswer masked} for `secrets`.
 */
export type MaskedUpstream = (url: string, init: UpstreamInit, secrets: Secrets) => Promise<Response>;

/** An operator's `fetch` as the gateway's upstream: its answers masked through {@link maskedAnswer}. */
export function fetchUpstreamOf(f: typeof fetch): MaskedUpstream {
  return async (url, init, secrets) => {
    const body = init.body === null || init.body === undefined ? undefined : (init.body as string | Uint8Array<ArrayBuffer>);
    return maskedAnswer(await f(url, { method: init.method, headers: init.headers, body, signal: init.signal, redirect: 'manual' }), secrets);
  };
}

/**
 * `fetch` whose every answer is masked: for the library's transports, which read the upstream's event streams
 * themselves (streamed creates, chats, a background stream taken over), so that what they decode, record and
 * relay is masked too. Line breaks are never held back: an SSE event is not delayed.
 */
export function maskingFetch(upstream: MaskedUpstream, secrets: Secrets): typeof fetch {
  const masking = async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    upstream(String(input), (init ?? {}) as UpstreamInit, secrets);
  return masking as typeof fetch;
}
