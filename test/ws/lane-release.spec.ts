// A lane is free only once the response on it has really ended at the server: a requester that leaves
// mid-response must not hand the rest of its response to the next request on that lane, whoever sends it
// (laneMux or socket.response()), and every user of one socket shares the protocol's 16 in flight.
import { from, lastValueFrom, Observable, take, toArray } from 'rxjs';
import type { ResponsesClientEvent } from '../../lib/events/websocket';
import { connectResponsesSocket, type ResponsesSocket } from '../../lib/ws/socket';
import { isLaneError } from '../../lib/ws/errors';
import { startResponsesWebSocketServer, type ResponsesWebSocketServer } from '../../testing/ws-server';
import { laneMux, type LaneMuxOutput } from '../../operators/laneMux';

let server: ResponsesWebSocketServer | undefined;
const sockets: ResponsesSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await server?.close();
  server = undefined;
});

async function setup() {
  server = await startResponsesWebSocketServer();
  const socket = connectResponsesSocket({ url: server.url, apiKey: 'sk-loopback-test', heartbeatMs: 0 });
  sockets.push(socket);
  return { server, socket };
}

const create = (lane: string | undefined, tag: string, deltas: number, extra: Record<string, string> = {}): ResponsesClientEvent =>
  ({ type: 'response.create', ...(lane === undefined ? {} : { stream_id: lane }), model: 'loopback', input: tag, metadata: { tag, loopback_deltas: String(deltas), ...extra } }) as ResponsesClientEvent;

const responseOf = (e: LaneMuxOutput) => (e as { response?: { id: string; metadata?: { tag?: string } } }).response;

/** Subscribes, and unsubscribes at the first text delta (mid-response). */
function leaveAtFirstDelta(o: Observable<LaneMuxOutput>): Promise<void> {
  return new Promise((resolve, reject) => {
    const sub = o.subscribe({
      next: (e) => {
        if (e.type === 'response.output_text.delta') {
          sub.unsubscribe();
          resolve();
        }
      },
      error: reject,
      complete: () => reject(new Error('completed before its first delta')),
    });
  });
}

/** Exactly one response, the one tagged `tag`, with its own `deltas` deltas. */
function expectOwnResponse(events: LaneMuxOutput[], tag: string, deltas: number): void {
  expect(events.filter(isLaneError)).toEqual([]);
  const types = events.map((e) => e.type);
  expect(types[0]).toBe('response.created');
  expect(responseOf(events[0]!)?.metadata?.tag).toBe(tag);
  expect(types.filter((t) => t === 'response.created')).toHaveLength(1);
  expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(deltas);
  expect(types.at(-1)).toBe('response.completed');
  expect(responseOf(events.at(-1)!)?.id).toBe(responseOf(events[0]!)?.id);
}

describe('leaving mid-response keeps the lane until that response ends', () => {
  test('laneMux, then another laneMux on the same lane', async () => {
    const { socket } = await setup();
    await leaveAtFirstDelta(from([create('x', 'first', 40)]).pipe(laneMux(socket)));
    const second = await lastValueFrom(from([create('x', 'second', 3)]).pipe(laneMux(socket), toArray()));
    expectOwnResponse(second, 'second', 3);
  });

  test('laneMux, then socket.response() on the same lane', async () => {
    const { socket } = await setup();
    await leaveAtFirstDelta(from([create('x', 'first', 40)]).pipe(laneMux(socket)));
    const second = await lastValueFrom(socket.response({ model: 'loopback', input: 'second', stream_id: 'x', metadata: { tag: 'second', loopback_deltas: '3' } }).pipe(toArray()));
    expectOwnResponse(second, 'second', 3);
  });

  test('socket.response(), then laneMux on the default lane', async () => {
    const { socket } = await setup();
    await lastValueFrom(socket.response({ model: 'loopback', input: 'first', metadata: { tag: 'first', loopback_deltas: '40' } }).pipe(take(4), toArray()));
    const second = await lastValueFrom(from([create(undefined, 'second', 3)]).pipe(laneMux(socket), toArray()));
    expectOwnResponse(second, 'second', 3);
  });

  test('the next request of the lane is sent only after the old terminal: the server never holds two on one lane', async () => {
    const { server, socket } = await setup();
    await leaveAtFirstDelta(from([create('x', 'first', 40)]).pipe(laneMux(socket)));
    await lastValueFrom(from([create('x', 'second', 3)]).pipe(laneMux(socket), toArray()));
    expect(server.counters.maxLaneDepth).toBe(1);
  });
});

test('two laneMux on one socket together never exceed 16 responses in flight', async () => {
  const { server, socket } = await setup();
  const batch = (prefix: string) => from(Array.from({ length: 16 }, (_, i) => create(`${prefix}${i}`, `${prefix}${i}`, 4))).pipe(laneMux(socket), toArray());
  const [a, b] = await Promise.all([lastValueFrom(batch('a')), lastValueFrom(batch('b'))]);
  for (const out of [a, b]) {
    expect(out.filter(isLaneError)).toEqual([]);
    expect(out.filter((e) => e.type === 'response.completed')).toHaveLength(16);
  }
  expect(server.counters.maxInFlight).toBeLessThanOrEqual(16);
});

test('a duplicated terminal frame does not complete the next socket.response() on the lane', async () => {
  const { socket } = await setup();
  const first = lastValueFrom(socket.response({ model: 'loopback', input: 'a', metadata: { tag: 'a', loopback_deltas: '2', loopback_duplicate_terminal: 'true' } }).pipe(toArray()));
  const second = lastValueFrom(socket.response({ model: 'loopback', input: 'b', metadata: { tag: 'b', loopback_deltas: '2' } }).pipe(toArray()));
  expectOwnResponse(await first, 'a', 2);
  expectOwnResponse(await second, 'b', 2);
});
