// createGateway: the node:http request handler, its routes, and close().
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLog } from '../lib/log/types.js';
import { noteOwner, noteResponseId, noteRoute, startAccessLog } from './access-log.js';
import { callerOf } from './auth.js';
import { readBody } from './body.js';
import { sendError, type GatewayContext } from './context.js';
import { dispatch } from './dispatch.js';
import { GatewayHttpError, isGatewayHttpError } from './errors.js';
import { GatewayMetrics, type GatewayMetricsSnapshot } from './metrics.js';
import { resolveOptions, type GatewayOptions } from './options.js';
import { normaliseTarget } from './paths.js';
import { Producers } from './producers.js';
import { matchRoute } from './routes.js';

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
 * streaming is forwarded and registered in the log (a later streamed `GET` takes it over from the upstream). The
 * other routes it implements (retrieve, delete, input items, models, conversations) are forwarded; any other path
 * is a 404 unless the operator passes it through (`passThrough`). Paths are normalised before they are routed,
 * and with `authorize` every response or conversation id a request names must be the caller's (gateway/routes.ts,
 * ownership.ts).
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

  const body = async (req: IncomingMessage): Promise<Uint8Array> => readBody(req, resolved.maxBodyBytes, resolved.bodyTimeoutMs);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (closed) throw new GatewayHttpError(503, 'The gateway is shutting down.', { code: 'unavailable' });
    const method = req.method ?? 'GET';
    // The path checked is the path forwarded: normalised once, matched, and rebuilt from its segments.
    const matched = matchRoute(method, normaliseTarget(req.url ?? '/'), resolved.passThrough);
    noteRoute(res, matched.pattern);
    if (matched.name === 'healthz') return json(res, { status: 'ok' });
    if (matched.name === 'metrics') return json(res, metrics.snapshot());
    const caller = await callerOf(req, resolved);
    noteOwner(res, caller.owner);
    noteResponseId(res, matched.params['response_id']);
    return dispatch(ctx, req, res, caller, matched, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    startAccessLog(resolved.accessLog, req, res);
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
      resolved.closeUpstream();
      if (resolved.ownsLog) await resolved.log.close();
    },
  });
}
