// `POST /v1/chat/completions` with `stream: true`, served from the Responses API upstream: the request mapped
// (chatRequestToResponses), the answer turned back into chat chunks (toChatChunks, toChatSSE). Chat streams
// have no resume in the protocol, so they are not recorded: a client that leaves aborts its upstream stream,
// and a client that reads slower than the upstream sends has its chunks kept in memory up to
// `limits.maxPendingBytes`, past which its stream ends with an error chunk (`client_too_slow`).
import type { ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { streamResponse } from '../lib/http/transports.js';
import { toChatChunks } from '../operators/toChatChunks.js';
import { toChatSSE } from '../operators/toChatSSE.js';
import { upstreamConfig, type Caller } from './auth.js';
import { chatRequestToResponses } from './chat-request.js';
import { countEvent } from './access-log.js';
import { admit, sendError, type GatewayContext } from './context.js';
import { GatewayHttpError, upstreamError } from './errors.js';
import { SSE_HEADERS } from './sse-frame.js';
import { GatewayStreamError } from './stream-errors.js';
import { chatErrorFrame } from '../lib/sse/error-frame.js';

export function chatCompletion(ctx: GatewayContext, res: ServerResponse, caller: Caller, body: Record<string, unknown>): void {
  const mapped = chatRequestToResponses(body);
  if (!mapped.ok) throw mapped.error;
  admit(ctx);
  if (res.destroyed) return; // gone while its body was read: nothing to start
  const { options, metrics } = ctx;
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
  const first = setTimeout(() => {
    if (started || ended) return;
    finish();
    sendError(ctx, res, new GatewayHttpError(504, `The upstream sent no event within ${options.upstreamTimeoutMs} ms.`, { code: 'gateway_timeout' }));
  }, options.upstreamTimeoutMs);

  // The socket's buffer is the memory chunks wait in (the stream cannot be read again): bounded, then a typed end.
  const write = (text: string): void => {
    res.write(Buffer.from(text)); // as bytes: the socket counts a string's characters
    if (res.writableLength <= options.maxPendingBytes) return;
    finish();
    res.end(chatErrorFrame(new GatewayStreamError('client_too_slow')));
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
        res.end(chatErrorFrame(e));
      },
      complete: () => {
        if (ended) return;
        res.end();
        finish();
      },
    });
  if (ended) sub.unsubscribe();
}
