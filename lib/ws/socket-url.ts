// The URL a Responses WebSocket connects to: from `baseURL` (http→ws), or a full `url` checked as strictly.
import { InvalidOptionError } from '../errors.js';
import { env } from '../env.js';
import { checkBaseURL, DEFAULT_BASE_URL, urlWithoutCredentials } from '../http/config.js';

/** `{baseURL}/responses` with http→ws and https→wss. */
export function responsesSocketURL(baseURL: string = env('OPENAI_BASE_URL') ?? DEFAULT_BASE_URL): string {
  checkBaseURL(baseURL);
  return `${baseURL.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:')}/responses`;
}

/** A full `url`: ws(s) only, and never `user:password@` (refused without quoting it, as for `baseURL`). */
export function checkSocketURL(url: string): string {
  const u = urlWithoutCredentials(url, 'url', 'wss://api.openai.com/v1/responses');
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new InvalidOptionError('url', 'unsupported scheme (expected ws: or wss:)');
  return url;
}
