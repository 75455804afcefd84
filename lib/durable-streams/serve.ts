// One stream's request, already routed (and authorised) by whoever calls: the method decides the operation.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveCatchUp, serveHead, serveLongPoll } from './handler-read.js';
import { serveSse } from './handler-sse.js';
import { serveDelete, servePost, servePut } from './handler-write.js';
import { parseReadQuery } from './read-query.js';
import { DEFAULT_POLICY, send, sendPreflight, type ResponsePolicy } from './responses.js';
import { DEFAULT_SETTINGS, type ServeContext } from './serve-context.js';
import type { DurableStreamStore } from './store.js';

export interface ServeOptions {
  /** How long a long-poll waits before its 204 (default 30 s, as the reference server). */
  readonly longPollTimeoutMs?: number;
  /** SSE responses end after this long, the client reconnecting from its last offset (default 60 s). */
  readonly sseMaxDurationMs?: number;
  /** The byte budget of one catch-up read (default 1 MiB; a larger first entry is still sent whole). */
  readonly maxReadBytes?: number;
  /** The largest request body accepted, 413 above it (default 16 MiB). */
  readonly maxAppendBytes?: number;
  /** `Cache-Control` of reads returning data (default `private, max-age=60, stale-while-revalidate=300`). */
  readonly cacheControl?: string;
  /** `Access-Control-Allow-Origin` (default `*`); `false` sends no CORS headers. */
  readonly allowOrigin?: string | false;
  /** `Cross-Origin-Resource-Policy` (default `cross-origin`). */
  readonly crossOriginResourcePolicy?: ResponsePolicy['crossOriginResourcePolicy'];
}

export interface ServeStreamOptions extends ServeOptions {
  readonly store: DurableStreamStore;
  /** The stream's path as the store names it (forks name their source the same way). */
  readonly path: string;
}

export function resolveSettings(options: ServeOptions): Omit<ServeContext, 'store' | 'path'> {
  return {
    longPollTimeoutMs: options.longPollTimeoutMs ?? DEFAULT_SETTINGS.longPollTimeoutMs,
    sseMaxDurationMs: options.sseMaxDurationMs ?? DEFAULT_SETTINGS.sseMaxDurationMs,
    maxReadBytes: options.maxReadBytes ?? DEFAULT_SETTINGS.maxReadBytes,
    maxAppendBytes: options.maxAppendBytes ?? DEFAULT_SETTINGS.maxAppendBytes,
    policy: {
      allowOrigin: options.allowOrigin ?? DEFAULT_POLICY.allowOrigin,
      crossOriginResourcePolicy: options.crossOriginResourcePolicy ?? DEFAULT_POLICY.crossOriginResourcePolicy,
      cacheControl: options.cacheControl ?? DEFAULT_POLICY.cacheControl,
    },
  };
}

function allowedMethods(store: DurableStreamStore): string {
  const methods = ['GET', 'HEAD', 'OPTIONS'];
  if (store.create !== undefined) methods.push('PUT');
  if (store.append !== undefined) methods.push('POST');
  if (store.delete !== undefined) methods.push('DELETE');
  return methods.join(', ');
}

/**
 * Serves one Durable Streams request for the stream at `options.path` on `options.store`. Resolves once the
 * response is handled; never rejects (a store that fails is a 503 without details, or an ended SSE response).
 */
export function serveDurableStream(req: IncomingMessage, res: ServerResponse, options: ServeStreamOptions): Promise<void> {
  return serveWith(req, res, { ...resolveSettings(options), store: options.store, path: options.path });
}

export async function serveWith(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  try {
    await dispatch(req, res, ctx);
  } catch {
    // The store could not reach its storage: no details leave the server.
    if (!res.headersSent) send(res, ctx.policy, 503, { 'Retry-After': '1' }, 'service unavailable');
    else res.destroy();
  }
}

async function dispatch(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  switch (req.method) {
    case 'GET': {
      const query = parseReadQuery(new URL(req.url ?? '/', 'http://x').searchParams);
      if (!query.ok) return send(res, ctx.policy, 400, {}, query.reason);
      if (query.live === 'sse') return serveSse(req, res, ctx, query.offset, query.cursor);
      if (query.live === 'long-poll') return serveLongPoll(req, res, ctx, query.offset, query.cursor);
      return serveCatchUp(req, res, ctx, query.offset);
    }
    case 'HEAD':
      return serveHead(res, ctx);
    case 'PUT':
      return servePut(req, res, ctx);
    case 'POST':
      return servePost(req, res, ctx);
    case 'DELETE':
      return serveDelete(res, ctx);
    case 'OPTIONS':
      return sendPreflight(res, ctx.policy, allowedMethods(ctx.store));
    default:
      return send(res, ctx.policy, 405, { Allow: allowedMethods(ctx.store) });
  }
}
