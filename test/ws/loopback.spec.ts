import { firstValueFrom, from, map, Observable, Subject, toArray, lastValueFrom, filter, take } from 'rxjs';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../../lib/events/websocket';
import { connectResponsesSocket, type ResponsesSocket } from '../../lib/ws/socket';
import { InvalidClientEventError, isLaneError, LaneError, WebSocketClosedError, WebSocketNotOpenError } from '../../lib/ws/errors';
import { startResponsesWebSocketServer, type ResponsesWebSocketServer } from '../../testing/ws-server';
import { laneMux, type LaneMuxOutput } from '../../operators/laneMux';
import { fixture, payloads } from '../helpers/fixtures';

let server: ResponsesWebSocketServer | undefined;
const sockets: ResponsesSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await server?.close();
  server = undefined;
});

async function setup(options: Parameters<typeof startResponsesWebSocketServer>[0] = {}, socketConfig: Parameters<typeof connectResponsesSocket>[0] = {}) {
  server = await startResponsesWebSocketServer(options);
  const socket = connectResponsesSocket({ url: server.url, apiKey: 'sk-loopback-test', ...socketConfig });
  sockets.push(socket);
  return { server, socket };
}

/** Every value, and how it ended. */
function settle<T>(o: Observable<T>): Promise<{ values: T[]; error: unknown; completed: boolean }> {
  return new Promise((resolve) => {
    const values: T[] = [];
    o.subscribe({ next: (v) => values.push(v), error: (error: unknown) => resolve({ values, error, completed: false }), complete: () => resolve({ values, error: undefined, completed: true }) });
  });
}

const create = (lane: string | undefined, tag: string, extra: Record<string, unknown> = {}): ResponsesClientEvent =>
  ({ type: 'response.create', ...(lane === undefined ? {} : { stream_id: lane }), model: 'loopback', input: tag, metadata: { tag }, ...extra }) as ResponsesClientEvent;

const responseOf = (e: LaneMuxOutput) => (e as { response?: { id: string; metadata?: { tag?: string }; incomplete_details?: { reason?: string } | null } }).response;

