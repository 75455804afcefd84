import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { first, lastValueFrom, take, toArray } from 'rxjs';
import { streamChatCompletion, streamResponse } from '../../index';
import { fixture, payloads } from '../helpers/fixtures';

/**
 * A stream that ended normally lets its keep-alive connection be reused; one left mid-stream is cut at once.
 * The server sends the whole transcript (terminal event included), then, separately, what `after` does with
 * the response: the end of the body a moment later, endless bytes, or nothing (held open). It counts the TCP
 * connections it accepted and the ones the client closed.
 */
type After = 'end' | 'endless' | 'hold' | 'partial';

interface Loopback {
  baseURL: string;
  connections: number;
  clientClosed: number;
  responsesDone: number;
  /** Resolves when the n-th response is over (ended by the server or cut by the client). */
  ended(n: number): Promise<void>;
  close(): Promise<void>;
}

async function loopback(body: string, after: After): Promise<Loopback> {
  const bytes = Buffer.from(body);
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let closing = false;
  const state = {
    connections: 0,
    clientClosed: 0,
    responsesDone: 0,
  };
  const done = (): void => {
    state.responsesDone++;
    for (const w of waiters.filter((x) => x.n <= state.responsesDone)) w.resolve();
  };
  const server: Server = createServer((req, res: ServerResponse) => {
    req.resume();
    res.on('close', done);
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (after === 'partial') {
        // Only the first event, then the stream stays open: the client leaves mid-stream.
        res.write(bytes.subarray(0, bytes.indexOf('\n\n') + 2));
        return;
      }
      res.write(bytes, () => {
        // 'close' also comes when the client cut the response first (the bug this pins): no wait forever then.
        if (after === 'end') setTimeout(() => res.end(), 30);
        else if (after === 'endless') {
          const junk = Buffer.alloc(16 * 1024, 0x3a); // ':' lines are SSE comments
          const more = (): void => {
            if (!res.destroyed) res.write(junk, () => setImmediate(more));
          };
          more();
        }
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (!closing) state.clientClosed++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get connections() {
      return state.connections;
    },
    get clientClosed() {
      return state.clientClosed;
    },
    get responsesDone() {
      return state.responsesDone;
    },
    ended: (n) => (state.responsesDone >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        closing = true;
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` (no dependence on speed: it waits as long as the test's timeout allows). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(10);
}

describe('keep-alive connections of streams that end normally', () => {
  const sse = fixture('plain-text');
  const N = 5;

  /**
   * Runs `one` stream `n` times in a row against `server` (each once the server has ended the previous body),
   * then checks that all of them went over one keep-alive connection, never closed by the client.
   */
  async function expectOneConnection(server: Loopback, n: number, one: () => Promise<void>): Promise<void> {
    try {
      for (let i = 1; i <= n; i++) {
        await one();
        // The body's end comes after the terminal event; the next request goes once the server has sent it
        // (and the client, in this same process, has had a turn to read it).
        await server.ended(i);
        await sleep(50);
      }
      expect(server.clientClosed).toBe(0);
      expect(server.connections).toBe(1);
    } finally {
      await server.close();
    }
  }

  /** A Responses stream from a server whose body goes on `after` the terminal event: all its events, then the client closes the connection. */
  async function expectCutAfterEnd(after: After, drainAfterEnd: { bytes?: number; ms?: number }): Promise<void> {
    const server = await loopback(sse, after);
    try {
      const events = await lastValueFrom(streamResponse({ model: 'm' }, { baseURL: server.baseURL, apiKey: 'k', drainAfterEnd }).pipe(toArray()));
      expect(events).toEqual(payloads(sse));
      await until(() => server.clientClosed >= 1);
    } finally {
      await server.close();
    }
  }

  test('N sequential Responses streams ending at their terminal event reuse one connection', async () => {
    const server = await loopback(sse, 'end');
    await expectOneConnection(server, N, async () => {
      const events = await lastValueFrom(streamResponse({ model: 'm' }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(events).toEqual(payloads(sse));
    });
  });

  test('a subscriber leaving on the terminal event (first()) still leaves the connection reusable', async () => {
    const server = await loopback(sse, 'end');
    await expectOneConnection(server, 3, async () => {
      const last = await lastValueFrom(
        streamResponse({ model: 'm' }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(first((e) => e.type === 'response.completed')),
      );
      expect(last.type).toBe('response.completed');
    });
  });

  test('Chat Completions streams ending at [DONE] reuse one connection', async () => {
    const chat = fixture('chat-text');
    const server = await loopback(chat, 'end');
    await expectOneConnection(server, 3, async () => {
      const chunks = await lastValueFrom(streamChatCompletion({ model: 'm', messages: [] }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(chunks).toEqual(payloads(chat));
    });
  });

  test('the rest of a finished body is read up to drainAfterEnd.bytes, then the connection is cut', async () => {
    await expectCutAfterEnd('endless', { bytes: 64 * 1024, ms: 600_000 });
  });

  test('a finished body whose end does not come is cut after drainAfterEnd.ms', async () => {
    await expectCutAfterEnd('hold', { ms: 50 });
  });

  test('unsubscribing mid-stream aborts the request at once: the server sees the connection close', async () => {
    const server = await loopback(sse, 'partial');
    try {
      const [e] = await lastValueFrom(
        streamResponse({ model: 'm' }, { baseURL: server.baseURL, apiKey: 'k', drainAfterEnd: { ms: 600_000 } }).pipe(take(1), toArray()),
      );
      expect(e?.type).toBe(payloads(sse)[0]?.type);
      // No drain timer is involved (600 s): the close comes from the abort.
      // (Node's fetch opens a spare connection when one is cut: only the close is counted.)
      await until(() => server.clientClosed >= 1);
    } finally {
      await server.close();
    }
  });

  test('drainAfterEnd limits are checked', async () => {
    const bad = streamResponse({ model: 'm' }, { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', drainAfterEnd: { bytes: -1 } });
    await expect(lastValueFrom(bad)).rejects.toMatchObject({ name: 'InvalidOptionError', option: 'drainAfterEnd.bytes' });
  });
});

