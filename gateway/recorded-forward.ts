// A create forwarded whole (a response without streaming, a background response, a conversation): its answer
// is read, what it made is recorded for the caller's owner, and only then does the client get it, so that the
// client's next request naming it (on any instance) finds it recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { noteResponseId } from './access-log.js';
import type { Caller } from './auth.js';
import type { GatewayContext } from './context.js';
import { GatewayHttpError } from './errors.js';
import { fetchUpstream, relay, requestHeaders } from './forward.js';
import { createdIds, recordOwner } from './ownership.js';
import type { OwnedKind } from './routes.js';

/** What records a created thing: the default records its owner (with `authorize`; else nobody checks). */
export type OnCreated = (kind: OwnedKind, id: string) => Promise<void>;

/** The answer's JSON, or `undefined` when it is none. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Forwards `body` to `path` and relays the answer; a 2xx answer creating a `kind` (and, for a response, its
 * conversation) is recorded first, by `onCreated` (default: the owner, with `authorize`).
 */
export async function forwardRecorded(
  ctx: GatewayContext,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Caller,
  init: { readonly path: string; readonly body: Uint8Array; readonly kind: OwnedKind; readonly onCreated?: OnCreated },
): Promise<void> {
  if (res.destroyed) return; // gone while its body was read: nothing to ask upstream
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const up = await fetchUpstream(ctx.options, { method: 'POST', path: init.path, headers: requestHeaders(req, caller), body: init.body, signal: controller.signal });
  if (!up.ok) return relay(up, res, controller.signal);
  let text: string;
  try {
    text = await up.text();
  } catch {
    if (res.destroyed) return;
    throw new GatewayHttpError(502, 'The upstream answer broke off.', { code: 'bad_gateway' });
  }
  const record: OnCreated = init.onCreated ?? ((kind, id) => (ctx.options.authorize ? recordOwner(ctx, caller.owner, kind, id) : Promise.resolve()));
  for (const { kind, id } of createdIds(parsed(text), init.kind)) {
    if (kind === 'response') noteResponseId(res, id);
    await record(kind, id);
  }
  await relay(new Response(text, { status: up.status, headers: up.headers }), res, controller.signal);
}
