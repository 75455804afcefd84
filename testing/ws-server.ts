// A loopback Responses WebSocket server (ws on 127.0.0.1, random port) that speaks WebSocket mode well
// enough to test clients against: lanes by `stream_id`, FIFO per lane, concurrent lanes with the 16-in-flight
// and 32-lane limits, steering with a successor, `generate: false` warm-up, recorded transcripts, faults and
// counters. Node only: it imports `ws` statically.
import type { IncomingHttpHeaders } from 'node:http';
import type { WebSocketServer as WsServer } from 'ws';
import { loadPeer } from '../lib/peer.js';
import { durationMs, positiveInt } from '../lib/options.js';
import { transcriptEvents } from './transcript-events.js';
import { frame, resp, textEvents, withFaults, type RawFrame } from './ws-server-frames.js';
import type { Conn, MutableRecord, Run } from './ws-server-conn.js';
import type { ResponsesWebSocketServer, ResponsesWebSocketServerOptions, WebSocketResponseRecord, WebSocketServerCounters } from './ws-server-types.js';

export type {
  ResponsePlan, ResponsesWebSocketServer, ResponsesWebSocketServerOptions, WebSocketResponseFault, WebSocketResponseRecord, WebSocketServerCounters,
  WebSocketServerFaults,
} from './ws-server-types.js';

const STREAM_ID = /^[A-Za-z0-9_.-]{1,256}$/;

