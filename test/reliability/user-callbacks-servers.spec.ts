// A user's callback that throws (or a promise of theirs that rejects) ends the stream it belongs to with that
// error, or answers the one request with an error status: it never escapes as an uncaught exception (RxJS
// reports a throw inside an observer asynchronously, where nothing can catch it) nor crashes a server.
// Here the servers' side: a WebSocket implementation of the user's, and the gateway's authorize, upstream fetch
// and log (an error status for the one request, the gateway serves on).
import { filter, firstValueFrom } from 'rxjs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResponsesClientEvent } from '../../lib/events/websocket';
import { createGateway, type Gateway, type GatewayOptions } from '../../gateway/index';
import type { GatewayMetricsSnapshot } from '../../gateway/metrics';
import { connectResponsesSocket } from '../../lib/ws/socket';
import type { WebSocketConstructorLike } from '../../lib/ws/types';
import { body, boom, brokenLog, ending, escaped } from './user-callbacks';

jest.setTimeout(30_000);

describe('a WebSocket implementation of the user', () => {
  /** A WebSocket class whose `broken` method throws; it opens on the next tick. */
  function socketClass(broken: 'constructor' | 'send' | 'close' | 'addEventListener'): WebSocketConstructorLike {
    return class {
      readyState = 0;
      binaryType = 'arraybuffer';
      private readonly listeners = new Map<string, Array<(ev: never) => void>>();
      constructor() {
        if (broken === 'constructor') throw boom();
        setTimeout(() => {
          this.readyState = 1;
          for (const l of this.listeners.get('open') ?? []) l({} as never);
        }, 1);
      }
      send(): void {
        if (broken === 'send') throw boom();
      }
      close(): void {
        if (broken === 'close') throw boom();
        this.readyState = 3;
        for (const l of this.listeners.get('close') ?? []) l({ code: 1000, reason: '' } as never);
      }
      addEventListener(type: string, l: (ev: never) => void): void {
        if (broken === 'addEventListener') throw boom();
        this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
      }
    } as unknown as WebSocketConstructorLike;
  }

  it.each([
    ['constructor', 'WebSocketClosedError'],
    ['send', 'WebSocketClosedError'],
    ['addEventListener', 'WebSocketClosedError'],
    ['close', 'completed'],
  ] as const)('whose %s throws: events$ ends (%s), never an uncaught exception', async (broken, outcome) => {
    let end: unknown;
    const seen = await escaped(async () => {
      const socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: socketClass(broken), heartbeatMs: 0, closeTimeoutMs: 10 });
      const ended = ending(socket.events$);
      try {
        socket.send({ type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent);
      } catch {
        // documented: send throws when it cannot send
      }
      // Past connecting (open, or given up): a send queued before the open has been tried then.
      await firstValueFrom(socket.state$.pipe(filter((st) => st !== 'connecting')), { defaultValue: 'closed' });
      socket.close();
      end = await ended;
    });
    expect(seen).toEqual([]);
    if (outcome === 'completed') expect(end).toBe('completed');
    else expect(end).toMatchObject({ name: outcome, closeCode: 1006, message: expect.stringContaining(broken === 'constructor' ? 'the callback broke' : 'the WebSocket failed: the callback broke') });
  });

  /** A `ws`-style socket (ping, terminate) that opens at once; `broken` throws; a close is never answered. */
  function nodeStyleClass(broken: 'ping' | 'terminate'): WebSocketConstructorLike {
    return class {
      readyState = 0;
      binaryType = 'arraybuffer';
      private readonly listeners = new Map<string, Array<(ev: never) => void>>();
      constructor(_url: string, _options: unknown) {
        setTimeout(() => {
          this.readyState = 1;
          for (const l of this.listeners.get('open') ?? []) l({} as never);
        }, 1);
      }
      send(): void {}
      close(): void {}
      ping(): void {
        if (broken === 'ping') throw boom();
      }
      terminate(): void {
        if (broken === 'terminate') throw boom();
      }
      on(): this {
        return this;
      }
      addEventListener(type: string, l: (ev: never) => void): void {
        this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
      }
    } as unknown as WebSocketConstructorLike;
  }

  it('whose ping throws (from the heartbeat timer): events$ errors with the failure', async () => {
    let end: unknown;
    const seen = await escaped(async () => {
      const socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: nodeStyleClass('ping'), heartbeatMs: 5, closeTimeoutMs: 10 });
      end = await ending(socket.events$);
    });
    expect(seen).toEqual([]);
    expect(end).toMatchObject({ name: 'WebSocketClosedError', message: expect.stringContaining('the callback broke') });
  });

  it('whose terminate throws (from the close timer): the socket ends all the same', async () => {
    let state: string | undefined;
    const seen = await escaped(async () => {
      const socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: nodeStyleClass('terminate'), heartbeatMs: 0, closeTimeoutMs: 5 });
      const end = ending(socket.events$);
      // Past connecting (open, or given up): a send queued before the open has been tried then.
      await firstValueFrom(socket.state$.pipe(filter((st) => st !== 'connecting')));
      socket.close();
      await end;
      state = socket.state;
    });
    expect(seen).toEqual([]);
    expect(state).toBe('closed');
  });
});

