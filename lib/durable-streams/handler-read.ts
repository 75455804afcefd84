// HEAD, catch-up GET and long-poll GET (sections 5.5-5.7, 8, 9.1.5, 10.1).

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { responseCursor } from './cursor.js';
import { H, headerText, isJsonType } from './headers.js';
import { TAIL_OFFSET } from './offsets.js';
import { baseHeaders, GONE, infoHeaders, NOT_FOUND, send } from './responses.js';
import type { ServeContext } from './serve-context.js';
import { entryBytes, entryText } from './sse-frames.js';
import type { BadRequest, Gone, NotFound, ReadBatch } from './store.js';

export async function serveHead(res: ServerResponse, ctx: ServeContext): Promise<void> {
  const info = await ctx.store.info(ctx.path, false);
  if ('status' in info) return void send(res, ctx.policy, info.status === 'gone' ? 410 : 404);
  send(res, ctx.policy, 200, infoHeaders(info));
}

/** A store's refusal of a read, answered; `true` when there was one. */
export function sendReadFailure(res: ServerResponse, ctx: ServeContext, result: ReadBatch | NotFound | Gone | BadRequest): result is NotFound | Gone | BadRequest {
  if (!('status' in result)) return false;
  if (result.status === 'bad_request') send(res, ctx.policy, 400, {}, result.reason);
  else if (result.status === 'gone') send(res, ctx.policy, 410, {}, GONE);
  else send(res, ctx.policy, 404, {}, NOT_FOUND);
  return true;
}

/** The body of a batch: JSON messages as one array, anything else its bytes end to end. */
function batchBody(batch: ReadBatch): Buffer {
  if (!isJsonType(batch.info.contentType)) return entryBytes(batch.entries);
  let text = '[';
  for (let i = 0; i < batch.entries.length; i++) text += (i > 0 ? ',' : '') + entryText(batch.entries[i] as string | Uint8Array);
  return Buffer.from(`${text}]`, 'utf8');
}

function etagOf(batch: ReadBatch, start: string): string {
  return `"${batch.info.id}:${start}:${batch.next}${batch.closed ? ':c' : ''}"`;
}

/** A 200 with a batch. `offset=now` reads are not cacheable and carry no ETag (section 10.1). */
function sendBatch(req: IncomingMessage, res: ServerResponse, ctx: ServeContext, batch: ReadBatch, start: string, cursor?: string): void {
  const headers = baseHeaders(ctx.policy);
  headers['Content-Type'] = batch.info.contentType;
  headers[H.nextOffset] = batch.next;
  if (batch.upToDate) headers[H.upToDate] = 'true';
  if (batch.closed) headers[H.closed] = 'true';
  if (cursor !== undefined) headers[H.cursor] = cursor;
  const empty = batch.entries.length === 0;
  if (start === TAIL_OFFSET) {
    headers['Cache-Control'] = 'no-store';
  } else {
    const etag = etagOf(batch, start);
    headers['ETag'] = etag;
    headers['Cache-Control'] = empty && !batch.closed ? 'no-store' : ctx.policy.cacheControl;
    if (headerText(req.headers['if-none-match'])?.split(',').some((tag) => tag.trim() === etag) === true) {
      res.writeHead(304, headers).end();
      return;
    }
  }
  const body = batchBody(batch);
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
}

export async function serveCatchUp(req: IncomingMessage, res: ServerResponse, ctx: ServeContext, offset: string): Promise<void> {
  const batch = await ctx.store.read(ctx.path, offset, { maxBytes: ctx.maxReadBytes });
  if (sendReadFailure(res, ctx, batch)) return;
  sendBatch(req, res, ctx, batch, offset);
}

/** 204: nothing arrived (or the stream is closed at the client's offset). */
function sendNoContent(res: ServerResponse, ctx: ServeContext, next: string, closed: boolean, cursor: string): void {
  const headers: OutgoingHttpHeaders = { [H.nextOffset]: next, [H.upToDate]: 'true' };
  if (closed) headers[H.closed] = 'true';
  else headers[H.cursor] = cursor;
  send(res, ctx.policy, 204, headers);
}

/**
 * Long-poll: data after the offset at once; otherwise wait (at most `longPollTimeoutMs`) for an append or the
 * close, then answer with it, or 204. A client that goes away aborts the wait.
 */
export async function serveLongPoll(req: IncomingMessage, res: ServerResponse, ctx: ServeContext, offset: string, clientCursor: string | undefined): Promise<void> {
  const cursor = responseCursor(clientCursor);
  const deadline = Date.now() + ctx.longPollTimeoutMs;
  const aborter = new AbortController();
  const onClose = (): void => aborter.abort();
  res.once('close', onClose);
  try {
    let from = offset;
    for (;;) {
      const batch = await ctx.store.read(ctx.path, from, { maxBytes: ctx.maxReadBytes });
      if (sendReadFailure(res, ctx, batch)) return;
      // `offset=now` waits for what comes after the tail, even at once (section 8); any other offset answers now.
      if (batch.entries.length > 0 && from !== TAIL_OFFSET) return sendBatch(req, res, ctx, batch, from, cursor);
      if (batch.closed) return sendNoContent(res, ctx, batch.next, true, cursor);
      from = batch.next;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || aborter.signal.aborted) return sendNoContent(res, ctx, batch.next, false, cursor);
      const woke = await ctx.store.wait(ctx.path, from, remaining, aborter.signal);
      if (aborter.signal.aborted) return;
      if (!woke) return sendNoContent(res, ctx, from, false, cursor);
    }
  } finally {
    res.off('close', onClose);
  }
}
