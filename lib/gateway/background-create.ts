// A background response created without streaming (`POST /v1/responses` with `background: true` and no
// `stream`), the API's "create now, stream it later" flow: forwarded as it is, and registered in the log under
// the caller's owner as a stream with no events and no producer. A later `GET /v1/responses/{id}?stream=true`
// on any instance then finds it, takes it over (as a dead producer's background stream) and records it from the
// upstream as it streams it; with `authorize`, only its owner reaches it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogScope } from '../log/types.js';
import type { Caller } from './auth.js';
import type { GatewayContext } from './context.js';
import { GatewayHttpError } from './errors.js';
import { fetchUpstream, relay, requestHeaders } from './forward.js';

/** The `id` of a created response's JSON, if it is one. */
function createdIdOf(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { id?: unknown; object?: unknown };
    return typeof v.id === 'string' && v.id !== '' && (v.object === undefined || v.object === 'response') ? v.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Registers the response: the stream exists (for `state`, the owner check, a resume's 404 test) with no lease,
 * which a reader takes over at once. A log that fails leaves it unregistered (counted in `/metrics`): the
 * create itself has succeeded upstream and is answered all the same.
 */
async function register(ctx: GatewayContext, scope: LogScope): Promise<void> {
  try {
    const lease = await ctx.log.acquire(scope, ctx.options.leaseMs);
    await ctx.log.release(scope, lease.token);
  } catch {
    // lease_held (already known) or the log unavailable: nothing to add.
  }
}

/** Forwards a non-streaming background create, registering the response before the client gets its answer. */
export async function createInBackground(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, path: string, body: Uint8Array): Promise<void> {
  if (res.destroyed) return;
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const up = await fetchUpstream(ctx.options, { method: 'POST', path, headers: requestHeaders(req, caller), body, signal: controller.signal });
  if (!up.ok) return relay(up, res, controller.signal);
  let text: string;
  try {
    text = await up.text();
  } catch {
    if (res.destroyed) return;
    throw new GatewayHttpError(502, 'The upstream answer broke off.', { code: 'bad_gateway' });
  }
  const id = createdIdOf(text);
  // Registered before the answer goes out: a client that streams it right away finds it.
  if (id !== undefined) await register(ctx, { responseId: id, owner: caller.owner });
  await relay(new Response(text, { status: up.status, headers: up.headers }), res, controller.signal);
}
