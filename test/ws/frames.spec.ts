// Frames the client cannot take: bytes that are not UTF-8 fail their lane with a DecodeError (never a
// replacement character, never the whole connection); a frame over maxFrameSize is a non-retryable
// LimitExceededError; a terminal frame that cannot be decoded holds its lane at most terminalTimeoutMs.
import { from, lastValueFrom, type Observable, toArray } from 'rxjs';
import type { ResponsesClientEvent } from '../../lib/events/websocket';
import { DecodeError, LimitExceededError } from '../../lib/errors';
import { connectResponsesSocket, type ResponsesSocket, type ResponsesSocketConfig } from '../../lib/ws/socket';
import { isLaneError, LaneError } from '../../lib/ws/errors';
import { startResponsesWebSocketServer, type ResponsesWebSocketServer } from '../../testing/ws-server';
import { laneMux } from '../../operators/laneMux';

let server: ResponsesWebSocketServer | undefined;
const sockets: ResponsesSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await server?.close();
  server = undefined;
});

async function setup(config: ResponsesSocketConfig = {}) {
  server = await startResponsesWebSocketServer();
  const socket = connectResponsesSocket({ url: server.url, apiKey: 'sk-loopback-test', heartbeatMs: 0, ...config });
  sockets.push(socket);
  return { server, socket };
}

function settle<T>(o: Observable<T>): Promise<{ values: T[]; error: unknown; completed: boolean }> {
  return new Promise((resolve) => {
    const values: T[] = [];
    o.subscribe({ next: (v) => values.push(v), error: (error: unknown) => resolve({ values, error, completed: false }), complete: () => resolve({ values, error: undefined, completed: true }) });
  });
}

const create = (lane: string, tag: string, faults: Record<string, string> = {}): ResponsesClientEvent =>
  ({ type: 'response.create', stream_id: lane, model: 'loopback', input: tag, metadata: { tag, loopback_deltas: '3', ...faults } }) as ResponsesClientEvent;

const completedTags = (values: unknown[]) =>
  values.filter((e) => (e as { type?: string }).type === 'response.completed').map((e) => (e as { response: { metadata: { tag: string } } }).response.metadata.tag);

