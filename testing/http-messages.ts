// The test server's HTTP messages: a request read (its body, its headers with credentials redacted, its
// route) and the JSON answers and OpenAI-style errors it writes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestRoute } from './http-server-types.js';

const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key', 'cookie']);
const MAX_BODY = 1024 * 1024;

/** The headers as recorded: credential values replaced by `[redacted]`. */
export function redact(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    out[k] = REDACTED_HEADERS.has(k) ? (/^bearer /i.test(value) ? 'Bearer [redacted]' : '[redacted]') : value;
  }
  return out;
}

const DEFAULT_ERRORS: Record<number, { code: string | null; type: string; message: string }> = {
  400: { code: null, type: 'invalid_request_error', message: 'Invalid request.' },
  401: { code: 'invalid_api_key', type: 'invalid_request_error', message: 'Incorrect API key provided.' },
  404: { code: null, type: 'invalid_request_error', message: 'Not found.' },
  408: { code: null, type: 'server_error', message: 'Request timed out.' },
  429: { code: 'rate_limit_exceeded', type: 'requests', message: 'Rate limit reached (test server).' },
  500: { code: 'server_error', type: 'server_error', message: 'The server had an error while processing your request.' },
  503: { code: 'server_is_overloaded', type: 'server_error', message: 'The server is overloaded.' },
};

/** An OpenAI-style JSON error; the status's usual code, type and message unless `overrides` say otherwise. */
export function sendError(res: ServerResponse, status: number, overrides: { code?: string | null; message?: string; errorType?: string; headers?: Readonly<Record<string, string>> } = {}): void {
  const d = DEFAULT_ERRORS[status] ?? { code: null, type: status >= 500 ? 'server_error' : 'invalid_request_error', message: `HTTP ${status}` };
  const payload = JSON.stringify({
    error: { message: overrides.message ?? d.message, type: overrides.errorType ?? d.type, param: null, code: overrides.code !== undefined ? overrides.code : d.code },
  });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...overrides.headers });
  res.end(payload);
}

export function sendJSON(res: ServerResponse, value: unknown): void {
  const payload = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

export async function readBody(req: IncomingMessage): Promise<unknown> {
  req.setEncoding('utf8');
  let text = '';
  for await (const c of req as AsyncIterable<string>) {
    text += c;
    if (text.length > MAX_BODY) break;
  }
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function routeOf(method: string, path: string, query: Record<string, string>): { route: TestRoute; id?: string } {
  if (method === 'POST' && path === '/v1/responses') return { route: 'responses.create' };
  if (method === 'POST' && path === '/v1/chat/completions') return { route: 'chat.create' };
  if (method === 'GET' && path === '/v1/models') return { route: 'models.list' };
  const model = /^\/v1\/models\/(.+)$/.exec(path);
  if (method === 'GET' && model?.[1]) return { route: 'models.retrieve', id: decodeURIComponent(model[1]) };
  const m = /^\/v1\/responses\/([^/]+)$/.exec(path);
  if (method === 'GET' && m?.[1]) return { route: query['stream'] === 'true' ? 'responses.stream' : 'responses.retrieve', id: decodeURIComponent(m[1]) };
  return { route: 'unknown' };
}
