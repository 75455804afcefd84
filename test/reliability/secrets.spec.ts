// The API key never appears in an error (message, properties, cause chain, stack, toString, JSON,
// util.inspect with hidden properties), a log line or a library object, on every failure path, even
// when a malicious server echoes the key back in bodies, headers and events.
import { errorOf, views } from './leaks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { filter, firstValueFrom, of } from 'rxjs';
import {
  connectResponsesSocket, fromResponsesSSE, laneMux, resumeFrom, retrieveResponseStream, streamChatCompletion, streamResponse,
} from '../../index.js';
import { startResponsesWebSocketServer, startTestServer, type TestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';

const KEY = 'sk-test-SECRET-4242';
const FRAGMENT = 'SECRET-4242';


function expectNoKey(what: string, value: unknown): void {
  const leaks = views(value).filter((s) => s.includes(FRAGMENT));
  if (leaks.length > 0) throw new Error(`${what}: the API key leaked in ${leaks.length} view(s), e.g. ${JSON.stringify(leaks[0]!.slice(0, 300))}`);
}

// Everything the library writes to the console during a scenario is scanned too.
const logged: unknown[] = [];
const spies: jest.SpyInstance[] = [];
beforeAll(() => {
  for (const m of ['log', 'warn', 'error', 'info', 'debug'] as const) spies.push(jest.spyOn(console, m).mockImplementation((...a: unknown[]) => void logged.push(a)));
});
afterAll(() => {
  for (const s of spies) s.mockRestore();
  expectNoKey('console output', logged);
});

describe('HTTP failure paths', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      transcripts: {
        text: fixture('plain-text'),
        chat: fixture('chat-text'),
        // A malicious stream: undecodable events and an error event that quote the key.
        badjson: `event: response.created\ndata: {"type":"${KEY}", "key": "${KEY}"\n\n`,
        badevent: `data: {"type":"response.created","sequence_number":0,"response":{"id":"${KEY}","status":7}}\n\n`,
        errorevent: `data: {"type":"error","sequence_number":0,"code":"${KEY}","message":"your key ${KEY} is bad","param":"${KEY}"}\n\n`,
      },
    });
  });
  afterAll(() => server.close());
  const config = () => ({ baseURL: server.baseURL, apiKey: KEY });

  // A malicious server echoes the key in every field of an OpenAI-style error, and in x-request-id.
  // HTTPError takes the API's message, code, type, param and x-request-id: the transport masks the key in them.
  for (const status of [401, 429, 500]) {
    test(`HTTP ${status} with the key echoed in the body and headers`, async () => {
      server.inject({ type: 'status', status, code: KEY, message: `Incorrect API key provided: ${KEY}`, errorType: KEY, headers: { 'x-request-id': KEY } });
      expectNoKey(`HTTP ${status}`, await errorOf(streamResponse({ model: 'text', input: 'hi' }, config())));
    });
  }

  test('a non-JSON error body quoting the key', async () => {
    const raw = createServer((req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bad gateway for Authorization: ${String(req.headers.authorization)}`);
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
      expectNoKey('non-JSON 502', await errorOf(streamResponse({ model: 'x' }, { baseURL: base, apiKey: KEY })));
    } finally {
      raw.closeAllConnections();
      await new Promise<void>((r) => raw.close(() => r()));
    }
  });

  test('connection refused', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    expectNoKey('refused', await errorOf(streamResponse({ model: 'text' }, { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY })));
    expectNoKey('refused (chat)', await errorOf(streamChatCompletion({ model: 'chat', messages: [] }, { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY })));
  });

  test('abort through the caller signal', async () => {
    const ac = new AbortController();
    ac.abort();
    expectNoKey('abort', await errorOf(streamResponse({ model: 'text' }, { ...config(), signal: ac.signal })));
  });

  test('the key in a fetch error message (a fetch that quotes its request)', async () => {
    const leakyFetch: typeof fetch = async (_url, init) => {
      throw new TypeError(`failed: ${JSON.stringify(init?.headers)}`);
    };
    expectNoKey('leaky fetch', await errorOf(streamResponse({ model: 'text' }, { ...config(), fetch: leakyFetch })));
  });

  test('a body that breaks mid-stream', async () => {
    server.inject({ type: 'drop', afterEvents: 2 });
    expectNoKey('drop', await errorOf(streamResponse({ model: 'text' }, config())));
  });

  test('an idle timeout', async () => {
    server.inject({ type: 'stall', afterEvents: 1 });
    expectNoKey('idle', await errorOf(streamResponse({ model: 'text' }, { ...config(), idleTimeoutMs: 100 })));
  });

  // DecodeError quotes an 80-character excerpt of the payload: masked by the transport.
  test('a malformed event that quotes the key', async () => {
    expectNoKey('malformed JSON', await errorOf(streamResponse({ model: 'badjson' }, config())));
  });

  test('an event failing its codec with the key in a field', async () => {
    expectNoKey('codec failure', await errorOf(streamResponse({ model: 'badevent' }, config())));
  });

  // ResponseStreamError's message, code and param (and the raw event) are the server's: masked.
  test('an in-band error event that quotes the key', async () => {
    expectNoKey('error event', await errorOf(streamResponse({ model: 'errorevent' }, config())));
  });

  // The final HTTPError, as above.
  test('resumeFrom giving up after retries that all fail', async () => {
    server.inject({ type: 'drop', afterEvents: 3 });
    for (let i = 0; i < 3; i++) server.inject({ type: 'status', status: 503, message: `overloaded (key ${KEY})`, headers: { 'x-request-id': KEY } });
    const c = config();
    const e = await errorOf(
      streamResponse({ model: 'text' }, c).pipe(resumeFrom((cur) => retrieveResponseStream(cur.responseId, { startingAfter: cur.sequenceNumber }, c), { delayMs: 1, maxAttempts: 2 })),
    );
    server.clearFaults();
    expectNoKey('resumeFrom', e);
  });

  test('library objects: the Observables and config-carrying values print no key', () => {
    const o = streamResponse({ model: 'text' }, config());
    expectNoKey('streamResponse Observable', o);
    expectNoKey('retrieveResponseStream Observable', retrieveResponseStream('resp_1', {}, config()));
    expectNoKey('fromResponsesSSE Observable', fromResponsesSSE('data: {}\n\n'));
  });
});

describe('WebSocket failure paths', () => {
  const withSocket = async (respond: Array<Record<string, unknown>> | undefined, f: (socket: ReturnType<typeof connectResponsesSocket>, server: Awaited<ReturnType<typeof startResponsesWebSocketServer>>) => Promise<void>) => {
    const server = await startResponsesWebSocketServer(respond ? { respond } : {});
    const socket = connectResponsesSocket({ url: server.url, apiKey: KEY, heartbeatMs: 0 });
    try {
      await f(socket, server);
    } finally {
      socket.close();
      await server.close();
    }
  };

  // LaneError's message is the server's error message: the socket masks the key in error frames.
  test('a server error event quoting the key', () =>
    withSocket([{ type: 'error', status: 401, error: { type: 'invalid_request_error', code: KEY, message: `bad key ${KEY}`, param: KEY } }], async (socket) => {
      expectNoKey('socket object', socket);
      expectNoKey('error event over WS', await errorOf(socket.response({ model: 'm', input: 'hi' })));
    }));

  test('a dropped connection, then laneMux on the dead socket', () =>
    withSocket(undefined, async (socket, server) => {
      const pending = errorOf(socket.response({ model: 'm', input: 'hi', metadata: { loopback_hold: 'true' } }));
      await firstValueFrom(socket.state$.pipe(filter((s) => s === 'open')));
      await new Promise((r) => setTimeout(r, 20));
      server.dropAll();
      expectNoKey('dropped WS', await pending);
      expectNoKey('laneMux on a dead socket', await errorOf(of({ type: 'response.create', model: 'm', input: 'x', stream_id: 'a' } as const).pipe(laneMux(socket))));
    }));

  test('connection refused', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const refused = connectResponsesSocket({ url: `ws://127.0.0.1:${port}/v1/responses`, apiKey: KEY, heartbeatMs: 0 });
    expectNoKey('refused WS', await errorOf(refused.events$));
    expectNoKey('refused socket', refused);
  });
});
