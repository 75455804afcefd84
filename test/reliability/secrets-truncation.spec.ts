// A cut copy of the key is still a leak. Error messages are cut (an excerpt of 80 characters, a provider
// message capped at 2,000, an HTTP error excerpt of 200, a WebSocket close reason of at most 123 bytes), and
// a cut that lands inside the key leaves most of it behind, which masking whole copies never catches.
// Every view of every error and error event here is searched for any run of 8 of the key's characters.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { filter, firstValueFrom } from 'rxjs';
import { WebSocketServer } from 'ws';
import { connectResponsesSocket, streamResponse } from '../../index.js';
import { excerpt } from '../../lib/errors';
import { redactString, redactThenCut } from '../../lib/redact';
import { params } from './harness';
import { expectNoFragment, fragmentIn, valuesAndError } from './leaks';
import { close, listen } from './loopback';

const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';

describe('redaction survives truncation (lib/redact.ts)', () => {
  test('any cut of a text holding the key keeps no run of 8 of its characters, nor a start or end of 4 at the cut', () => {
    const text = `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`;
    const at = text.indexOf(KEY);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: at + KEY.length }), fc.integer({ min: at, max: text.length }), (from, to) => {
        const piece = text.slice(from, Math.max(from, to));
        const out = redactString(piece, [KEY]);
        const run = fragmentIn(out, KEY);
        if (run !== undefined) throw new Error(`${JSON.stringify(piece)} → ${JSON.stringify(out)} keeps ${run}`);
        // A cut inside the key leaves its start at the end of the piece, or its end at the start.
        for (let l = 4; l < 8; l++) {
          if (out.endsWith(KEY.slice(0, l)) || out.startsWith(KEY.slice(-l))) throw new Error(`${JSON.stringify(out)} keeps an edge of ${l}`);
        }
      }),
      params(300),
    );
  });

  test('masking comes before the cut: no cut length leaves a piece of the key', () => {
    const text = `${'x'.repeat(50)} ${KEY} ${'y'.repeat(50)}`;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: text.length + 5 }), (max) => {
        expect(fragmentIn(redactThenCut(text, max, [KEY]), KEY, 4)).toBeUndefined();
        // Without knowing the key, its `sk-` shape is masked before the cut too.
        expect(fragmentIn(redactThenCut(text, max), KEY, 4)).toBeUndefined();
      }),
      params(200),
    );
  });

  test("a DecodeError excerpt (80 characters) cut inside an sk- key keeps none of it, even where the key is not known", () => {
    expect(fragmentIn(excerpt(`{"type":"${'x'.repeat(60)} ${KEY}"`), KEY, 4)).toBeUndefined();
  });

  test('credential shapes are masked in any text, the key known or not; ordinary text is left alone', () => {
    expect(redactString('Authorization: Bearer eyJhbGciOi.J9abc.def12345')).toBe('Authorization: Bearer [redacted]');
    expect(redactString('basic dXNlcjpwYXNzd29yZA==')).toBe('basic [redacted]');
    expect(redactString('Incorrect API key provided: sk-live-OTHERKEY99887766554433.')).toBe('Incorrect API key provided: [redacted].');
    const ordinary = 'task-runner-12345678 failed: Bearer token missing; ask-me-anything-please; sk-short; basically fine';
    expect(redactString(ordinary)).toBe(ordinary);
    expect(redactString(ordinary, [KEY])).toBe(ordinary);
  });
});

/** A server answering every request with this status, content-type and body. */
async function answering<T>(status: number, type: string, body: string, f: (baseURL: string) => Promise<T>): Promise<T> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  try {
    return await f(await listen(server));
  } finally {
    await close(server);
  }
}

describe('over HTTP: the cut happens after the mask', () => {
  test('a non-JSON error body with the key across its 200-character excerpt', () =>
    answering(502, 'text/plain', `${'x'.repeat(185)}${KEY} and more`, async (baseURL) => {
      const { error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
      expect(error).toMatchObject({ name: 'HTTPError', status: 502 });
      expectNoFragment('HTTP 502 excerpt', error, KEY);
    }));

  test('a malformed event whose DecodeError excerpt is cut inside the key', () =>
    answering(200, 'text/event-stream', `event: response.created\ndata: {"type":"${'x'.repeat(60)}${KEY}"\n\n`, async (baseURL) => {
      const { error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
      expect(error).toMatchObject({ name: 'DecodeError' });
      expect((error as { excerpt?: string }).excerpt).toBeDefined();
      expectNoFragment('DecodeError excerpt', error, KEY);
    }));

  test("a provider's error text capped at 2,000 characters inside the key: the error event and the error", () =>
    answering(200, 'text/event-stream', `event: error\ndata: ${'y'.repeat(1990)}${KEY}\n\n`, async (baseURL) => {
      const { values, error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
      expect(error).toMatchObject({ name: 'ResponseStreamError' });
      expect(values.map((e) => e.type)).toEqual(['error']);
      expectNoFragment('error event', values, KEY);
      expectNoFragment('ResponseStreamError', error, KEY);
    }));

  test('another key or a bearer token that the server quotes is masked by its shape', () =>
    answering(401, 'application/json', JSON.stringify({ error: { message: 'Incorrect API key provided: sk-live-OTHERKEY99887766554433 (Authorization: Bearer tok_9f8e7d6c5b4a39281706)', code: 'invalid_api_key' } }), async (baseURL) => {
      const { error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
      expect(error).toMatchObject({ name: 'HTTPError', status: 401, errorCode: 'invalid_api_key' });
      expectNoFragment('other key', error, 'sk-live-OTHERKEY99887766554433');
      expectNoFragment('bearer token', error, 'tok_9f8e7d6c5b4a39281706');
    }));
});

describe('over WebSocket', () => {
  /** A raw `ws` server that runs `onConnection` for each client. */
  async function withWsServer(onConnection: (ws: import('ws').WebSocket) => void, f: (url: string) => Promise<void>): Promise<void> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', onConnection);
    try {
      await f(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/responses`);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  }

  test('a close reason cut at 123 bytes inside the key', () =>
    withWsServer(
      (ws) => ws.close(1008, `${'r'.repeat(100)}${KEY}`.slice(0, 123)),
      async (url) => {
        const socket = connectResponsesSocket({ url, apiKey: KEY, heartbeatMs: 0 });
        const { error } = await valuesAndError(socket.events$);
        expect(error).toMatchObject({ name: 'WebSocketClosedError', closeCode: 1008 });
        expectNoFragment('close reason', error, KEY);
      },
    ));

  test("a malformed frame whose excerpt is cut inside the key", () =>
    withWsServer(
      (ws) => ws.send(`{"type":"error","message":"${'z'.repeat(40)}${KEY}`),
      async (url) => {
        const socket = connectResponsesSocket({ url, apiKey: KEY, heartbeatMs: 0 });
        try {
          const frame = await firstValueFrom(socket.events$.pipe(filter((e) => e.type === 'openai_rx.frame_error')));
          expect((frame as { error?: { excerpt?: string } }).error?.excerpt).toBeDefined();
          expectNoFragment('frame error', frame, KEY);
        } finally {
          socket.close();
        }
      },
    ));
});
