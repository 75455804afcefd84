// What every response carries (section 12.7's browser headers and CORS) and the small senders the handler uses.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ALLOWED_HEADERS, EXPOSED_HEADERS, H } from './headers.js';
import type { StreamInfo } from './store.js';

export interface ResponsePolicy {
  /** `Access-Control-Allow-Origin`; `false` sends no CORS headers (a server in front handles them). */
  readonly allowOrigin: string | false;
  /** `Cross-Origin-Resource-Policy`. */
  readonly crossOriginResourcePolicy: 'cross-origin' | 'same-site' | 'same-origin';
  /** `Cache-Control` of reads that return data (catch-up and long-poll 200s). */
  readonly cacheControl: string;
}

export const DEFAULT_POLICY: ResponsePolicy = {
  allowOrigin: '*',
  crossOriginResourcePolicy: 'cross-origin',
  cacheControl: 'private, max-age=60, stale-while-revalidate=300',
};

/**
 * The headers every response carries, as a new object that the caller adds to by name: not `{ ...baseHeaders(p),
 * more }`, which gives each response's headers a hidden class of their own in V8 11 (Node 20), a runtime call each.
 */
export function baseHeaders(policy: ResponsePolicy): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': policy.crossOriginResourcePolicy,
  };
  if (policy.allowOrigin !== false) {
    headers['Access-Control-Allow-Origin'] = policy.allowOrigin;
    headers['Access-Control-Expose-Headers'] = EXPOSED_HEADERS;
    if (policy.allowOrigin !== '*') headers['Vary'] = 'Origin';
  }
  return headers;
}

/** A CORS preflight: 204 naming the methods and headers a browser may use. */
export function sendPreflight(res: ServerResponse, policy: ResponsePolicy, methods: string): void {
  const headers = baseHeaders(policy);
  if (policy.allowOrigin !== false) {
    headers['Access-Control-Allow-Methods'] = methods;
    headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = '86400';
  }
  headers['Allow'] = methods;
  res.writeHead(204, headers).end();
}

/** A response without a stream body; `text` (an error's reason) goes as text/plain. */
export function send(res: ServerResponse, policy: ResponsePolicy, status: number, extra: OutgoingHttpHeaders = {}, text?: string): void {
  const headers = baseHeaders(policy);
  headers['Cache-Control'] = 'no-store';
  Object.assign(headers, extra);
  if (text === undefined || status === 204 || status === 304) {
    res.writeHead(status, headers).end();
    return;
  }
  const body = Buffer.from(text, 'utf8');
  headers['Content-Type'] = 'text/plain; charset=utf-8';
  headers['Content-Length'] = body.length;
  res.writeHead(status, headers).end(body);
}

/** The headers describing a stream (HEAD, PUT's 200/201). */
export function infoHeaders(info: StreamInfo): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'Content-Type': info.contentType, [H.nextOffset]: info.tail };
  if (info.ttlSeconds !== undefined) headers[H.ttl] = String(info.ttlSeconds);
  if (info.expiresAt !== undefined) headers[H.expiresAt] = info.expiresAt;
  if (info.closed) headers[H.closed] = 'true';
  return headers;
}

/** The stream's absolute URL for `Location`, from the request's Host. */
export function absoluteUrl(req: IncomingMessage, path: string): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${secure ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${path}`;
}

export const NOT_FOUND = 'stream not found';
export const GONE = 'stream deleted';
