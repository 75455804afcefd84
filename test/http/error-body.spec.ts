// Bodies that are not the event stream: an error body is read up to 64 KiB and the connection closed, however
// much the server sends; a 2xx answer that is not `text/event-stream` (an HTML login page, a gateway's JSON
// error) is a NotAnEventStreamError with the server's message, not a retryable interruption.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { HTTPError, NotAnEventStreamError } from '../../lib/errors';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { resumeFrom } from '../../operators/resumeFrom';
import { MAX_ERROR_BODY } from '../../lib/http/request';
import { startTestServer } from '../../testing/http-server';
import { fixture, payloads } from '../helpers/fixtures';
import { errorOf } from '../reliability/leaks';

/** Written before the server gives up on a client that keeps reading (so the old behaviour fails, not hangs). */
const GIVE_UP = 16 * 1024 * 1024;
const CHUNK = 16 * 1024;

interface Endless {
  baseURL: string;
  server: Server;
  /** Resolves with the bytes written once the server saw the connection close. */
  closed: Promise<number>;
}

/** A server that answers `status` and writes `head` then chunks of `unit` until the client goes away (or GIVE_UP). */
async function endless(status: number, headers: Record<string, string>, head: string, unit: string): Promise<Endless> {
  let onClosed: (n: number) => void = () => undefined;
  const closed = new Promise<number>((r) => (onClosed = r));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.writeHead(status, headers);
    let written = 0;
    let gone = false;
    res.on('close', () => {
      gone = true;
      onClosed(written);
    });
    const piece = Buffer.from(unit.repeat(Math.ceil(CHUNK / unit.length)).slice(0, CHUNK));
    const pump = (): void => {
      while (!gone && written < GIVE_UP) {
        written += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (!gone) res.end();
    };
    res.write(head);
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, closed, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const close = (s: Server) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });

/** A fetch that counts the body bytes its caller pulls, one chunk per read (no read-ahead). */
function countingFetch(count: { bytes: number; largest: number }): typeof fetch {
  return async (input, init) => {
    const res = await globalThis.fetch(input as string, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(c) {
          const r = await reader.read();
          if (r.done) return c.close();
          count.bytes += r.value.byteLength;
          count.largest = Math.max(count.largest, r.value.byteLength);
          c.enqueue(r.value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

describe('an endless body is read up to 64 KiB, then the connection is closed', () => {
  test.each([
    ['a 500 error body', 500, { 'content-type': 'text/plain' }, 'upstream exploded: ', 'x', HTTPError],
    ['a JSON error body that never ends', 503, { 'content-type': 'application/json' }, '{"error":{"message":"', 'overloaded ', HTTPError],
    ['a 200 HTML page', 200, { 'content-type': 'text/html; charset=utf-8' }, '<html><head><title>Sign in</title></head><body>', '<p>hi</p>\n', NotAnEventStreamError],
  ] as const)('%s', async (_what, status, headers, head, unit, type) => {
    const s = await endless(status, headers, head, unit);
    const count = { bytes: 0, largest: 0 };
    try {
      const e = await errorOf(streamResponse({ model: 'm' }, { baseURL: s.baseURL, apiKey: 'sk-test', fetch: countingFetch(count) }));
      expect(e).toBeInstanceOf(type);
      expect(e).toMatchObject({ status });
      const written = await s.closed;
      expect(count.bytes).toBeGreaterThan(0);
      expect(count.bytes).toBeLessThanOrEqual(MAX_ERROR_BODY + count.largest);
      // The server stopped because the client closed the connection, long before it would give up.
      expect(written).toBeLessThan(GIVE_UP);
      expect((e as Error).message.length).toBeLessThan(2500);
    } finally {
      await close(s.server);
    }
  });
});

/** A server answering 200 with these headers and this body. */
async function answering(headers: Record<string, string>, body: string): Promise<{ server: Server; baseURL: string }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, headers);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

describe('a 2xx answer that is not an event stream', () => {
  test.each<[string, Record<string, string>, string, string, string]>([
    ['an HTML page (its title)', { 'content-type': 'text/html' }, '<!doctype html><html><head><title>Corporate proxy: sign in</title></head><body><form>…</form></body></html>', 'text/html', 'Corporate proxy: sign in'],
    ["a gateway's JSON error", { 'content-type': 'application/json', 'x-request-id': 'req_42' }, JSON.stringify({ error: { message: 'The model `gpt-x` does not exist', code: 'model_not_found' } }), 'application/json', 'The model `gpt-x` does not exist'],
    ['plain text', { 'content-type': 'text/plain' }, 'Service temporarily unavailable', 'text/plain', 'Service temporarily unavailable'],
  ])('%s is a NotAnEventStreamError with the server message, not retryable', async (_what, headers, body, type, message) => {
    const { server, baseURL } = await answering(headers, body);
    try {
      const e = await errorOf(streamResponse({ model: 'm' }, { baseURL, apiKey: 'sk-test' }));
      expect(e).toBeInstanceOf(NotAnEventStreamError);
      expect(e).toBeInstanceOf(HTTPError);
      expect(e).toMatchObject({ name: 'NotAnEventStreamError', code: 'not_an_event_stream', status: 200, contentType: type, retryable: false });
      expect((e as Error).message).toContain(message);
      expect((e as Error).message).toContain(type);
      if (headers['x-request-id']) expect((e as Error).message).toContain('req_42');
    } finally {
      await close(server);
    }
  });

  test.each([
    ['text/event-stream', { 'content-type': 'text/event-stream' }],
    ['with parameters, any case', { 'content-type': 'Text/Event-Stream ; charset=UTF-8' }],
    ['no content-type at all (read as SSE)', {} as Record<string, string>],
  ])('%s is decoded', async (_what, headers) => {
    const sse = fixture('plain-text');
    const { server, baseURL } = await answering(headers, sse);
    try {
      expect(await lastValueFrom(streamResponse({ model: 'm' }, { baseURL, apiKey: 'k' }).pipe(toArray()))).toEqual(payloads(sse));
    } finally {
      await close(server);
    }
  });

  test('resumeFrom does not reconnect after it: the reconnect that got an HTML page ends the stream at once', async () => {
    const test = await startTestServer({ transcripts: { text: fixture('plain-text') }, faults: [{ type: 'drop', afterEvents: 3 }] });
    const html = await answering({ 'content-type': 'text/html' }, '<title>Maintenance</title>');
    let reconnects = 0;
    try {
      const e = await errorOf(
        streamResponse({ model: 'text' }, { baseURL: test.baseURL, apiKey: 'k' }).pipe(
          resumeFrom((c) => (reconnects++, retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, { baseURL: html.baseURL, apiKey: 'k' })), { delayMs: 0, maxAttempts: 5 }),
        ),
      );
      expect(e).toBeInstanceOf(NotAnEventStreamError);
      expect((e as Error).message).toContain('Maintenance');
      expect(reconnects).toBe(1);
    } finally {
      await close(html.server);
      await test.close();
    }
  });
});
