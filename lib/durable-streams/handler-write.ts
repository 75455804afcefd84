// PUT (create, or fork), POST (append / close) and DELETE: the headers' syntax checked here, every rule about the
// stream's state left to the store, its answer turned into the status and headers of sections 5.1-5.4.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  DEFAULT_CONTENT_TYPE, H, headerText, isClosedHeader, isJsonType, isParseError, parseExpiresAt, parseProducer,
  parseSafeInteger, parseTtl,
} from './headers.js';
import { flattenJson } from './json-body.js';
import { readBody } from './request-body.js';
import { absoluteUrl, GONE, infoHeaders, NOT_FOUND, send } from './responses.js';
import type { ServeContext } from './serve-context.js';
import type { AppendResult, Entry, StreamConfig } from './store.js';

type Body = { readonly entries: readonly Entry[] } | { readonly error: number; readonly reason?: string; readonly close?: boolean };

/** The body as entries: JSON flattened one level, anything else one entry of bytes (none when empty). */
async function bodyEntries(req: IncomingMessage, ctx: ServeContext, contentType: string | undefined, isCreate: boolean): Promise<Body> {
  const read = await readBody(req, ctx.maxAppendBytes);
  if (!read.ok) return read.reason === 'too_large' ? { error: 413, reason: 'request body too large', close: read.closeConnection } : { error: 0 };
  if (read.body.length === 0) return { entries: [] };
  if (contentType !== undefined && isJsonType(contentType)) {
    const flat = flattenJson(read.body.toString('utf8'), isCreate);
    return flat.ok ? { entries: flat.messages } : { error: 400, reason: flat.reason };
  }
  return { entries: [new Uint8Array(read.body.buffer, read.body.byteOffset, read.body.byteLength)] };
}

/** The body could not be read: the client went away (nothing to answer), or 413/400. */
function sendBodyError(res: ServerResponse, ctx: ServeContext, body: { readonly error: number; readonly reason?: string; readonly close?: boolean }): void {
  if (body.error === 0) return void res.destroy();
  send(res, ctx.policy, body.error, body.close === true ? { Connection: 'close' } : {}, body.reason);
}


/** The store's per-stream limit (the log's maxEvents / maxBytes): retrying the same request cannot succeed. */
const TOO_LARGE = 'the stream would grow past the size this server keeps per stream';
export async function servePut(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  const { store, policy } = ctx;
  if (store.create === undefined) return void send(res, policy, 405, { Allow: 'GET, HEAD, OPTIONS' });
  const h = req.headers;
  const ttl = parseTtl(h['stream-ttl']);
  const expiresAt = parseExpiresAt(h['stream-expires-at']);
  if (isParseError(ttl)) return void send(res, policy, 400, {}, ttl.error);
  if (isParseError(expiresAt)) return void send(res, policy, 400, {}, expiresAt.error);
  if (ttl !== undefined && expiresAt !== undefined) return void send(res, policy, 400, {}, 'Stream-TTL and Stream-Expires-At are exclusive');
  const forkedFrom = headerText(h['stream-forked-from']);
  const forkOffset = headerText(h['stream-fork-offset']);
  const subText = headerText(h['stream-fork-sub-offset']);
  if (forkedFrom === undefined && (forkOffset !== undefined || subText !== undefined)) {
    return void send(res, policy, 400, {}, 'fork headers need Stream-Forked-From');
  }
  const forkSubOffset = subText === undefined ? 0 : parseSafeInteger(subText.trim());
  if (forkSubOffset === undefined) return void send(res, policy, 400, {}, 'Stream-Fork-Sub-Offset must be a non-negative integer');
  if (forkSubOffset > 0 && forkOffset === undefined) return void send(res, policy, 400, {}, 'Stream-Fork-Sub-Offset needs Stream-Fork-Offset');
  let contentType = headerText(h['content-type']);
  if (contentType === undefined && forkedFrom !== undefined) {
    // A fork without a Content-Type inherits its source's; a missing or deleted source is the store's answer below.
    const source = await store.info(forkedFrom, false);
    if (!('status' in source)) contentType = source.contentType;
  }
  const body = await bodyEntries(req, ctx, contentType, true);
  if ('error' in body) return sendBodyError(res, ctx, body);
  const config: StreamConfig = {
    contentType: contentType ?? DEFAULT_CONTENT_TYPE,
    ...(ttl !== undefined && { ttlSeconds: ttl }),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(forkedFrom !== undefined && { forkedFrom }),
    ...(forkOffset !== undefined && { forkOffset }),
  };
  const result = await store.create(ctx.path, { config, forkSubOffset, closed: isClosedHeader(h['stream-closed']), entries: body.entries });
  switch (result.status) {
    case 'created':
      return void send(res, policy, 201, Object.assign(infoHeaders(result.info), { Location: absoluteUrl(req, ctx.path) }));
    case 'exists':
      return void send(res, policy, 200, infoHeaders(result.info));
    case 'conflict':
      return void send(res, policy, 409, {}, result.reason);
    case 'source_not_found':
      return void send(res, policy, 404, {}, 'fork source not found');
    case 'too_large':
      return void send(res, policy, 413, {}, TOO_LARGE);
    case 'bad_request':
      return void send(res, policy, 400, {}, result.reason);
  }
}