describe('the gateway', () => {
  let upstream: Server;
  let baseURL: string;
  beforeAll(async () => {
    upstream = createServer((_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    baseURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  /** Starts a gateway with `options`, sends one streamed create and one retrieve, and returns their statuses. */
  async function statuses(options: (baseURL: string) => GatewayOptions, after?: (g: Gateway) => void): Promise<number[]> {
    const gateway = createGateway(options(baseURL));
    const server = createServer(gateway);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const headers = { authorization: 'Bearer sk-test-0000', 'content-type': 'application/json' };
      const created = await fetch(`${url}/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'm', input: 'hi', stream: true }) });
      await created.text();
      const got = await fetch(`${url}/responses/resp_cb?stream=true`, { headers });
      await got.text();
      after?.(gateway);
      return [created.status, got.status];
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await gateway.close();
    }
  }

  it.each([
    ['throws', () => { throw boom(); }],
    ['rejects', () => Promise.reject(boom())],
    ['returns no caller', () => undefined as unknown as { owner: string }],
    ['returns a caller whose owner getter throws', () => ({ get owner(): string { throw boom(); } })],
  ])('authorize that %s: an error status, the gateway serves on', async (_, authorize) => {
    let got: number[] = [];
    expect(await escaped(async () => (got = await statuses((upstreamURL) => ({ upstream: { baseURL: upstreamURL }, authorize }))))).toEqual([]);
    for (const s of got) expect(s).toBeGreaterThanOrEqual(400);
  });

  it.each([['throws'], ['rejects'], ['returns no promise']] as const)('an upstream fetch that %s: a 5xx', async (how) => {
    const f = (() => {
      if (how === 'throws') throw boom();
      if (how === 'rejects') return Promise.reject(boom());
      return undefined;
    }) as unknown as typeof fetch;
    let got: number[] = [];
    expect(await escaped(async () => (got = await statuses((upstreamURL) => ({ upstream: { baseURL: upstreamURL, fetch: f } }))))).toEqual([]);
    expect(got[0]).toBeGreaterThanOrEqual(500);
  });

  it.each([
    ['acquire'], ['append'], ['state'], ['read'], ['wait'], ['release'], ['renew'], ['cancel'],
  ] as const)('a log whose %s throws synchronously: errors for the requests that need it, no crash', async (method) => {
    const log = brokenLog(method, 'throws');
    try {
      let got: number[] = [];
      let metrics: GatewayMetricsSnapshot | undefined;
      expect(await escaped(async () => (got = await statuses((upstreamURL) => ({ upstream: { baseURL: upstreamURL }, log }), (g) => (metrics = g.metrics()))))).toEqual([]);
      expect(got).toHaveLength(2);
      // Counted as a failure of the log, and nothing left "in flight" in /metrics.
      expect(metrics!.log.appendsInFlight).toBe(0);
      if (['acquire', 'append', 'state', 'read'].includes(method)) expect(metrics!.log.errors).toBeGreaterThan(0);
    } finally {
      await log.close();
    }
  });
});
