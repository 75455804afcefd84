import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Observable } from 'rxjs';

/** What a chat test server was asked: the request's JSON body and its path. */
export interface ChatRequest {
  readonly url: string | undefined;
  readonly params: { readonly model: string; readonly stream?: boolean; readonly stream_options?: { readonly include_usage?: boolean } };
}

/**
 * A loopback Chat Completions server for the SDK tests: `answer` gives an SSE body (a string, or SSE text as it is
 * produced) for a request, or `undefined` for a 404 with an OpenAI-style error. A streamed answer is
 * unsubscribed when the client goes away.
 */
export async function startChatServer(
  answer: (request: ChatRequest) => string | Observable<string> | undefined,
): Promise<{ readonly baseURL: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (s: string) => (body += s));
    req.on('end', () => {
      const sse = answer({ url: req.url, params: JSON.parse(body) as ChatRequest['params'] });
      if (sse === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'unknown', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (typeof sse === 'string') return void res.end(sse);
      const sub = sse.subscribe({ next: (text) => res.write(text), complete: () => res.end(), error: () => res.end() });
      res.on('close', () => sub.unsubscribe());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
