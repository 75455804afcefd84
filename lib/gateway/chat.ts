// `POST /v1/chat/completions` with `stream: true`, served from the Responses API upstream: the request mapped
// (chatRequestToResponses), the answer turned back into chat chunks (toChatChunks, toChatSSE). Chat streams
// have no resume in the protocol, so they are not recorded: a client that leaves aborts its upstream stream.
import type { ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { streamResponse } from '../http/transports.js';
import { toChatChunks } from '../../operators/toChatChunks.js';
import { toChatSSE } from '../../operators/toChatSSE.js';
import { upstreamConfig, type Caller } from './auth.js';
import { chatRequestToResponses } from './chat-request.js';
import { countEvent } from './access-log.js';
import { admit, sendError, type GatewayContext } from './context.js';
import { GatewayHttpError, upstreamError } from './errors.js';
import { SSE_HEADERS } from './sse.js';
import { errorPayload } from '../../operators/internal/chat-sse-error.js';

/**
 * Most bytes of chat SSE held for a client whose socket pushes back (its stream cannot be re-read from the
 * log); past it the client is cut off rather than buffered without bound.
 */
export const MAX_CHAT_BUFFER = 4 * 1024 * 1024;

export function chatCompletion(ctx: GatewayContext, res: ServerResponse, caller: Caller, body: Record<string, unknown>): void {
  const mapped = chatRequestToResponses(body);
  if (!mapped.ok) throw mapped.error;
  admit(ctx);
  if (res.destroyed) return; // gone while its body was read: nothing to start
  const { options, metrics } = ctx;
  const queue: string[] = [];
  let queued = 0;
  let started = false;
  let ended = false;
  let sub: Subscription | undefined;
  metrics.clients++;
  const pump = {
    stop: () => {
      if (!started) res.destroy();
      else res.end();
      finish();
    },
  };
  ctx.pumps.add(pump);
  const finish = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(first);
    sub?.unsubscribe();
    metrics.clients--;
    ctx.pumps.delete(pump);
  };
  res.on('close', finish);
  res.on('drain', () => {
    while (queue.length > 0 && !ended) {
      const text = queue.shift()!;
      queued -= text.length;
      if (!res.write(text)) return;
    }
  });
  const first = setTimeout(() => {
    if (started || ended) return;
    finish();
    sendError(ctx, res, new GatewayHttpError(504, `The upstream sent no event within ${options.upstreamTimeout} ms.`, { code: 'gateway_timeout' }));
  }, options.upstreamTimeout);

  const write = (text: string): void => {
    if (queue.length > 0 || res.writableNeedDrain) {
      queue.push(text);
      queued += text.length;
      if (queued > MAX_CHAT_BUFFER) {
        finish();
        res.destroy();
      }
      return;
    }
    res.write(text);
  };

  sub = streamResponse(mapped.request, upstreamConfig(caller, options))
    .pipe(toChatChunks({ includeUsage: mapped.includeUsage }), toChatSSE())
    .subscribe({
      next: (text) => {
        if (ended) return;
        if (!started) {
          started = true;
          clearTimeout(first);
          res.writeHead(200, SSE_HEADERS);
        }
        metrics.event();
        countEvent(res);
        write(text);
      },
      error: (e: unknown) => {
        if (ended) return;
        finish();
        if (!started) return sendError(ctx, res, upstreamError(e));
        // After the start: the error as the API sends it mid-stream (and the SDKs raise), no [DONE].
        const p = errorPayload(e);
        for (const text of queue.splice(0)) res.write(text);
        res.end(`data: ${JSON.stringify({ error: { message: p.message, type: 'server_error', code: p.code, param: p.param } })}\n\n`);
      },
      complete: () => {
        if (ended) return;
        // Whatever is still queued goes first: end() after writes keeps their order.
        for (const text of queue.splice(0)) res.write(text);
        res.end();
        finish();
      },
    });
  if (ended) sub.unsubscribe();
}
