// WebSocket promises from the README that had no test, through the public API only: `maxSendBuffer`, an
// `apiKey` in a browser, a socket's timers cleared on close (and on a drop), the heartbeat (30 s) and close
// handshake (2 s) defaults, and laneMux's defaults (16 in flight, 32 lanes).
import { filter, firstValueFrom, from, lastValueFrom, toArray } from 'rxjs';
import {
  connectResponsesSocket, isLaneError, laneMux, LimitExceededError, WebSocketClosedError, InvalidOptionError,
  type ResponsesClientEvent, type ResponsesSocket,
} from '../../index.js';
import { startResponsesWebSocketServer } from '../../testing';
import { trackTimers } from '../helpers/timers';

type Listener = (ev: never) => void;

/** A `ws`-style socket under the test's control: it opens, closes and answers pings only when told. */
class FakeSocket {
  static created: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  readonly sent: string[] = [];
  pings = 0;
  terminated = 0;
  closeCalls: Array<[number | undefined, string | undefined]> = [];
  private readonly listeners = new Map<string, Listener[]>();
  private readonly pongs: Array<() => void> = [];
  readonly args: unknown[];
  constructor(...args: unknown[]) {
    this.args = args;
    FakeSocket.created.push(this);
  }
  addEventListener(type: string, l: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  removeEventListener(type: string, l: Listener): void {
    this.listeners.set(type, (this.listeners.get(type) ?? []).filter((x) => x !== l));
  }
  on(event: 'pong', l: () => void): this {
    if (event === 'pong') this.pongs.push(l);
    return this;
  }
  send(data: string): void {
    this.sent.push(data);
  }
  ping(): void {
    this.pings++;
  }
  /** Does not answer the closing handshake (a peer that never does). */
  close(code?: number, reason?: string): void {
    this.closeCalls.push([code, reason]);
  }
  terminate(): void {
    this.terminated++;
    this.emit('close', { code: 1006, reason: '' });
  }
  // The test's side.
  emit(type: string, ev: unknown): void {
    if (type === 'open') this.readyState = 1;
    if (type === 'close') this.readyState = 3;
    for (const l of this.listeners.get(type) ?? []) (l as (e: unknown) => void)(ev);
  }
  pong(): void {
    for (const l of this.pongs) l();
  }
}

const Fake = FakeSocket as unknown as NonNullable<Parameters<typeof connectResponsesSocket>[0]>['WebSocket'];
const create = (i: number, lane?: string): ResponsesClientEvent =>
  ({ type: 'response.create', model: 'm', input: `q${i}`, ...(lane !== undefined && { stream_id: lane }) }) as ResponsesClientEvent;

function fakeSocket(config: Parameters<typeof connectResponsesSocket>[0] = {}): { socket: ResponsesSocket; ws: FakeSocket } {
  FakeSocket.created = [];
  const socket = connectResponsesSocket({ url: 'ws://fake.invalid/v1/responses', apiKey: 'k', WebSocket: Fake, ...config });
  const ws = FakeSocket.created[0];
  if (!ws) throw new Error('the socket did not construct its WebSocket synchronously');
  return { socket, ws };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('maxSendBuffer: client events queued before the socket opens', () => {
  test('default 1024: 1024 are queued, the next throws LimitExceededError(maxQueue, 1024); on open all go out in order', () => {
    const { socket, ws } = fakeSocket();
    for (let i = 0; i < 1024; i++) socket.send(create(i));
    let thrown: unknown;
    try {
      socket.send(create(1024));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(LimitExceededError);
    expect(thrown).toMatchObject({ limit: 'maxQueue', max: 1024, code: 'limit_exceeded' });
    expect(ws.sent).toEqual([]);
    ws.emit('open', {});
    expect(ws.sent).toHaveLength(1024);
    expect(ws.sent.map((f) => (JSON.parse(f) as { input: string }).input)).toEqual(Array.from({ length: 1024 }, (_, i) => `q${i}`));
    // Once open, nothing is queued: no limit applies.
    for (let i = 0; i < 2000; i++) socket.send(create(i));
    expect(ws.sent).toHaveLength(3024);
    socket.close();
    ws.emit('close', { code: 1000, reason: '' });
  });

  test('a configured bound: maxSendBuffer 2', () => {
    const { socket, ws } = fakeSocket({ maxSendBuffer: 2 });
    socket.send(create(0));
    socket.send(create(1));
    expect(() => socket.send(create(2))).toThrow(LimitExceededError);
    socket.close();
    ws.emit('close', { code: 1000, reason: '' });
  });
});

describe('an apiKey in a browser', () => {
  // A browser: no Node `process`, a global WebSocket (the fake, which records how it was constructed).
  function inBrowser<T>(f: () => T): T {
    const g = globalThis as { process?: unknown; WebSocket?: unknown };
    const proc = g.process;
    const hadWS = 'WebSocket' in g;
    const ws = g.WebSocket;
    g.WebSocket = FakeSocket;
    g.process = undefined;
    try {
      return f();
    } finally {
      g.process = proc;
      if (hadWS) g.WebSocket = ws;
      else delete g.WebSocket;
    }
  }

  test('throws InvalidOptionError at once, and no socket is opened', () => {
    FakeSocket.created = [];
    let thrown: unknown;
    inBrowser(() => {
      try {
        connectResponsesSocket({ apiKey: 'sk-browser', url: 'wss://relay.invalid/ai' });
      } catch (e) {
        thrown = e;
      }
    });
    expect(thrown).toBeInstanceOf(InvalidOptionError);
    expect((thrown as InvalidOptionError).code).toEqual(expect.any(String));
    expect(String((thrown as Error).message)).not.toContain('sk-browser');
    expect(FakeSocket.created).toEqual([]);
  });

  test('without a key, the relay URL is opened with the URL alone (no headers to carry a key)', () => {
    FakeSocket.created = [];
    const socket = inBrowser(() => connectResponsesSocket({ url: 'wss://relay.invalid/ai' }));
    expect(FakeSocket.created).toHaveLength(1);
    expect(FakeSocket.created[0]!.args).toEqual(['wss://relay.invalid/ai']);
    socket.close();
    FakeSocket.created[0]!.emit('close', { code: 1000, reason: '' });
  });
});

describe('heartbeat (default 30 s) and close handshake (default 2 s)', () => {
  test('a ping every 30 s; a peer that answers none within a period is dropped: WebSocketClosedError 1006, retryable', async () => {
    jest.useFakeTimers();
    const { socket, ws } = fakeSocket();
    const ended = lastValueFrom(socket.events$).catch((e: unknown) => e);
    ws.emit('open', {});
    jest.advanceTimersByTime(29_999);
    expect(ws.pings).toBe(0);
    jest.advanceTimersByTime(1);
    expect(ws.pings).toBe(1);
    // Answered: the connection lives on, one ping per period.
    ws.pong();
    jest.advanceTimersByTime(30_000);
    expect(ws.pings).toBe(2);
    expect(ws.terminated).toBe(0);
    // Not answered within the next period: dropped.
    jest.advanceTimersByTime(30_000);
    expect(ws.terminated).toBe(1);
    const err = await ended;
    expect(err).toBeInstanceOf(WebSocketClosedError);
    expect(err).toMatchObject({ retryable: true });
    expect((err as WebSocketClosedError).message).toMatch(/1006|30000/);
    expect(socket.state).toBe('closed');
  });

  test('close() waits 2 s for the closing handshake, then drops the connection', () => {
    jest.useFakeTimers();
    const { socket, ws } = fakeSocket();
    ws.emit('open', {});
    socket.close();
    expect(ws.closeCalls).toEqual([[1000, '']]);
    jest.advanceTimersByTime(1_999);
    expect(ws.terminated).toBe(0);
    expect(socket.state).toBe('closing');
    jest.advanceTimersByTime(1);
    expect(ws.terminated).toBe(1);
    expect(socket.state).toBe('closed');
  });

  test('a peer that answers the handshake: closed at once, no ping or close timer left to fire', () => {
    jest.useFakeTimers();
    const { socket, ws } = fakeSocket();
    ws.emit('open', {});
    socket.close();
    ws.emit('close', { code: 1000, reason: '' });
    expect(socket.state).toBe('closed');
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(120_000);
    expect(ws.pings).toBe(0);
    expect(ws.terminated).toBe(0);
  });
});

describe('closing a socket clears its timers (real loopback connection)', () => {
  test('after close(): no heartbeat or close timer of the socket is left', async () => {
    const server = await startResponsesWebSocketServer();
    const timers = trackTimers();
    try {
      const socket = connectResponsesSocket({ url: server.url, apiKey: 'k' }); // default heartbeat: 30 s
      await firstValueFrom(socket.state$.pipe(filter((s) => s === 'open')));
      socket.close();
      await firstValueFrom(socket.state$.pipe(filter((s) => s === 'closed')));
      expect(await timers.leftover()).toEqual([]);
    } finally {
      timers.stop();
      await server.close();
    }
  });

  test('after the server drops the connection: no timer is left either', async () => {
    const server = await startResponsesWebSocketServer();
    const timers = trackTimers();
    try {
      const socket = connectResponsesSocket({ url: server.url, apiKey: 'k' });
      await firstValueFrom(socket.state$.pipe(filter((s) => s === 'open')));
      const ended = lastValueFrom(socket.events$).catch((e: unknown) => e);
      server.dropAll();
      expect(await ended).toBeInstanceOf(WebSocketClosedError);
      expect(await timers.leftover()).toEqual([]);
    } finally {
      timers.stop();
      await server.close();
    }
  });
});

describe('laneMux defaults: at most 16 in flight, 32 lanes', () => {
  test('20 requests on 20 lanes: never more than 16 at the server at once, all complete; a 33rd lane gets a LaneError', async () => {
    // The server itself would allow far more, so what it sees is the client's own limit.
    const server = await startResponsesWebSocketServer({ maxInFlight: 100, maxLanes: 100 });
    const socket = connectResponsesSocket({ url: server.url, apiKey: 'k', heartbeatMs: 0 });
    try {
      const twenty = await lastValueFrom(
        from(Array.from({ length: 20 }, (_, i) => ({ ...create(i, `lane-${i}`), metadata: { loopback_deltas: '20' } }) as ResponsesClientEvent)).pipe(laneMux(socket), toArray()),
      );
      expect(twenty.filter(isLaneError)).toEqual([]);
      expect(twenty.filter((e) => (e as { type: string }).type === 'response.completed')).toHaveLength(20);
      expect(server.counters.maxInFlight).toBe(16);

      const lanes = await lastValueFrom(from(Array.from({ length: 33 }, (_, i) => create(i, `l-${i}`))).pipe(laneMux(socket), toArray()));
      const errors = lanes.filter(isLaneError);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ stream_id: 'l-32' });
      expect(lanes.filter((e) => (e as { type: string }).type === 'response.completed')).toHaveLength(32);
    } finally {
      socket.close();
      await firstValueFrom(socket.state$.pipe(filter((s) => s === 'closed')));
      await server.close();
    }
  }, 60_000);
});