describe('invalid UTF-8', () => {
  test('in a text frame: a DecodeError on its lane; the connection and the other lanes carry on', async () => {
    const { socket } = await setup();
    const requests = [create('u', 'u1', { loopback_invalid_utf8: 'text' }), create('v', 'v1'), create('u', 'u2')];
    const { values, error, completed } = await settle(from(requests).pipe(laneMux(socket)));
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    const errors = values.filter(isLaneError);
    expect(errors.map((e) => [e.stream_id, e.code])).toEqual([['u', 'decode_error']]);
    expect(errors[0]!.cause).toBeInstanceOf(DecodeError);
    expect((errors[0]!.cause as DecodeError).eventType).toBe('response.output_text.delta');
    expect(errors[0]!.message).toMatch(/UTF-8/);
    expect(completedTags(values).sort()).toEqual(['u2', 'v1']);
    expect(JSON.stringify(values)).not.toContain('\uFFFD');
    expect(socket.state).toBe('open');
  });

  test('in a binary frame: socket.response() errors with a decode_error LaneError, not a replacement character', async () => {
    const { socket } = await setup();
    const err = await lastValueFrom(socket.response({ model: 'loopback', input: 'b', stream_id: 'b', metadata: { loopback_invalid_utf8: 'binary' } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaneError);
    expect((err as LaneError).code).toBe('decode_error');
    expect((err as LaneError).cause).toBeInstanceOf(DecodeError);
    // the lane moved on at the response's terminal event
    const next = await lastValueFrom(socket.response({ model: 'loopback', input: 'c', stream_id: 'b' }).pipe(toArray()));
    expect(next.at(-1)?.type).toBe('response.completed');
  });
});

describe('maxFrameSize', () => {
  test('a frame over it ends the connection with a non-retryable LimitExceededError, not a 1006', async () => {
    const { socket } = await setup({ maxFrameSize: 4096 });
    const events = settle(socket.events$);
    const { values, error } = await settle(from([create('big', 'big', { loopback_big_frame: '10000' })]).pipe(laneMux(socket)));
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe('maxFrameSize');
    expect((error as LimitExceededError).max).toBe(4096);
    expect((error as LimitExceededError).retryable).toBe(false);
    const laneErrors = values.filter(isLaneError);
    expect(laneErrors.map((e) => [e.stream_id, e.code, e.retryable])).toEqual([['big', 'limit_exceeded', false]]);
    expect((await events).error).toBeInstanceOf(LimitExceededError);
  });

  test('a frame within it passes', async () => {
    const { socket } = await setup({ maxFrameSize: 64 * 1024 });
    const out = await lastValueFrom(socket.response({ model: 'loopback', input: 'x', metadata: { loopback_big_frame: '10000' } }).pipe(toArray()));
    expect(out.at(-1)?.type).toBe('response.completed');
  });
});

describe('a terminal frame that cannot be decoded', () => {
  test('naming no lane: the lane waits terminalTimeoutMs, then a terminal_timeout LaneError, and its queue moves on', async () => {
    const { socket } = await setup({ terminalTimeoutMs: 100 });
    const requests = [create('x', 'x1', { loopback_bad_terminal: 'anonymous' }), create('x', 'x2')];
    const { values, completed } = await settle(from(requests).pipe(laneMux(socket)));
    expect(completed).toBe(true);
    expect(values.filter(isLaneError).map((e) => [e.stream_id, e.code])).toEqual([[undefined, 'decode_error'], ['x', 'terminal_timeout']]);
    expect(completedTags(values)).toEqual(['x2']);
  });

  test('naming its lane but no type: the request fails at once, and the next one on the lane runs after terminalTimeoutMs', async () => {
    const { socket } = await setup({ terminalTimeoutMs: 100 });
    const err = await lastValueFrom(socket.response({ model: 'loopback', input: 'y', stream_id: 'y', metadata: { loopback_bad_terminal: 'untyped' } })).catch((e: unknown) => e);
    expect((err as LaneError).code).toBe('decode_error');
    const next = await lastValueFrom(socket.response({ model: 'loopback', input: 'y2', stream_id: 'y', metadata: { tag: 'y2' } }).pipe(toArray()));
    expect(completedTags(next)).toEqual(['y2']);
  });
});

test('a WebSocket without maxPayload (a browser’s, a relay’s): a text frame over maxFrameSize is refused by the client itself', async () => {
  const closes: Array<number | undefined> = [];
  class PlainSocket {
    readyState = 0;
    private readonly listeners = new Map<string, Array<(ev: unknown) => void>>();
    constructor(readonly url: string) {}
    addEventListener(type: string, l: (ev: unknown) => void): void {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
    }
    send(): void {}
    close(code?: number): void {
      closes.push(code);
      this.emit('close', { code: code ?? 1005, reason: '' });
    }
    emit(type: string, ev: unknown): void {
      for (const l of this.listeners.get(type) ?? []) l(ev);
    }
  }
  let ws: PlainSocket | undefined;
  const Ctor = class extends PlainSocket {
    constructor(url: string) {
      super(url);
      ws = this;
    }
  };
  const socket = connectResponsesSocket({ url: 'ws://plain.invalid/v1/responses', WebSocket: Ctor as never, maxFrameSize: 100, closeTimeoutMs: 50 });
  const events = settle(socket.events$);
  ws!.emit('open', {});
  ws!.emit('message', { data: JSON.stringify({ type: 'response.output_text.delta', delta: 'x'.repeat(200) }) });
  const { values, error } = await events;
  expect(values).toEqual([]);
  expect(error).toBeInstanceOf(LimitExceededError);
  expect((error as LimitExceededError).limit).toBe('maxFrameSize');
  expect(closes).toEqual([1009]);
  expect(socket.state).toBe('closed');
});
