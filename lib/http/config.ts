import { env } from '../env.js';

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
  /** Aborts the request, as unsubscribing does. */
  readonly signal?: AbortSignal;
  /** Ends the stream with `IdleTimeoutError` when no event arrives for this long (ms). Off by default. */
  readonly idleTimeout?: number;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface ResolvedConfig {
  readonly baseURL: string;
  readonly fetch: typeof fetch;
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal | undefined;
  readonly idleTimeout: number | undefined;
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
  const baseURL = (config.baseURL ?? env('OPENAI_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // Browsers refuse their own fetch called as a method of another object ("Illegal invocation"): bind it.
  const f = config.fetch ?? (globalThis.fetch as typeof fetch | undefined)?.bind(globalThis);
  if (!f) throw new TypeError('no fetch available: pass config.fetch');
  const headers: Record<string, string> = { accept: 'text/event-stream', ...config.headers };
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  return { baseURL, fetch: f, headers, signal: config.signal, idleTimeout: config.idleTimeout };
}
