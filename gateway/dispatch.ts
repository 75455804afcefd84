// What each route of the table does, once the request's target is normalised and matched and its caller known:
// ids the request names are checked against their owner first (with `authorize`), and only the checked request
// (the normalised path, the parsed body serialised again) goes upstream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from './auth.js';
import { createInBackground } from './background-create.js';
import { parseJSONObject } from './body.js';
import { chatCompletion } from './chat.js';
import type { GatewayContext } from './context.js';
import { forward } from './forward.js';
import { checkBody, checkOwner, checkQuery } from './ownership.js';
import { forwardRecorded } from './recorded-forward.js';
import { cancelResponse, createResponse, resumeResponse } from './responses.js';
import type { MatchedRoute } from './routes.js';
import { serveRecordedStream } from './stream-route.js';

const encoder = new TextEncoder();

/**
 * The body as the upstream gets it: the JSON the gateway checked, serialised again, so that an upstream
 * reading duplicate keys, escapes or a prototype key in its own way reads what was checked.
 */
const checked = (value: Record<string, unknown>): Uint8Array => encoder.encode(JSON.stringify(value));

/** The request's body, read within the configured limits. */
export type ReadBody = (req: IncomingMessage) => Promise<Uint8Array>;

/** Serves a matched `/v1/` route for `caller`. */
export async function dispatch(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, route: MatchedRoute, body: ReadBody): Promise<void> {
  const { options } = ctx;
  const path = route.upstreamPath;
  const method = req.method ?? 'GET';
  const id = route.params['response_id'];
  await checkQuery(ctx, caller, route.query);

  switch (route.name) {
    case 'responses.create': {
      const parsed = parseJSONObject(await body(req));
      await checkBody(ctx, caller, parsed);
      if (parsed['stream'] === true) return createResponse(ctx, res, caller, parsed);
      if (parsed['background'] === true) return createInBackground(ctx, req, res, caller, path, checked(parsed));
      return forwardRecorded(ctx, req, res, caller, { path, body: checked(parsed), kind: 'response' });
    }
    case 'chat.create': {
      const parsed = parseJSONObject(await body(req));
      await checkBody(ctx, caller, parsed);
      if (parsed['stream'] === true) return chatCompletion(ctx, res, caller, parsed);
      return forward(options, req, res, caller, path, checked(parsed));
    }
    case 'conversations.create': {
      const parsed = parseJSONObject(await body(req));
      await checkBody(ctx, caller, parsed);
      return forwardRecorded(ctx, req, res, caller, { path, body: checked(parsed), kind: 'conversation' });
    }
    // A resume and a cancel reach only the caller's own stream in the log, with or without `authorize`.
    case 'responses.retrieve':
      if (route.query.get('stream') === 'true') return resumeResponse(ctx, req, res, caller, id!, route.query);
      break;
    case 'streams.response':
      return serveRecordedStream(ctx, req, res, caller, id!);
    case 'responses.cancel':
      await body(req);
      return cancelResponse(ctx, req, res, caller, id!);
    case 'passThrough':
      return forward(options, req, res, caller, path, method === 'GET' || method === 'HEAD' ? undefined : await body(req));
    default:
      break;
  }
  for (const o of route.owned) await checkOwner(ctx, caller, o.kind, o.id, o.param);
  if (method !== 'POST') return forward(options, req, res, caller, path, undefined);
  // The other POST routes take a JSON body that may name ids too (`input_tokens`, `compact`, conversation updates and items).
  const parsed = parseJSONObject(await body(req));
  await checkBody(ctx, caller, parsed);
  return forward(options, req, res, caller, path, checked(parsed));
}
