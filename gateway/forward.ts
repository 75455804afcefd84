// Requests the gateway does not stream itself go to the upstream as they are: same method, path under the
// base URL, query and body; the answer comes back with its status, allow-listed headers and body, masked
// (answer-masking.ts), the body piped with the socket's backpressure. The caller's credentials replace whatever
// the client sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerSecrets } from './answer-masking.js';
import type { Caller } from './auth.js';
import { GatewayHttpError } from './errors.js';
import type { ResolvedGatewayOptions } from './options.js';

/** Client headers never passed on: hop-by-hop ones, the host, credentials (replaced), the body's framing and encoding. */
const DROPPED_REQUEST = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection',
  'authorization', 'api-key', 'x-api-key', 'cookie', 'content-length', 'accept-encoding', 'expect', 'last-event-id',
  // Headers some servers and proxies read as another method or path than the request's: the route the gateway
  // checked must be the one the upstream serves.
  'x-http-method-override', 'x-http-method', 'x-method-override', 'x-original-method', 'x-original-url', 'x-rewrite-url',
  'x-original-uri', 'x-forwarded-uri', 'x-forwarded-path', 'x-forwarded-prefix', 'x-envoy-original-path',
]);
/** Upstream headers never passed back: hop-by-hop ones, and the body's framing and encoding (fetch decoded it). */
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'set-cookie', 'upgrade', 'trailer']);

export function requestHeaders(req: IncomingMessage, caller: Caller): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || DROPPED_REQUEST.has(k) || k.startsWith('proxy-')) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return Object.assign(out, caller.headers);
}

/**
 * `fetch` of `{baseURL}{path}` with the upstream timeout: a `GatewayHttpError` 504 when no answer (headers)
 * comes in time, 502 when the upstream cannot be reached. `signal` aborts it (the client left). The answer is
 * masked: the gateway's key and the request's credentials, and anything shaped like a key, in its headers (only
 * allow-listed ones are kept) and its body, so that no route can relay an echo of them.
 */
export async function fetchUpstream(
  options: ResolvedGatewayOptions,
  init: { method: string; path: string; headers: Record<string, string>; body?: Uint8Array; signal?: AbortSignal },
): Promise<Response> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  init.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.upstreamTimeoutMs);
  try {
    const body = init.body === undefined || init.body.length === 0 ? undefined : init.body;
    return await options.upstream(`${options.baseURL}${init.path}`, { method: init.method, headers: init.headers, body, signal: controller.signal }, answerSecrets(options.upstreamKey, init.headers));
  } catch (e) {
    if (timedOut) throw new GatewayHttpError(504, `The upstream did not answer within ${options.upstreamTimeoutMs} ms.`, { code: 'gateway_timeout' });
    const code = (e as { cause?: { code?: unknown } }).cause?.code;
    throw new GatewayHttpError(502, `The upstream could not be reached${typeof code === 'string' ? ` (${code})` : ''}.`, { code: 'bad_gateway' });
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', onAbort);
  }
}

/** Sends the upstream's answer to the client: status, headers, then the body with backpressure. */
export async function relay(up: Response, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  up.headers.forEach((v, k) => {
    if (!DROPPED_RESPONSE.has(k)) headers[k] = v;
  });
  res.writeHead(up.status, headers);
  if (!up.body) return void res.end();
  const reader = up.body.getReader();
  let finished = false;
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = (): void => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      }
    }
    res.end();
  } catch {
    // The upstream body broke (or the client left): the client sees the connection end early.
    res.destroy();
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The client left: the upstream body is not read to its end, its connection is let go.
    if (!finished) onAbort();
  }
}

/** Forwards the request to `{baseURL}{path}{search}` as it is and relays the answer. */
export async function forward(
  options: ResolvedGatewayOptions,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Caller,
  path: string,
  body: Uint8Array | undefined,
): Promise<void> {
  if (res.destroyed) return; // gone while its body was read: nothing to ask upstream
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort();
  };
  res.on('close', onClose);
  const up = await fetchUpstream(options, { method: req.method ?? 'GET', path, headers: requestHeaders(req, caller), body, signal: controller.signal });
  await relay(up, res, controller.signal);
}