export async function servePost(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  const { store, policy } = ctx;
  if (store.append === undefined) return void send(res, policy, 405, { Allow: 'GET, HEAD, OPTIONS' });
  const h = req.headers;
  const close = isClosedHeader(h['stream-closed']);
  const producer = parseProducer(h['producer-id'], h['producer-epoch'], h['producer-seq']);
  if (isParseError(producer)) return void send(res, policy, 400, {}, producer.error);
  const contentType = headerText(h['content-type']);
  const body = await bodyEntries(req, ctx, contentType, false);
  if ('error' in body) return sendBodyError(res, ctx, body);
  const empty = body.entries.length === 0;
  if (empty && !close) return void send(res, policy, 400, {}, 'an append needs a body (or Stream-Closed: true)');
  if (!empty && (contentType === undefined || contentType.trim() === '')) return void send(res, policy, 400, {}, 'Content-Type is required');
  const streamSeq = headerText(h['stream-seq']);
  const result = await store.append(ctx.path, {
    ...(!empty && { contentType }),
    entries: body.entries,
    close,
    ...(streamSeq !== undefined && { streamSeq }),
    ...(producer !== undefined && { producer }),
  });
  sendAppendResult(res, ctx, result, empty);
}

/** `closeOnly`: nothing was appended, so a producer's accepted close is a 204 (200 means new data, section 5.2.1). */
function sendAppendResult(res: ServerResponse, ctx: ServeContext, result: AppendResult, closeOnly: boolean): void {
  const { policy } = ctx;
  const done = (status: number, tail: string, closed: boolean, producer?: { epoch: number; seq: number }): void => {
    const headers: OutgoingHttpHeaders = { [H.nextOffset]: tail };
    if (closed) headers[H.closed] = 'true';
    if (producer !== undefined) {
      headers[H.producerEpoch] = String(producer.epoch);
      headers[H.producerSeq] = String(producer.seq);
    }
    send(res, policy, status, headers);
  };
  switch (result.status) {
    case 'appended':
      return done(result.producer !== undefined && !closeOnly ? 200 : 204, result.tail, result.closed, result.producer);
    case 'duplicate':
      return done(204, result.tail, result.closed, result.producer);
    case 'closed':
      return send(res, policy, 409, { [H.closed]: 'true', [H.nextOffset]: result.tail }, 'stream is closed');
    case 'content_type_mismatch':
      return send(res, policy, 409, {}, 'content type does not match the stream');
    case 'stream_seq_conflict':
      return send(res, policy, 409, {}, 'Stream-Seq not above the last one');
    case 'stale_epoch':
      return send(res, policy, 403, { [H.producerEpoch]: String(result.epoch) }, 'stale producer epoch');
    case 'producer_seq_gap':
      return send(
        res, policy, 409,
        { [H.producerExpectedSeq]: String(result.expected), [H.producerReceivedSeq]: String(result.received) },
        'producer sequence gap',
      );
    case 'not_found':
      return send(res, policy, 404, {}, NOT_FOUND);
    case 'gone':
      return send(res, policy, 410, {}, GONE);
    case 'too_large':
      return send(res, policy, 413, {}, TOO_LARGE);
    case 'bad_request':
      return send(res, policy, 400, {}, result.reason);
  }
}

export async function serveDelete(res: ServerResponse, ctx: ServeContext): Promise<void> {
  const { store, policy } = ctx;
  if (store.delete === undefined) return void send(res, policy, 405, { Allow: 'GET, HEAD, OPTIONS' });
  const result = await store.delete(ctx.path);
  if (result.status === 'deleted') return void send(res, policy, 204);
  send(res, policy, result.status === 'gone' ? 410 : 404, {}, result.status === 'gone' ? GONE : NOT_FOUND);
}