/** Starts the server on 127.0.0.1 and a random port. */
export async function startResponsesWebSocketServer(options: ResponsesWebSocketServerOptions = {}): Promise<ResponsesWebSocketServer> {
  const maxInFlight = positiveInt('maxInFlight', options.maxInFlight, 16);
  const maxLanes = positiveInt('maxLanes', options.maxLanes, 32);
  durationMs('chunkDelayMs', options.chunkDelayMs);
  // ws is an optional peer: loaded here, so that openai-rx/testing's SSE servers work without it.
  const { WebSocketServer } = (await loadPeer('ws', 'startResponsesWebSocketServer')) as { WebSocketServer: typeof WsServer };
  const faults = options.faults ?? {};
  const counters: WebSocketServerCounters = {
    connections: 0, frames: 0, received: {}, maxInFlight: 0, maxLaneDepth: 0, errors: {}, warmups: 0,
    steers: { accepted: 0, pending: 0, failed: 0 },
  };
  const handshakes: IncomingHttpHeaders[] = [];
  const conns = new Set<Conn>();
  let responses = 0;
  let started = 0;
  let connections = 0;
  let closed = false;
  const delay = durationMs('chunkDelayMs', options.chunkDelayMs, 0);

  const attach = options.attach;
  const wss = attach
    ? new WebSocketServer({ server: attach.server, path: attach.path, autoPong: options.autoPong ?? true })
    : new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: options.autoPong ?? true });
  if (!attach) {
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
  }
  const address = (attach?.server ?? wss).address();
  if (typeof address !== 'object' || address === null) throw new Error('the WebSocket server is not listening');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `ws://${host}:${address.port}${attach?.path ?? '/v1/responses'}`;

  const send = (c: Conn, text: string | RawFrame): void => {
    if (c.dead) return;
    if (typeof text === 'string') c.ws.send(text);
    else c.ws.send(text.bytes, { binary: text.binary });
    c.frames++;
    counters.frames++;
    if (faults.dropAfterFrames !== undefined && c.frames >= faults.dropAfterFrames) {
      c.dead = true;
      c.droppedByFault = true;
      c.ws.terminate();
    }
  };

  const sendError = (c: Conn, code: string, message: string, lane: string | undefined, status = 400): void => {
    counters.errors[code] = (counters.errors[code] ?? 0) + 1;
    const e: Record<string, unknown> = { type: 'error', status, error: { type: 'invalid_request_error', code, message, param: null } };
    if (lane !== undefined) e['stream_id'] = lane;
    send(c, JSON.stringify(e));
  };

  const planOf = (request: Record<string, unknown>, id: string, record: WebSocketResponseRecord): Array<Record<string, unknown>> => {
    const metadata = (request['metadata'] ?? {}) as Record<string, unknown>;
    const extra = { metadata, previous_response_id: request['previous_response_id'] ?? null };
    if (request['generate'] === false) {
      counters.warmups++;
      return [
        { type: 'response.created', response: resp(id, 'in_progress', extra), sequence_number: 0 },
        { type: 'response.completed', response: resp(id, 'completed', extra), sequence_number: 1 },
      ];
    }
    const r = options.respond;
    const plan = typeof r === 'function' ? r(request, responses, record) : r;
    if (plan === undefined) return textEvents(id, Number(metadata['loopback_deltas'] ?? 5), extra);
    return typeof plan === 'string' ? transcriptEvents(plan, id) : plan.map((e) => ({ ...e }));
  };

  const start = (c: Conn, lane: string | undefined, request: Record<string, unknown>): void => {
    const id = `resp_ws${++responses}`;
    const record: MutableRecord = {
      index: started++, connection: c.index, lane, request, headers: c.headers, responseId: id, fault: undefined,
      framesSent: 0, bytesSent: 0, openedAt: Date.now(), closedAt: undefined, outcome: undefined,
    };
    options.onResponseStart?.(record);
    const fault = request['generate'] === false ? undefined : options.fault?.(request, record);
    record.fault = fault;
    const metadata = (request['metadata'] ?? {}) as Record<string, unknown>;
    let frames: Array<string | RawFrame>;
    let holdAt: number | undefined;
    let dropAt: number | undefined;
    if (fault?.type === 'status') {
      const code = fault.code !== undefined ? fault.code : fault.status === 429 ? 'rate_limit_exceeded' : fault.status >= 500 ? 'server_error' : null;
      counters.errors[code ?? String(fault.status)] = (counters.errors[code ?? String(fault.status)] ?? 0) + 1;
      const e = { type: 'error', status: fault.status, error: { type: fault.errorType ?? (fault.status >= 500 ? 'server_error' : 'invalid_request_error'), code, message: fault.message ?? `HTTP ${fault.status} (test server fault)`, param: null } };
      frames = [frame(e, lane)];
    } else {
      const events = planOf(request, id, record);
      frames = withFaults(events.map((e) => frame(e, lane)), metadata);
      holdAt = metadata['loopback_hold'] === 'true' ? Math.min(2, events.length - 1) : undefined;
      if (fault?.type === 'drop' || fault?.type === 'stall') {
        let k = Math.max(0, fault.afterEvents ?? 0);
        if (fault.afterBytes !== undefined) {
          let bytes = 0;
          k = 0;
          for (const f of frames) {
            bytes += typeof f === 'string' ? Buffer.byteLength(f) : f.bytes.byteLength;
            if (bytes > fault.afterBytes) break;
            k++;
          }
        }
        if (fault.type === 'drop') dropAt = k;
        else holdAt = Math.min(holdAt ?? Infinity, k);
      }
    }
    const run: Run = { id, lane, next: 0, frames, holdAt, record, dropAt };
    c.lanes.get(lane ?? '')!.run = run;
    c.active.set(id, run);
    c.known.add(id);
    c.running++;
    pump(c);
  };

  const ended = (run: Run, outcome: NonNullable<WebSocketResponseRecord['outcome']>): void => {
    if (run.record.outcome !== undefined) return;
    run.record.outcome = outcome;
    run.record.closedAt = Date.now();
    options.onResponseEnd?.(run.record);
  };

  const finish = (c: Conn, run: Run): void => {
    ended(run, 'completed');
    const key = run.lane ?? '';
    const lane = c.lanes.get(key)!;
    lane.run = undefined;
    lane.depth--;
    c.received--;
    c.running--;
    c.active.delete(run.id);
    if (lane.queue.length > 0) c.waiting.push(key);
    startWaiting(c);
  };

  const startWaiting = (c: Conn): void => {
    while (c.running < maxInFlight && c.waiting.length > 0) {
      const key = c.waiting.shift()!;
      const lane = c.lanes.get(key)!;
      if (lane.run) continue;
      const request = lane.queue.shift();
      if (request) start(c, key === '' ? undefined : key, request);
    }
  };

  // One frame per running response per turn of the event loop, so lanes interleave.
  const pump = (c: Conn): void => {
    if (c.pumping) return;
    c.pumping = true;
    const tick = (): void => {
      if (closed || c.dead) {
        c.pumping = false;
        return;
      }
      for (const run of [...c.active.values()]) {
        if (run.holdAt !== undefined && run.next >= run.holdAt) continue;
        if (run.dropAt !== undefined && run.next >= run.dropAt) {
          c.dead = true;
          c.droppedByFault = true;
          c.ws.terminate();
          return;
        }
        const text = run.frames[run.next++];
        if (text === undefined) continue;
        if (faults.malformedAfterFrames !== undefined && c.frames === faults.malformedAfterFrames) {
          send(c, `{"type":"response.output_text.delta","stream_id":${JSON.stringify(run.lane ?? '')},"delta":`);
        }
        if (faults.connectionLimitAfterFrames !== undefined && c.frames >= faults.connectionLimitAfterFrames) {
          sendError(c, 'websocket_connection_limit_reached', 'the connection reached its 60-minute limit', undefined);
          c.dead = true;
          c.droppedByFault = true;
          c.ws.close(1000, 'connection limit reached');
          return;
        }
        send(c, text);
        run.record.framesSent++;
        run.record.bytesSent += typeof text === 'string' ? Buffer.byteLength(text) : text.bytes.byteLength;
        if (c.dead) return;
        if (run.next >= run.frames.length) finish(c, run);
      }
      c.pumping = false;
      for (const r of c.active.values()) {
        if (r.holdAt === undefined || r.next < r.holdAt) return pump(c);
      }
    };
    if (delay > 0) c.timer = setTimeout(tick, delay);
    else setImmediate(tick);
  };

  const onCreate = (c: Conn, request: Record<string, unknown>): void => {
    const sid = request['stream_id'];
    if (sid !== undefined && (typeof sid !== 'string' || !STREAM_ID.test(sid))) {
      sendError(c, 'invalid_stream_id', 'stream_id must be 1-256 characters of [A-Za-z0-9_.-]', undefined);
      return;
    }
    const lane = sid as string | undefined;
    const key = lane ?? '';
    if (lane !== undefined && !c.named.has(lane)) {
      if (c.named.size >= maxLanes) {
        sendError(c, 'websocket_stream_limit_reached', `at most ${maxLanes} streams per connection`, lane);
        return;
      }
      c.named.add(lane);
    }
    const prev = request['previous_response_id'];
    if (typeof prev === 'string' && !c.known.has(prev)) {
      sendError(c, 'previous_response_not_found', `previous response ${prev} not found on this connection`, lane);
      return;
    }
    let l = c.lanes.get(key);
    if (!l) c.lanes.set(key, (l = { queue: [], run: undefined, depth: 0 }));
    l.depth++;
    counters.maxLaneDepth = Math.max(counters.maxLaneDepth, l.depth);
    c.received++;
    counters.maxInFlight = Math.max(counters.maxInFlight, c.received);
    l.queue.push(request);
    if (!l.run) c.waiting.push(key);
    startWaiting(c);
  };

  const onSteer = (c: Conn, request: Record<string, unknown>): void => {
    const lane = typeof request['stream_id'] === 'string' ? request['stream_id'] : undefined;
    const target = String(request['previous_response_id']);
    const steer = { previous_response_id: target, input: request['input'] };
    const run = c.active.get(target);
    if (run && run.next < run.frames.length - 1) {
      counters.steers.accepted++;
      send(c, frame({ type: 'response.steer.accepted', steer }, lane));
      const successor = `resp_ws${++responses}`;
      const cut = frame({ type: 'response.incomplete', response: resp(target, 'incomplete', { incomplete_details: { reason: 'steered' } }), sequence_number: run.next }, run.lane);
      const rest = textEvents(successor, 3, { previous_response_id: target }).map((e) => frame(e, run.lane));
      run.frames = [...run.frames.slice(0, run.next), cut, ...rest];
      run.holdAt = undefined;
      c.active.delete(target);
      run.id = successor;
      c.active.set(successor, run);
      c.known.add(successor);
      pump(c);
    } else if (c.known.has(target)) {
      counters.steers.pending++;
      send(c, frame({ type: 'response.steer.pending', steer, reason: 'waiting_for_required_input', required_input: [] }, lane));
    } else {
      counters.steers.failed++;
      send(c, frame({ type: 'response.steer.failed', steer, error: { code: 'previous_response_not_found', message: `response ${target} not found` } }, lane));
    }
  };

  wss.on('connection', (ws, req) => {
    counters.connections++;
    handshakes.push(req.headers);
    const c: Conn = { ws, index: connections++, headers: req.headers, droppedByFault: false, timer: undefined, lanes: new Map(), named: new Set(), known: new Set(), active: new Map(), running: 0, waiting: [], received: 0, frames: 0, pumping: false, dead: false };
    conns.add(c);
    ws.on('close', () => {
      c.dead = true;
      clearTimeout(c.timer);
      conns.delete(c);
      for (const run of c.active.values()) ended(run, c.droppedByFault ? 'dropped' : closed ? 'server-closed' : 'client-closed');
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        sendError(c, 'invalid_json', 'the client event is not JSON', undefined);
        return;
      }
      const type = String(m['type']);
      counters.received[type] = (counters.received[type] ?? 0) + 1;
      if (type === 'response.create') onCreate(c, m);
      else if (type === 'response.steer') onSteer(c, m);
      else if (type === 'response.inject') send(c, frame({ type: 'response.inject.created', response_id: m['response_id'] }, m['stream_id'] as string | undefined));
      else sendError(c, 'unknown_event', `unknown client event ${type}`, undefined);
    });
  });

  return {
    url,
    port: address.port,
    counters,
    handshakes,
    dropAll() {
      for (const c of conns) {
        c.dead = true;
        c.droppedByFault = true;
        c.ws.terminate();
      }
    },
    async close() {
      closed = true;
      for (const c of conns) {
        clearTimeout(c.timer);
        c.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
