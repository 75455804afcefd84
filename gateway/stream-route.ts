// `GET|HEAD /v1/stream/responses/{id}`: a response the gateway recorded, read as a Durable Stream (catch-up,
// long-poll, SSE) by its owner, on any instance of a fleet (the stream is in the log). Read-only: every other method
// is a 405. Another owner's response, like an unknown one, is the unknown id's 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkResponseId } from '../lib/http/transports.js';
import type { LogScope } from '../lib/log/types.js';
import { serveDurableStream } from '../lib/durable-streams/serve.js';
import type { Caller } from './auth.js';
import { admit, type GatewayContext } from './context.js';
import { recordedResponseStore } from './durable-stream.js';
import { GatewayHttpError } from './errors.js';
import { notOwned } from './ownership.js';
import { pathOf } from './paths.js';
import type { Pump } from './sse.js';
import { orLogUnavailable } from './stream-errors.js';

const READ_METHODS = 'GET, HEAD';

/** The path a recorded response's stream is served at (its id encoded as one segment). */
export const recordedStreamPath = (id: string): string => pathOf(['v1', 'stream', 'responses', id]);

/**
 * Whether the stream is in the log, waiting up to `timeouts.notFoundMs` for one not there yet (as a resume does): a
 * client that read the id from a create's first event may ask before the recording of that event reached the log.
 * The wait ends early when the client leaves.
 */
async function inLog(ctx: GatewayContext, scope: LogScope, res: ServerResponse): Promise<boolean> {
  if ((await ctx.log.state(scope)) !== undefined) return true;
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  res.once('close', onClose);
  try {
    // A rejection (the abort, or the log failing) leaves the answer to the state read below.
    await ctx.log.wait(scope, undefined, ctx.options.notFoundTimeoutMs, gone.signal).catch(() => false);
  } finally {
    res.off('close', onClose);
  }
  return (await ctx.log.state(scope)) !== undefined;
}

/** Serves the caller's recorded response `id` as a read-only JSON-mode Durable Stream. */
export async function serveRecordedStream(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, id: string): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    // Whatever the id: a 405 says nothing of whether the stream exists.
    res.setHeader('allow', READ_METHODS);
    throw new GatewayHttpError(405, `${method.slice(0, 16)} is not allowed here: a recorded response's stream is read-only (GET, HEAD).`, { code: 'method_not_allowed' });
  }
  if (checkResponseId(id)) throw notOwned('response', id, 'response_id');
  const scope: LogScope = { responseId: id, owner: caller.owner };
  // The gateway's own 404 (as for every route naming an id); the store answers the same for a stream gone since.
  if (!(await orLogUnavailable(() => inLog(ctx, scope, res)))) throw notOwned('response', id, 'response_id');
  admit(ctx);
  // Counted as a client stream (the concurrency limit, the metrics), and ended by the gateway's close().
  const pump: Pump = { stop: () => res.destroy() };
  ctx.pumps.add(pump);
  ctx.metrics.clients++;
  res.once('close', () => {
    ctx.pumps.delete(pump);
    ctx.metrics.clients--;
  });
  await serveDurableStream(req, res, {
    store: recordedResponseStore(ctx.log, scope),
    path: recordedStreamPath(id),
    // As every route of the gateway: no CORS of its own (mount it behind yours), and an owner's data kept by no cache.
    allowOrigin: false,
    cacheControl: 'no-store',
  });
}
