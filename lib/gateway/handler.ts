// createGateway: the node:http request handler, its routes, and close().
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLog } from '../log/types.js';
import { callerOf, type Caller } from './auth.js';
import { createInBackground } from './background-create.js';
import { parseJSONObject, readBody } from './body.js';
import { chatCompletion } from './chat.js';
import { sendError, type GatewayContext } from './context.js';
import { GatewayHttpError, isGatewayHttpError } from './errors.js';
import { forward } from './forward.js';
import { GatewayMetrics, type GatewayMetricsSnapshot } from './metrics.js';
import { resolveOptions, type GatewayOptions } from './options.js';
import { Producers } from './producers.js';
import { cancelResponse, createResponse, resumeResponse } from './responses.js';

/** A gateway: call it as a `node:http` request handler (or mount it in Express, Fastify, Nest). */
export interface Gateway {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The same handler, resolving when the request has been dispatched (not when a stream ends). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** What `GET /metrics` answers. */
  metrics(): GatewayMetricsSnapshot;
  /** The event log the gateway records to (measured). */
  readonly log: EventLog;
  /**
   * Ends every client stream, stops the upstream streams this instance records (a background response goes
   * on upstream, for another instance to take over) and closes the log when the gateway opened it.
   */
  close(): Promise<void>;
}

const RESPONSE = /^\/v1\/responses\/([^/]+)$/;
const CANCEL = /^\/v1\/responses\/([^/]+)\/cancel$/;
const RESPONSE_ANY = /^\/v1\/responses\/([^/]+)(?:\/.*)?$/;

/** A path segment decoded; a malformed escape (`%E0%A4%A`) names no response: 404. */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GatewayHttpError(404, 'No response found with this id.', { param: 'response_id' });
  }
}

const json = (res: ServerResponse, value: unknown): void => {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
};

/**
 * A gateway speaking the OpenAI protocol in front of an OpenAI-compatible upstream, built from the library's
 * parts: `POST /v1/responses` streams are recorded in an event log (`persistTo`) and sent as SSE with
 * `id: <sequence_number>`; `GET /v1/responses/{id}?stream=true&starting_after=N` (or `Last-Event-ID`) resumes
 * them from the log on any instance (`fromEventLog`, taking a dead instance's stream over when the response
 * runs in the background upstream); `POST /v1/responses/{id}/cancel` ends them everywhere; `POST
 * /v1/chat/completions` streams are served from the Responses API (`toChatChunks`). A background create without
 * streaming is forwarded and registered in the log (a later streamed `GET` takes it over from the upstream). Every
 * other request under `/v1/` is forwarded as it is; other paths are 404, but `GET /healthz` and `GET /metrics`.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { createGateway } from 'openai-rx/gateway';
 *
 * const gateway = createGateway({ log: process.env.REDIS_URL, background: true });
 * createServer(gateway).listen(8080);
 * // clients: new OpenAI({ baseURL: 'http://localhost:8080/v1' })
 * ```
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const resolved = resolveOptions(options);
  const producers = new Producers();
  const metrics = new GatewayMetrics(() => producers.size);
  const ctx: GatewayContext = { options: resolved, log: metrics.measure(resolved.log), producers, metrics, pumps: new Set() };
  let closed = false;

  const body = async (req: IncomingMessage): Promise<Uint8Array> => readBody(req, resolved.maxBodyBytes, resolved.bodyTimeout);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (closed) throw new GatewayHttpError(503, 'The gateway is shutting down.', { code: 'unavailable' });
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';
    if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) return json(res, { status: 'ok' });
    if (path === '/metrics' && method === 'GET') return json(res, metrics.snapshot());
    if (!path.startsWith('/v1/')) throw new GatewayHttpError(404, `No route for ${method} ${path.slice(0, 200)}: the gateway serves the OpenAI API under /v1/.`, { code: 'unknown_url' });
    const caller = await callerOf(req, resolved);
    const upstreamPath = `${path.slice(3)}${url.search}`;

    if (method === 'POST' && (path === '/v1/responses' || path === '/v1/chat/completions')) {
      const bytes = await body(req);
      const parsed = parseJSONObject(bytes);
      if (parsed['stream'] !== true) {
        if (path === '/v1/responses' && parsed['background'] === true) return createInBackground(ctx, req, res, caller, upstreamPath, bytes);
        return forward(resolved, req, res, caller, upstreamPath, bytes);
      }
      return path === '/v1/responses' ? createResponse(ctx, res, caller, parsed) : chatCompletion(ctx, res, caller, parsed);
    }
    const cancel = method === 'POST' ? CANCEL.exec(path) : null;
    if (cancel) {
      await body(req);
      return cancelResponse(ctx, req, res, caller, segment(cancel[1]!));
    }
    const one = method === 'GET' ? RESPONSE.exec(path) : null;
    if (one && url.searchParams.get('stream') === 'true') return resumeResponse(ctx, req, res, caller, segment(one[1]!), url.searchParams);
    await ownership(ctx, caller, path);
    const bytes = method === 'GET' || method === 'HEAD' ? undefined : await body(req);
    return forward(resolved, req, res, caller, upstreamPath, bytes);
  };

  /**
   * With an application's `authorize` every caller may share the gateway's upstream key, so the upstream
   * cannot tell them apart: a response is reachable only by the owner that recorded it.
   */
  const ownership = async (c: GatewayContext, caller: Caller, path: string): Promise<void> => {
    if (!resolved.authorize) return; // the caller's own key goes upstream: the upstream decides
    const m = RESPONSE_ANY.exec(path);
    if (!m) return;
    const id = segment(m[1]!);
    if ((await c.log.state({ responseId: id, owner: caller.owner })) === undefined) {
      throw new GatewayHttpError(404, `No response found with id '${id.slice(0, 64)}'.`, { param: 'response_id' });
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await route(req, res);
    } catch (e) {
      if (isGatewayHttpError(e)) return sendError(ctx, res, e);
      // Not ours to describe: nothing of it reaches the client.
      sendError(ctx, res, new GatewayHttpError(500, 'The gateway failed to handle the request.', { type: 'server_error' }));
    }
  };

  const gateway = ((req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res);
  }) as Gateway;
  return Object.assign(gateway, {
    handle,
    metrics: () => metrics.snapshot(),
    log: ctx.log,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const p of [...ctx.pumps]) p.stop();
      producers.stopAll();
      metrics.stop();
      if (resolved.ownsLog) await resolved.log.close();
    },
  });
}
