// SSE reads (section 5.8): catch-up in batches, then each append as it comes, every data event followed by its
// control event; ended after `sseMaxDurationMs` (the client reconnects from its last offset) or after the control
// that says the stream is closed. A client that goes away aborts the wait; a slow one is waited for (drain).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { responseCursor } from './cursor.js';
import { H, isJsonType, isSseTextType } from './headers.js';
import { baseHeaders } from './responses.js';
import type { ServeContext } from './serve-context.js';
import { base64DataEvent, controlEvent, jsonDataEvent, textDataEvent } from './sse-frames.js';
import type { Entry } from './store.js';
import { sendReadFailure } from './handler-read.js';

export async function serveSse(_req: IncomingMessage, res: ServerResponse, ctx: ServeContext, offset: string, clientCursor: string | undefined): Promise<void> {
  const aborter = new AbortController();
  const onClose = (): void => aborter.abort();
  res.once('close', onClose);
  const deadline = Date.now() + ctx.sseMaxDurationMs;
  let lastCursor = 0;
  const cursor = (): string => {
    lastCursor = Math.max(lastCursor, Number(responseCursor(clientCursor)));
    return String(lastCursor);
  };
  try {
    let batch = await ctx.store.read(ctx.path, offset, { maxBytes: ctx.maxReadBytes });
    if (sendReadFailure(res, ctx, batch)) return;
    const type = batch.info.contentType;
    const dataEvent: (entries: readonly Entry[]) => string = isJsonType(type) ? jsonDataEvent : isSseTextType(type) ? textDataEvent : base64DataEvent;
    const headers = baseHeaders(ctx.policy);
    headers['Content-Type'] = 'text/event-stream';
    headers['Cache-Control'] = 'no-cache';
    headers['Connection'] = 'keep-alive';
    if (!isSseTextType(type)) headers[H.sseEncoding] = 'base64';
    res.writeHead(200, headers);
    res.flushHeaders();
    for (;;) {
      let frame = batch.entries.length > 0 ? dataEvent(batch.entries) : '';
      frame += controlEvent({
        streamNextOffset: batch.next,
        ...(!batch.closed && { streamCursor: cursor() }),
        ...(batch.upToDate && { upToDate: true }),
        ...(batch.closed && { streamClosed: true }),
      });
      if (!res.write(frame) && !(await drained(res, aborter.signal, deadline - Date.now()))) {
        res.destroy(); // a client that reads nothing until the response's end: let the connection go
        break;
      }
      if (batch.closed || aborter.signal.aborted) break;
      if (batch.upToDate) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        const woke = await ctx.store.wait(ctx.path, batch.next, remaining, aborter.signal);
        if (!woke || aborter.signal.aborted) break;
      }
      const more = await ctx.store.read(ctx.path, batch.next, { maxBytes: ctx.maxReadBytes });
      if ('status' in more) break; // deleted while read: end the response, the client's next request says why
      batch = more;
    }
    res.end();
  } finally {
    res.off('close', onClose);
  }
}

/** `true` once the client took what was written; `false` on abort or when `timeoutMs` passes first. */
function drained(res: ServerResponse, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onAbort = (): void => done(false);
    const timer = setTimeout(onAbort, Math.max(0, timeoutMs));
    res.on('drain', onDrain);
    signal.addEventListener('abort', onAbort);
  });
}
