// A background response created without streaming (`POST /v1/responses` with `background: true` and no
// `stream`), the API's "create now, stream it later" flow: forwarded as it is, and registered in the log under
// the caller's owner as a stream with no events and no producer. A later `GET /v1/responses/{id}?stream=true`
// on any instance then finds it, takes it over (as a dead producer's background stream) and records it from the
// upstream as it streams it; with `authorize`, only its owner reaches it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogScope } from '../lib/log/types.js';
import type { Caller } from './auth.js';
import type { GatewayContext } from './context.js';
import { recordOwner } from './ownership.js';
import { forwardRecorded } from './recorded-forward.js';

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

/**
 * Forwards a non-streaming background create, registering the response (and, with `authorize`, recording its
 * conversation's owner) before the client gets its answer.
 */
export async function createInBackground(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, path: string, body: Uint8Array): Promise<void> {
  return forwardRecorded(ctx, req, res, caller, {
    path,
    body,
    kind: 'response',
    onCreated: async (kind, id) => {
      if (kind === 'response') return register(ctx, { responseId: id, owner: caller.owner });
      if (ctx.options.authorize) await recordOwner(ctx, caller.owner, kind, id);
    },
  });
}
