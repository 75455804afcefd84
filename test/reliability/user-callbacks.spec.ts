// A user's callback that throws (or a promise of theirs that rejects) ends the stream it belongs to with that
// error, or answers the one request with an error status: it never escapes as an uncaught exception (RxJS
// reports a throw inside an observer asynchronously, where nothing can catch it) nor crashes a server.
// One case per kind of callback the library calls: resumeFrom's, an EventLog implementation's methods
// (persistTo, cancelResponse), fanOut's branches, bufferLimit's work, laneMux's socket, the transports'
// fetch, a WebSocket implementation, the gateway's authorize, fetch and log.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config as rxConfig, lastValueFrom, map, Observable, of, Subject, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponsesClientEvent } from '../../lib/events/websocket';
import { createGateway, type GatewayOptions } from '../../lib/gateway/index';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { cancelResponse } from '../../lib/log/cancel';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { connectResponsesSocket } from '../../lib/ws/socket';
import type { LaneSocket, SocketEvent, WebSocketConstructorLike } from '../../lib/ws/types';
import { isLaneError } from '../../lib/ws/errors';
import { bufferLimit } from '../../operators/bufferLimit';
import { fanOut } from '../../operators/fanOut';
import { laneMux } from '../../operators/laneMux';
import { persistTo } from '../../operators/persistTo';
import { resumeFrom } from '../../operators/resumeFrom';
import { parseTranscript, textTranscript } from '../../lib/testing/index';

jest.setTimeout(30_000);

const transcript = parseTranscript(textTranscript({ responseId: 'resp_cb', model: 'm', deltas: ['a ', 'b ', 'c'] }));
const body = transcript.events.map((e) => e.raw).join('');
const events = (): Observable<ResponseStreamEvent> => fromResponsesSSE(body);
const boom = (): Error => new Error('the callback broke');

/** What RxJS and Node would have reported as unhandled while `run` went on (and a tick after it). */
async function escaped(run: () => Promise<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onRejection = (e: unknown): void => void seen.push(e);
  const before = rxConfig.onUnhandledError;
  rxConfig.onUnhandledError = (e: unknown) => seen.push(e);
  process.on('unhandledRejection', onRejection);
  try {
    await run();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    rxConfig.onUnhandledError = before;
    process.off('unhandledRejection', onRejection);
  }
  return seen;
}

/** How an Observable ended: its error, or 'completed'. */
const ending = (o: Observable<unknown>): Promise<unknown> => lastValueFrom(o.pipe(toArray())).then(() => 'completed', (e: unknown) => e);

describe('resumeFrom', () => {
  it.each([
    ['onCursor throws', { onCursor: () => { throw boom(); } }],
    ['retryable throws', { retryable: () => { throw boom(); } }],
    ['delay throws', { delay: () => { throw boom(); } }],
  ])('%s: the stream ends with it', async (_, options) => {
    const cut = new Observable<ResponseStreamEvent>((s) => {
      const sub = events().subscribe({ next: (e) => (e.sequence_number === 3 ? s.error(Object.assign(new Error('cut'), { retryable: true })) : s.next(e)) });
      return sub;
    });
    let end: unknown;
    expect(await escaped(async () => (end = await ending(cut.pipe(resumeFrom(() => events(), { delay: 0, ...options })))))).toEqual([]);
    expect(end).toEqual(boom());
  });

  it('reconnect throws, or returns no Observable: that attempt fails with it', async () => {
    const cut = events().pipe(map((e) => {
      if (e.sequence_number === 3) throw Object.assign(new Error('cut'), { retryable: true });
      return e;
    }));
    let threw: unknown;
    let nothing: unknown;
    expect(await escaped(async () => {
      threw = await ending(cut.pipe(resumeFrom(() => { throw boom(); }, { delay: 0, maxAttempts: 1 })));
      nothing = await ending(cut.pipe(resumeFrom(() => undefined as unknown as Observable<ResponseStreamEvent>, { delay: 0, maxAttempts: 1 })));
    })).toEqual([]);
    expect(threw).toEqual(boom());
    expect(nothing).toBeInstanceOf(TypeError);
  });
});

/** A memory log whose `method` throws synchronously, rejects, or returns something that is not a promise. */
function brokenLog(method: keyof EventLog, how: 'throws' | 'rejects' | 'returns no promise'): EventLog {
  const inner = memoryEventLog();
  const broken = (): unknown => {
    if (how === 'throws') throw boom();
    if (how === 'rejects') return Promise.reject(boom());
    return undefined;
  };
  return { ...inner, close: () => inner.close(), [method]: broken } as EventLog;
}

describe('persistTo over an EventLog of the user', () => {
  it.each([
    ['acquire', 'throws'], ['acquire', 'rejects'], ['acquire', 'returns no promise'],
    ['append', 'throws'], ['append', 'rejects'], ['append', 'returns no promise'],
  ] as const)('whose %s %s: the stream ends with an EventLogError', async (method, how) => {
    const log = brokenLog(method, how);
    let end: unknown;
    try {
      expect(await escaped(async () => (end = await ending(events().pipe(persistTo(log)))))).toEqual([]);
    } finally {
      await log.close();
    }
    expect(end).toMatchObject({ name: 'EventLogError', reason: 'unavailable' });
  });

  it("whose release throws: the stream completes (the lease is the log's to drop)", async () => {
    const log = brokenLog('release', 'throws');
    let end: unknown;
    try {
      expect(await escaped(async () => (end = await ending(events().pipe(persistTo(log)))))).toEqual([]);
    } finally {
      await log.close();
    }
    expect(end).toBe('completed');
  });
});