describe('Responses WebSocket mode over the loopback server', () => {
  test('32 lanes x 5 responses: every lane in order and complete, never more than 16 in flight', async () => {
    const { server, socket } = await setup();
    const requests: ResponsesClientEvent[] = [];
    for (let r = 0; r < 5; r++) for (let l = 0; l < 32; l++) requests.push(create(`lane-${l}`, `lane-${l}/${r}`, { metadata: { tag: `lane-${l}/${r}`, loopback_deltas: String(3 + ((l + r) % 4)) } }));
    const { values, error, completed } = await settle(from(requests).pipe(laneMux(socket)));
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    expect(values.filter(isLaneError)).toEqual([]);

    const byLane = new Map<string, ResponsesServerEvent[]>();
    for (const e of values as ResponsesServerEvent[]) {
      const lane = e.stream_id as string;
      if (!byLane.has(lane)) byLane.set(lane, []);
      byLane.get(lane)!.push(e);
    }
    expect(byLane.size).toBe(32);
    for (let l = 0; l < 32; l++) {
      const events = byLane.get(`lane-${l}`)!;
      // Responses follow each other: created … completed, five times, in request order, sequence numbers 0..n.
      const tags = events.filter((e) => e.type === 'response.created').map((e) => responseOf(e)!.metadata!.tag);
      expect(tags).toEqual([0, 1, 2, 3, 4].map((r) => `lane-${l}/${r}`));
      let expectedSeq = 0;
      let open = false;
      for (const e of events) {
        if (e.type === 'response.created') {
          expect(open).toBe(false);
          open = true;
          expectedSeq = 0;
        }
        expect(open).toBe(true);
        expect(e.sequence_number).toBe(expectedSeq++);
        if (e.type === 'response.completed') open = false;
      }
      expect(open).toBe(false);
      expect(events.filter((e) => e.type === 'response.completed')).toHaveLength(5);
    }
    expect(server.counters.received['response.create']).toBe(160);
    expect(server.counters.maxInFlight).toBeLessThanOrEqual(16);
    expect(server.counters.maxInFlight).toBe(16); // the lanes really ran concurrently
    expect(server.counters.maxLaneDepth).toBe(1); // FIFO: never two responses of one lane at the server
    expect(server.counters.errors).toEqual({});
  });

  test('the Node client authenticates with an Authorization: Bearer header; the URL defaults from baseURL', async () => {
    const { server, socket } = await setup();
    await lastValueFrom(socket.response({ model: 'loopback', input: 'hi' }));
    expect(server.handshakes[0]?.authorization).toBe('Bearer sk-loopback-test');
    const viaBase = connectResponsesSocket({ baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey: 'k' });
    sockets.push(viaBase);
    expect(viaBase.url).toBe(`ws://127.0.0.1:${server.port}/v1/responses`);
    expect(connectResponsesSocket({ baseURL: 'https://example.test/v1/', WebSocket: class { constructor() { throw new Error('no'); } } as never }).url).toBe('wss://example.test/v1/responses');
    const opened = await lastValueFrom(viaBase.response({ model: 'loopback', input: 'hi' }).pipe(toArray()));
    expect(opened.at(-1)?.type).toBe('response.completed');
  });

  test('socket.response() streams one recorded transcript, frame by frame, and completes at its terminal event', async () => {
    const sse = fixture('plain-text');
    const { socket } = await setup({ respond: sse });
    const events = await lastValueFrom(socket.response({ model: 'loopback', input: 'Reply with OK.', stream_id: 'one' }).pipe(toArray()));
    const expected = payloads(sse);
    expect(events.map((e) => e.type)).toEqual(expected.map((e) => e['type']));
    expect(events.every((e) => e.stream_id === 'one')).toBe(true);
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta);
    expect(deltas).toEqual(expected.filter((e) => e['type'] === 'response.output_text.delta').map((e) => e['delta']));
  });

  test('concurrent one-liners on the default lane queue behind each other instead of mixing', async () => {
    const { server, socket } = await setup();
    const runs = await Promise.all(['a', 'b', 'c'].map((tag) => lastValueFrom(socket.response({ model: 'loopback', input: tag, metadata: { tag } }).pipe(toArray()))));
    runs.forEach((events, i) => {
      expect(events[0]?.type).toBe('response.created');
      expect(responseOf(events[0]!)?.metadata?.tag).toBe(['a', 'b', 'c'][i]);
      expect(events.filter((e) => e.type === 'response.created')).toHaveLength(1);
      expect(events.at(-1)?.type).toBe('response.completed');
    });
    expect(server.counters.maxLaneDepth).toBe(1);
  });

  test('a dropped connection fails the in-flight lanes with a typed, retryable error and nothing hangs', async () => {
    const { socket } = await setup({ faults: { dropAfterFrames: 40 } });
    const requests = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((l) => [create(`l${l}`, `a${l}`), create(`l${l}`, `b${l}`)]);
    const { values, error } = await settle(from(requests).pipe(laneMux(socket)));
    expect(error).toBeInstanceOf(WebSocketClosedError);
    expect((error as WebSocketClosedError).closeCode).toBe(1006);
    expect((error as WebSocketClosedError).retryable).toBe(true);
    const laneErrors = values.filter(isLaneError);
    // every lane had a response in flight (8 lanes < 16) and one queued behind it
    expect(new Set(laneErrors.map((e) => e.stream_id)).size).toBe(8);
    expect(laneErrors).toHaveLength(16);
    for (const e of laneErrors) {
      expect(e.code).toBe('websocket_closed');
      expect(e.retryable).toBe(true);
      expect(e.cause).toBe(error);
      expect(JSON.stringify(e)).not.toContain('sk-loopback-test');
      expect(e.message).not.toContain('sk-loopback-test');
    }
    expect(values.filter((e) => !isLaneError(e))).toHaveLength(40);
    await expect(lastValueFrom(socket.response({ model: 'loopback', input: 'late' }))).rejects.toBeInstanceOf(LaneError);
  });

  test('websocket_connection_limit_reached ends every in-flight lane with a retryable typed error', async () => {
    const { socket } = await setup({ faults: { connectionLimitAfterFrames: 10 } });
    const { values, completed } = await settle(from([create('x', 'x'), create('y', 'y')]).pipe(laneMux(socket)));
    // Every request ended (with a LaneError), so the mux completes; the socket then reports the close.
    expect(completed).toBe(true);
    const laneErrors = values.filter(isLaneError);
    expect(laneErrors.map((e) => [e.stream_id, e.code, e.retryable]).sort()).toEqual([
      ['x', 'websocket_connection_limit_reached', true],
      ['y', 'websocket_connection_limit_reached', true],
    ]);
    const { error } = await settle(socket.events$);
    expect(error).toBeInstanceOf(WebSocketClosedError);
    expect((error as WebSocketClosedError).errorCode).toBe('websocket_connection_limit_reached');
    expect((error as WebSocketClosedError).retryable).toBe(true);
  });

  test('a malformed frame fails its lane only; the other lanes complete', async () => {
    const { socket } = await setup({ faults: { malformedAfterFrames: 20 } });
    const lanes = ['p', 'q', 'r', 's'];
    const { values, error, completed } = await settle(from(lanes.flatMap((l) => [create(l, `${l}1`), create(l, `${l}2`)])).pipe(laneMux(socket)));
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    const laneErrors = values.filter(isLaneError);
    expect(laneErrors).toHaveLength(1);
    expect(laneErrors[0]!.code).toBe('decode_error');
    const failed = laneErrors[0]!.stream_id;
    for (const l of lanes) {
      const done = values.filter((e) => !isLaneError(e) && e.stream_id === l && e.type === 'response.completed').length;
      // the failed lane lost one response (its events were dropped up to its terminal event), then went on
      expect(done).toBe(l === failed ? 1 : 2);
    }
  });

  test('steering: accepted continues the lane with the successor; pending and failed are surfaced', async () => {
    const { server, socket } = await setup();
    const requests = new Subject<ResponsesClientEvent>();
    const all = settle(requests.pipe(laneMux(socket)));
    // Drive it from the events: steer the held response once it is created.
    const held = create('s', 'held', { metadata: { tag: 'held', loopback_hold: 'true' } });
    const firstId = firstValueFrom(socket.events$.pipe(filter((e) => e.type === 'response.created'), take(1), map((e) => responseOf(e as LaneMuxOutput)!.id)));
    requests.next(held);
    requests.next(create('s', 'after'));
    const id = await firstId;
    requests.next({ type: 'response.steer', stream_id: 's', previous_response_id: id, input: [{ role: 'user', content: 'shorter please' }] } as ResponsesClientEvent);
    // wait for the lane to finish both responses, then steer a finished response and an unknown one
    await firstValueFrom(socket.events$.pipe(filter((e) => e.type === 'response.completed' && responseOf(e as LaneMuxOutput)?.metadata?.tag === 'after')));
    requests.next({ type: 'response.steer', stream_id: 's', previous_response_id: id, input: [] } as ResponsesClientEvent);
    requests.next({ type: 'response.steer', stream_id: 's', previous_response_id: 'resp_unknown', input: [{ role: 'user', content: 'x' }] } as ResponsesClientEvent);
    requests.complete();
    const { values: out, error, completed } = await all;
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    const types = out.map((e) => e.type);
    expect(types).toContain('response.steer.accepted');
    expect(types.filter((t) => t.startsWith('response.steer.'))).toEqual(['response.steer.accepted', 'response.steer.pending', 'response.steer.failed']);
    // held: created, in_progress, then cut (incomplete: steered), the successor, and only then "after"
    const lifecycle = out.filter((e) => e.type === 'response.created' || e.type === 'response.incomplete' || e.type === 'response.completed');
    expect(lifecycle.map((e) => [e.type, responseOf(e)?.metadata?.tag ?? responseOf(e)?.incomplete_details?.reason])).toEqual([
      ['response.created', 'held'],
      ['response.incomplete', 'steered'],
      ['response.created', undefined],
      ['response.completed', undefined],
      ['response.created', 'after'],
      ['response.completed', 'after'],
    ]);
    expect(server.counters.steers).toEqual({ accepted: 1, pending: 1, failed: 1 });
    const failed = out.find((e) => e.type === 'response.steer.failed') as { steer?: { input?: unknown } };
    expect(failed.steer?.input).toEqual([{ role: 'user', content: 'x' }]); // the input comes back
    expect(server.counters.maxLaneDepth).toBe(1);
  });

  test('warm-up with generate:false, then a chained response; an unknown previous_response_id is a lane error', async () => {
    const { server, socket } = await setup();
    const warm = await lastValueFrom(socket.response({ model: 'loopback', generate: false, stream_id: 'w' }).pipe(toArray()));
    expect(warm.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
    const id = responseOf(warm[0]!)!.id;
    const chained = await lastValueFrom(socket.response({ model: 'loopback', input: 'go', stream_id: 'w', previous_response_id: id }).pipe(toArray()));
    expect(chained.at(-1)?.type).toBe('response.completed');
    const err = await lastValueFrom(socket.response({ model: 'loopback', input: 'go', stream_id: 'w', previous_response_id: 'resp_nope' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaneError);
    expect((err as LaneError).code).toBe('previous_response_not_found');
    expect(server.counters.warmups).toBe(1);
  });

  test('the server’s 32-lane limit reaches the 33rd lane as websocket_stream_limit_reached; the others carry on', async () => {
    const { socket } = await setup();
    const { values, completed } = await settle(from(Array.from({ length: 34 }, (_, i) => create(`n${i}`, `t${i}`))).pipe(laneMux(socket, { maxLanes: 40 })));
    expect(completed).toBe(true);
    const errs = values.filter(isLaneError);
    expect(errs.map((e) => [e.stream_id, e.code])).toEqual([['n32', 'websocket_stream_limit_reached'], ['n33', 'websocket_stream_limit_reached']]);
    expect(values.filter((e) => e.type === 'response.completed')).toHaveLength(32);
  });

  test('heartbeats detect a dead peer: the connection ends with a retryable 1006', async () => {
    const { socket } = await setup({ autoPong: false }, { heartbeatMs: 40 });
    const { error } = await settle(socket.events$);
    expect(error).toBeInstanceOf(WebSocketClosedError);
    expect((error as WebSocketClosedError).closeCode).toBe(1006);
    expect((error as WebSocketClosedError).retryable).toBe(true);
  });

  test('send validates client events, queues until open, and refuses once closed; close() completes events$ and state$', async () => {
    const { socket } = await setup();
    expect(() => socket.send({ type: 'response.create', stream_id: 'bad id!' } as ResponsesClientEvent)).toThrow(InvalidClientEventError);
    expect(() => socket.send({ type: 'response.create', stream_id: 'x'.repeat(257) } as ResponsesClientEvent)).toThrow(expect.objectContaining({ code: 'invalid_stream_id' }));
    expect(() => socket.send({ type: 'response.bogus' } as unknown as ResponsesClientEvent)).toThrow(InvalidClientEventError);
    const states = settle(socket.state$);
    const events = settle(socket.events$);
    expect(socket.state).toBe('connecting');
    socket.send(create(undefined, 'queued'));
    await firstValueFrom(socket.events$.pipe(filter((e) => e.type === 'response.completed')));
    socket.close();
    expect(() => socket.send(create(undefined, 'late'))).toThrow(WebSocketNotOpenError);
    expect((await states).values).toEqual(['connecting', 'open', 'closing', 'closed']);
    const ev = await events;
    expect(ev.completed).toBe(true);
    expect(ev.values[0]?.type).toBe('response.created');
  });
});
