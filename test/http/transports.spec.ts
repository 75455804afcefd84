import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { retrieveResponseStream, streamChatCompletion, streamResponse } from '../../index';
import { fixture, payloads } from '../helpers/fixtures';

interface Seen { method: string; url: string; auth: string | undefined; body: string }

/** Serves `body` in chunks of `chunk` bytes, recording each request. */
async function serve(body: string, chunk: number): Promise<{ server: Server; baseURL: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const bytes = Buffer.from(body);
  const server = createServer((req: IncomingMessage, res) => {
    let reqBody = '';
    req.on('data', (d: Buffer) => (reqBody += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body: reqBody });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const step = (): void => {
        if (i >= bytes.length) return void res.end();
        res.write(bytes.subarray(i, (i += chunk)), () => setImmediate(step));
      };
      step();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

const close = (s: Server) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });

describe('HTTP transports over a loopback server', () => {
  const sse = fixture('plain-text');

  test.each([1, 7, 64, 4096])('streamResponse decodes the transcript served in %i-byte chunks', async (chunk) => {
    const { server, baseURL, seen } = await serve(sse, chunk);
    try {
      const events = await lastValueFrom(streamResponse({ model: 'm', input: 'hi' }, { baseURL, apiKey: 'sk-test' }).pipe(toArray()));
      expect(events).toEqual(payloads(sse));
      expect(seen).toHaveLength(1);
      expect(seen[0]?.method).toBe('POST');
      expect(seen[0]?.url).toBe('/v1/responses');
      expect(seen[0]?.auth).toBe('Bearer sk-test');
      expect(JSON.parse(seen[0]?.body ?? '{}')).toEqual({ model: 'm', input: 'hi', stream: true });
    } finally {
      await close(server);
    }
  });

  test('is cold: nothing is sent before subscribe, each subscription sends its own request', async () => {
    const { server, baseURL, seen } = await serve(sse, 512);
    try {
      const stream = streamResponse({ model: 'm' }, { baseURL, apiKey: 'k' });
      await new Promise((r) => setTimeout(r, 20));
      expect(seen).toHaveLength(0);
      await lastValueFrom(stream);
      await lastValueFrom(stream);
      expect(seen).toHaveLength(2);
    } finally {
      await close(server);
    }
  });

  test('retrieveResponseStream asks for the events after the cursor and drops any at or below it', async () => {
    const { server, baseURL, seen } = await serve(sse, 100);
    try {
      const events = await lastValueFrom(retrieveResponseStream('resp_plain01', { startingAfter: 4 }, { baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(seen[0]?.method).toBe('GET');
      expect(seen[0]?.url).toBe('/v1/responses/resp_plain01?stream=true&starting_after=4');
      // The server here replays everything; the decoder keeps only what comes after the cursor.
      expect(events.map((e) => e.sequence_number)).toEqual([5, 6, 7, 8, 9]);
    } finally {
      await close(server);
    }
  });

  test('streamChatCompletion decodes chat chunks up to [DONE]', async () => {
    const chunk = (content: string) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    const body = `data: ${JSON.stringify(chunk('Hel'))}\n\ndata: ${JSON.stringify(chunk('lo'))}\n\ndata: [DONE]\n\n`;
    const { server, baseURL, seen } = await serve(body, 5);
    try {
      const chunks = await lastValueFrom(streamChatCompletion({ model: 'm', messages: [] }, { baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(chunks.map((c) => c.choices[0]?.delta?.content).join('')).toBe('Hello');
      expect(seen[0]?.url).toBe('/v1/chat/completions');
    } finally {
      await close(server);
    }
  });
});