describe('fanOut', () => {
  it('a branch that throws when it is built, or while it runs, ends the output with its error', async () => {
    let built: unknown;
    let running: unknown;
    expect(await escaped(async () => {
      built = await ending(events().pipe(fanOut(map((e: ResponseStreamEvent) => e.type), () => { throw boom(); })));
      running = await ending(events().pipe(fanOut(map((e: ResponseStreamEvent) => e.type), map(() => { throw boom(); }))));
    })).toEqual([]);
    expect(built).toEqual(boom());
    expect(running).toEqual(boom());
  });
});

describe('bufferLimit', () => {
  it.each([
    ['throws', () => { throw boom(); }],
    ['returns no ObservableInput', () => undefined as unknown as Observable<number>],
    ['returns a promise that rejects', () => Promise.reject(boom())],
  ])('work that %s ends the stream with the error', async (_, work) => {
    let end: unknown;
    expect(await escaped(async () => (end = await ending(of(1, 2, 3).pipe(bufferLimit(5, work)))))).toEqual([]);
    expect(end).toEqual(expect.any(Error));
  });
});

describe('laneMux over a LaneSocket of the user', () => {
  it('whose send throws: that request gets a LaneError, the output goes on', async () => {
    const socket: LaneSocket = { events$: new Subject<SocketEvent>(), send: () => { throw boom(); } };
    const create = { type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent;
    let out: unknown[] = [];
    expect(await escaped(async () => (out = await lastValueFrom(of(create).pipe(laneMux(socket), toArray()))))).toEqual([]);
    expect(out).toHaveLength(1);
    expect(isLaneError(out[0])).toBe(true);
  });

  it('whose events$ errors: the output errors with it', async () => {
    const socket: LaneSocket = { events$: new Observable<SocketEvent>((s) => s.error(boom())), send: () => undefined };
    const create = { type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent;
    let end: unknown;
    expect(await escaped(async () => (end = await ending(of(create).pipe(laneMux(socket)))))).toEqual([]);
    expect(end).toEqual(expect.any(Error));
  });
});

describe("the transports' fetch", () => {
  it.each([
    ['throws', () => { throw boom(); }],
    ['rejects', () => Promise.reject(boom())],
    ['returns no promise', () => undefined],
    ['resolves to something that is not a Response', () => Promise.resolve({})],
  ])('that %s ends the stream with an error', async (_, f) => {
    const config = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-0000', fetch: f as unknown as typeof fetch };
    let created: unknown;
    let retrieved: unknown;
    expect(await escaped(async () => {
      created = await ending(streamResponse({ model: 'm', input: 'hi' }, config));
      retrieved = await ending(retrieveResponseStream('resp_1', {}, config));
    })).toEqual([]);
    expect(created).toEqual(expect.any(Error));
    expect(retrieved).toEqual(expect.any(Error));
  });

  it('cancelResponse: a fetch that throws, or a log whose cancel throws, is its rejection', async () => {
    const config = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-0000', fetch: (() => { throw boom(); }) as unknown as typeof fetch };
    const log = brokenLog('cancel', 'throws');
    try {
      expect(await escaped(async () => {
        await expect(cancelResponse('resp_1', config)).rejects.toThrow();
        await expect(cancelResponse('resp_1', config, log)).rejects.toThrow();
      })).toEqual([]);
    } finally {
      await log.close();
    }
  });
});

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

  it.each(['constructor', 'send', 'close', 'addEventListener'] as const)('whose %s throws: an error of the socket, never an uncaught one', async (broken) => {
    const seen = await escaped(async () => {
      let socket: ReturnType<typeof connectResponsesSocket> | undefined;
      try {
        socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: socketClass(broken), heartbeatInterval: 0, closeTimeout: 10 });
      } catch (e) {
        return e; // thrown to the caller of connectResponsesSocket: its own stack, not an uncaught one
      }
      const end = ending(socket.events$);
      try {
        socket.send({ type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent);
      } catch {
        // documented: send throws when it cannot send
      }
      await new Promise((r) => setTimeout(r, 10));
      socket.close();
      return end;
    });
    expect(seen).toEqual([]);
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
      const socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: nodeStyleClass('ping'), heartbeatInterval: 5, closeTimeout: 10 });
      end = await ending(socket.events$);
    });
    expect(seen).toEqual([]);
    expect(end).toMatchObject({ name: 'WebSocketClosedError', message: expect.stringContaining('the callback broke') });
  });

  it('whose terminate throws (from the close timer): the socket ends all the same', async () => {
    let state: string | undefined;
    const seen = await escaped(async () => {
      const socket = connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses', apiKey: 'sk-test-0000', WebSocket: nodeStyleClass('terminate'), heartbeatInterval: 0, closeTimeout: 5 });
      const end = ending(socket.events$);
      await new Promise((r) => setTimeout(r, 10));
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
  async function statuses(options: (baseURL: string) => GatewayOptions): Promise<number[]> {
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
    expect(await escaped(async () => (got = await statuses((upstreamURL) => ({ upstream: upstreamURL, authorize }))))).toEqual([]);
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
      expect(await escaped(async () => (got = await statuses((upstreamURL) => ({ upstream: upstreamURL, log }))))).toEqual([]);
      expect(got).toHaveLength(2);
    } finally {
      await log.close();
    }
  });
});
