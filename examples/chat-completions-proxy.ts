// Recipe: a Node HTTP service that exposes a Chat Completions endpoint backed by the Responses API, so
// existing chat clients (the official SDKs, LangChain, curl) keep working: toChatChunks() + toChatSSE().
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { fromChatCompletionsSSE, HTTPError, streamResponse, toChatChunks, toChatSSE, type ClientConfig } from '../index.js';

interface ChatMessage {
  readonly role: string;
  readonly content: unknown;
}

/** Chat messages as Responses input: system prompts become `developer` messages. */
export function toResponsesInput(messages: readonly ChatMessage[]): unknown[] {
  return messages.map((m) => ({ role: m.role === 'system' ? 'developer' : m.role, content: m.content }));
}

async function body(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const c of req) text += String(c);
  return JSON.parse(text) as unknown;
}

/** The service: `POST /v1/chat/completions` (stream: true) forwarded to `POST /v1/responses` upstream. */
export function createChatProxy(upstream: ClientConfig): Server {
  return createServer((req, res) => {
    const fail = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null, param: null } }));
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(404, 'not found');
    body(req).then(
      (b) => {
        const { model, messages, stream, stream_options } = b as { model?: string; messages?: ChatMessage[]; stream?: boolean; stream_options?: { include_usage?: boolean } };
        if (!Array.isArray(messages)) return fail(400, 'messages is required');
        if (stream !== true) return fail(400, 'this proxy streams only: set stream: true');
        let started = false;
        const subscription = streamResponse({ model, input: toResponsesInput(messages), store: false }, upstream)
          .pipe(toChatChunks({ includeUsage: stream_options?.include_usage === true }), toChatSSE({ onError: 'event' }))
          .subscribe({
            next(text) {
              if (!started) {
                started = true;
                res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
              }
              res.write(text);
            },
            // Only an error before the first chunk gets here (after it, toChatSSE writes it as an event).
            error: (e: unknown) => (started ? res.end() : fail(e instanceof HTTPError ? e.status : 502, e instanceof Error ? e.message : 'upstream error')),
            complete: () => res.end(),
          });
        // The client went away: unsubscribing aborts the upstream request.
        res.on('close', () => subscription.unsubscribe());
      },
      () => fail(400, 'the body is not JSON'),
    );
  });
}

/** Starts the proxy on a free loopback port, asks it one question as a chat client would, and stops it. */
export async function main(upstream: ClientConfig & { model?: string } = {}) {
  const server = createChatProxy(upstream);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: upstream.model ?? 'gpt-5.4-nano', stream: true, messages: [{ role: 'user', content: 'Why reactive streams?' }] }),
    });
    const chunks = await lastValueFrom(fromChatCompletionsSSE(res).pipe(toArray()));
    return { url, chunks, text: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('') };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
