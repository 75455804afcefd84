// Keys that do not come through `apiKey`: given in `config.headers` (`Authorization`, Azure's `api-key`, any
// case) for HTTP and WebSocket; echoed by a server into an SSE `error` event (a value, not only the error that
// follows it); or written into `baseURL` as `user:password@`, which is refused without quoting it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { connectResponsesSocket, resumeFrom, retrieveResponseStream, streamChatCompletion, streamResponse } from '../../index.js';
import { expectNoFragment, valuesAndError } from './leaks';
import { close, listen } from './loopback';

/** Not `sk-` shaped (an Azure-style key): only knowing it masks it. */
const HKEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';

/** A server that answers 401 quoting whatever credential it was sent, in the body and in x-request-id. */
async function echoing<T>(f: (baseURL: string, seen: string[]) => Promise<T>): Promise<T> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    seen.push(req.url ?? '');
    const sent = String(req.headers['api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
    res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': `req_${sent}` });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${sent}. (${'.'.repeat(150)}${sent})`.slice(0, 190), code: sent, param: sent } }));
  });
  try {
    return await f(await listen(server), seen);
  } finally {
    await close(server);
  }
}

describe('a key given in config.headers is masked like apiKey', () => {
  test.each([
    ['Authorization', `Bearer ${HKEY}`],
    ['authorization', `Bearer ${HKEY}`],
    ['AUTHORIZATION', HKEY],
    ['api-key', HKEY],
    ['Api-Key', HKEY],
  ])('HTTP, %s header', (name, value) =>
    echoing(async (baseURL, seen) => {
      const { error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: undefined, headers: { [name]: value } }));
      expect(seen).toHaveLength(1);
      expect(error).toMatchObject({ name: 'HTTPError', status: 401 });
      expectNoFragment(`${name} header`, error, HKEY);
      const chat = await valuesAndError(streamChatCompletion({ model: 'm', messages: [] }, { baseURL, headers: { [name]: value } }));
      expectNoFragment(`${name} header (chat)`, chat.error, HKEY);
    }),
  );

  test('WebSocket, Authorization in the socket config headers, echoed in an error frame', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws, req) => {
      const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      ws.send(JSON.stringify({ type: 'error', status: 401, error: { type: 'invalid_request_error', code: 'invalid_api_key', message: `bad key ${sent}`, param: sent } }));
    });
    const socket = connectResponsesSocket({ url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/responses`, headers: { Authorization: `Bearer ${HKEY}` }, heartbeatMs: 0 });
    try {
      const { error } = await valuesAndError(socket.response({ model: 'm', input: 'hi' }));
      expect(error).toBeInstanceOf(Error);
      expectNoFragment('WS error frame', error, HKEY);
    } finally {
      socket.close();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});

test('the error event emitted over SSE is masked, not only the ResponseStreamError after it', async () => {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ type: 'error', sequence_number: 0, code: KEY, message: `your key ${KEY} is bad`, param: KEY })}\n\n`);
  });
  const baseURL = await listen(server);
  try {
    const { values, error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
    expect(values.map((e) => e.type)).toEqual(['error']);
    expect(error).toMatchObject({ name: 'ResponseStreamError' });
    expectNoFragment('error event value', values, KEY);
    expectNoFragment('ResponseStreamError', error, KEY);
  } finally {
    await close(server);
  }
});

describe('a baseURL with user:password@', () => {
  const PASSWORD = 'hunter2-Pa55word-x9';
  test.each([
    `http://user:${PASSWORD}@127.0.0.1:PORT/v1`,
    `http://${PASSWORD}@127.0.0.1:PORT/v1`,
    `http:${PASSWORD}:x@127.0.0.1:PORT/v1`,
    `user:${PASSWORD}@127.0.0.1:PORT/v1`,
  ])('%s is refused with an InvalidOptionError that never quotes the password, and nothing is sent', async (template) => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(500).end();
    });
    const port = new URL(await listen(server)).port;
    try {
      const baseURL = template.replace('PORT', port);
      const { error } = await valuesAndError(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY }));
      expect(error).toMatchObject({ name: 'InvalidOptionError', code: 'invalid_option', option: 'baseURL', retryable: false });
      expect((error as Error).message).toMatch(/baseURL/);
      expectNoFragment('InvalidOptionError', error, PASSWORD);
      expectNoFragment('InvalidOptionError', error, KEY);
      // resumeFrom does not retry it: the reconnect's error passes through at once.
      let reconnects = 0;
      const resumed = await valuesAndError(
        retrieveResponseStream('resp_1', { startingAfter: 0 }, { baseURL, apiKey: KEY }).pipe(
          resumeFrom(() => (reconnects++, retrieveResponseStream('resp_1', {}, { baseURL })), { delayMs: 0, cursor: { responseId: 'resp_1', sequenceNumber: 0 } }),
        ),
      );
      expect(resumed.error).toMatchObject({ name: 'InvalidOptionError' });
      expect(reconnects).toBe(0);
      expect(seen).toEqual([]);
    } finally {
      await close(server);
    }
  });
});

describe('WebSocket: credentials in the URL, and one Authorization header', () => {
  const PASSWORD = 'hunter2-Pa55word-x9';
  test.each([
    ['baseURL', { baseURL: `http://user:${PASSWORD}@127.0.0.1:9/v1` }],
    ['url', { url: `ws://user:${PASSWORD}@127.0.0.1:9/v1/responses` }],
  ] as const)('%s with user:password@ is refused with an InvalidOptionError that never quotes it', (option, config) => {
    let error: unknown;
    try {
      connectResponsesSocket({ ...config, apiKey: KEY }).close();
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'InvalidOptionError', option, retryable: false });
    expectNoFragment('InvalidOptionError', error, PASSWORD);
  });

  test('a configured key replaces a caller-given Authorization header (any case) instead of doubling it', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    // Every Authorization header as sent (raw: names and values alternate), so a doubled one shows.
    const seen = new Promise<string[]>((resolve) =>
      wss.on('connection', (_ws, req) => {
        const raw = req.rawHeaders;
        const out: string[] = [];
        for (let i = 0; i < raw.length; i += 2) if (/^authorization$/i.test(raw[i]!)) out.push(raw[i + 1]!);
        resolve(out);
      }),
    );
    await new Promise<void>((r) => wss.once('listening', () => r()));
    const port = (wss.address() as AddressInfo).port;
    const socket = connectResponsesSocket({ url: `ws://127.0.0.1:${port}/v1/responses`, apiKey: KEY, headers: { Authorization: `Bearer ${HKEY}` }, heartbeatMs: 0 });
    try {
      const headers = await seen;
      expect(headers).toEqual([`Bearer ${KEY}`]);
    } finally {
      await socket.close();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});
