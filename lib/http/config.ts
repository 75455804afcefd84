import { env } from '../env.js';
import { InvalidOptionError } from '../errors.js';
import { durationMs, nonNegativeNumber } from '../options.js';
import { headerSecrets, secretsOf, type Secrets } from '../redact.js';

/** Where and how to reach an OpenAI-compatible API. */
export interface ClientConfig {
  /** Default: `OPENAI_API_KEY` from the environment, where there is one. */
  readonly apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  readonly baseURL?: string;
  /** Injectable fetch (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Extra request headers. */
  readonly headers?: Record<string, string>;
  /** Aborts the request, before the headers or mid-body: the stream ends with `AbortedError` (not retryable). */
  readonly signal?: AbortSignal;
  /** Ends the stream with `IdleTimeoutError` when no event arrives for this long (ms). Off by default. */
  readonly idleTimeoutMs?: number;
  /**
   * After a stream ends normally (its terminal event, or the decoder's end) the rest of the body, usually
   * nothing or the final chunk, is read in the background without being decoded, so that the connection
   * goes back to the keep-alive pool instead of being cut. At most `bytes` (default 64 KiB) for at most
   * `ms` (default 1000), then the body is cancelled. Unsubscribing before the end still aborts at once.
   */
  readonly drainAfterEnd?: { readonly bytes?: number; readonly ms?: number };
}

/** Defaults of `drainAfterEnd`. */
export const DRAIN_AFTER_END = { bytes: 64 * 1024, ms: 1000 } as const;

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface ResolvedConfig {
  readonly baseURL: string;
  readonly fetch: typeof fetch;
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal | undefined;
  readonly idleTimeoutMs: number | undefined;
  readonly drainBytes: number;
  readonly drainMs: number;
}

/** The key a request would send: the configured one, else `OPENAI_API_KEY`. */
export function apiKeyOf(config: ClientConfig = {}): string | undefined {
  return config.apiKey ?? env('OPENAI_API_KEY');
}

/**
 * Fills defaults. The key goes straight into the headers object, which is never put on an error,
 * logged or returned to the caller.
 */
export function resolveConfig(config: ClientConfig = {}): ResolvedConfig {
  const apiKey = apiKeyOf(config);
  const baseURL = checkBaseURL((config.baseURL ?? env('OPENAI_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, ''));
  // Browsers refuse their own fetch called as a method of another object ("Illegal invocation"): bind it.
  const f = config.fetch ?? (globalThis.fetch as typeof fetch | undefined)?.bind(globalThis);
  if (typeof f !== 'function') throw new InvalidOptionError('fetch', 'no fetch here: pass one as config.fetch');
  // Names in lower case, so that `Authorization` and the key's `authorization` are one header, not two joined.
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  for (const [k, v] of Object.entries(config.headers ?? {})) headers[k.toLowerCase()] = v;
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  const drainBytes = nonNegativeNumber('drainAfterEnd.bytes', config.drainAfterEnd?.bytes, DRAIN_AFTER_END.bytes);
  const drainMs = durationMs('drainAfterEnd.ms', config.drainAfterEnd?.ms, DRAIN_AFTER_END.ms);
  const idleTimeoutMs = durationMs('idleTimeoutMs', config.idleTimeoutMs);
  return { baseURL, fetch: f, headers, signal: config.signal, idleTimeoutMs, drainBytes, drainMs };
}

/** @internal Throws the `InvalidOptionError` of a config that cannot work (what `resolveConfig` would refuse), before any request. */
export function checkClientConfig(config: ClientConfig = {}): void {
  resolveConfig(config);
}

/** The secrets a request made with this config carries: the key and any credential in `headers`. */
export function configSecrets(config: ClientConfig = {}): Secrets {
  return secretsOf(apiKeyOf(config), ...headerSecrets(config.headers));
}

/**
 * `text` as an absolute URL without credentials, else a `InvalidOptionError` naming `setting` (not retryable:
 * no reconnect can fix it). The message never quotes the URL: a malformed one may hide a password where it
 * cannot be found.
 */
export function urlWithoutCredentials(text: string, setting: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError(setting, `not an absolute URL (expected e.g. ${example})`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidOptionError(setting, 'credentials in the URL (user:password@) are refused: pass the key as apiKey or in headers');
  }
  return url;
}

/** An absolute http(s) URL without credentials (see {@link urlWithoutCredentials}), else a `InvalidOptionError`. */
export function checkBaseURL(baseURL: string): string {
  const url = urlWithoutCredentials(baseURL, 'baseURL', 'https://api.openai.com/v1');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // Quoted only when it is plainly a scheme (`ws://`): `user:pass@host` parses with `user:` as its scheme.
    const shown = baseURL.startsWith(`${url.protocol}//`) && url.protocol.length <= 16 ? ` ${JSON.stringify(url.protocol)}` : '';
    throw new InvalidOptionError('baseURL', `unsupported scheme${shown} (expected http: or https:)`);
  }
  return baseURL;
}
