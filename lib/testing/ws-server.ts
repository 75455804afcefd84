// A loopback Responses WebSocket server (ws on 127.0.0.1, random port) that speaks WebSocket mode well
// enough to test clients against: lanes by `stream_id`, FIFO per lane, concurrent lanes with the 16-in-flight
// and 32-lane limits, steering with a successor, `generate: false` warm-up, recorded transcripts, faults and
// counters. Node only: it imports `ws` statically.
import type { IncomingHttpHeaders, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { transcriptEvents } from './transcript-events.js';

/** How to answer a `response.create`: SSE transcript text, or the event payloads themselves. */
export type ResponsePlan = string | ReadonlyArray<Record<string, unknown>>;

export interface WebSocketServerFaults {
  /** Drop each connection (no close frame: the client sees 1006) after it has sent this many frames. */
  readonly dropAfterFrames?: number;
  /** After this many frames, send one malformed frame that names the lane of the next frame. */
  readonly malformedAfterFrames?: number;
  /** After this many frames, send `websocket_connection_limit_reached` and close the connection. */
  readonly connectionLimitAfterFrames?: number;
}

/**
 * What to do to one `response.create` instead of answering it normally (the WebSocket side of `Fault`):
 * - `drop`: send `afterEvents` frames of the response (or as many whole frames as fit in `afterBytes`), then
 *   drop the connection without a close frame (the client sees 1006).
 * - `stall`: send that many frames, then nothing more for this response (the connection stays open).
 * - `status`: answer with an `error` event carrying `status` and an OpenAI-style `error` object instead.
 * - `ok`: answer normally.
 */
export type WebSocketResponseFault =
  | { readonly type: 'drop'; readonly afterEvents?: number; readonly afterBytes?: number }
  | { readonly type: 'stall'; readonly afterEvents?: number; readonly afterBytes?: number }
  | { readonly type: 'status'; readonly status: number; readonly code?: string | null; readonly message?: string; readonly errorType?: string }
  | { readonly type: 'ok' };

/** What the server did with one `response.create` (warm-ups included). */
export interface WebSocketResponseRecord {
  /** 0-based, in the order the responses started. */
  readonly index: number;
  /** Which connection (0-based, in the order they opened). */
  readonly connection: number;
  readonly lane: string | undefined;
  /** The client event as received. */
  readonly request: Record<string, unknown>;
  /** The connection's handshake headers (credentials included: redact before logging). */
  readonly headers: IncomingHttpHeaders;
  readonly responseId: string;
  readonly fault: WebSocketResponseFault | undefined;
  readonly framesSent: number;
  readonly bytesSent: number;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
  /** `completed` once its last frame went out; otherwise how its connection ended first. */
  readonly outcome: 'completed' | 'dropped' | 'client-closed' | 'server-closed' | undefined;
}

export interface ResponsesWebSocketServerOptions {
  /**
   * The answer to each `response.create` (its response id is replaced by a fresh one, and `stream_id` added).
   * Default: a generated text response with `metadata.loopback_deltas` deltas (default 5), echoing the
   * request's `metadata`. `metadata.loopback_hold: "true"` pauses it after `response.in_progress` until steered.
   * Per-request faults, also in `metadata`: `loopback_duplicate_terminal: "true"` sends the terminal frame twice;
   * `loopback_bad_terminal: "anonymous"` replaces it with a cut frame that names no lane, `"untyped"` with one
   * that names its lane but no type; `loopback_invalid_utf8: "text" | "binary"` sends the first delta with an
   * invalid UTF-8 byte in it, as a text or binary frame; `loopback_big_frame: "<n>"` pads the first delta to
   * at least n bytes.
   */
  readonly respond?: ResponsePlan | ((request: Record<string, unknown>, index: number, record: WebSocketResponseRecord) => ResponsePlan | undefined);
  /** A fault for each `response.create` (not for `generate: false` warm-ups); `undefined` answers normally. */
  readonly fault?: (request: Record<string, unknown>, record: WebSocketResponseRecord) => WebSocketResponseFault | undefined;
  /** Milliseconds between the frames of a response. Default 0 (one frame per response per turn of the event loop). */
  readonly chunkDelay?: number;
  /** Called as each response starts (before its fault and answer are chosen). */
  readonly onResponseStart?: (record: WebSocketResponseRecord) => void;
  /** Called once each started response has sent its last frame, or its connection ended first. */
  readonly onResponseEnd?: (record: WebSocketResponseRecord) => void;
  /** Responses run at once per connection (the protocol's 16); more are queued server-side and counted. */
  readonly maxInFlight?: number;
  /** Named lanes per connection (the protocol's 32); one more is `websocket_stream_limit_reached`. */
  readonly maxLanes?: number;
  readonly faults?: WebSocketServerFaults;
  /** Answer pings (default true); `false` simulates a dead peer for heartbeat tests. */
  readonly autoPong?: boolean;
  /**
   * Take the upgrade requests of this (listening) HTTP server at `path` instead of listening on a port of
   * its own, so one origin serves SSE and WebSocket mode as the API does. `close()` leaves the server open.
   */
  readonly attach?: { readonly server: Server; readonly path: string };
}

export interface WebSocketServerCounters {
  connections: number;
  /** Frames sent to clients (all connections). */
  frames: number;
  /** Client events received, by type. */
  received: Record<string, number>;
  /** Most `response.create`s received and not yet finished on one connection at once: what the client sent. */
  maxInFlight: number;
  /** Most unfinished `response.create`s in one lane at once (1 means the client kept lanes FIFO). */
  maxLaneDepth: number;
  /** Error codes sent. */
  errors: Record<string, number>;
  warmups: number;
  steers: { accepted: number; pending: number; failed: number };
}

export interface ResponsesWebSocketServer {
  /** `ws://127.0.0.1:<port>/v1/responses` (on a port of its own any path is accepted; attached, only `path`). */
  readonly url: string;
  readonly port: number;
  readonly counters: WebSocketServerCounters;
  /** The handshake headers of every connection, in order (to check authentication). */
  readonly handshakes: IncomingHttpHeaders[];
  /** Drops every connection now (no close frame). */
  dropAll(): void;
  /** Terminates every client and stops listening. */
  close(): Promise<void>;
}

const STREAM_ID = /^[A-Za-z0-9_.-]{1,256}$/;

/** A frame sent as raw bytes (to test how clients take bytes that are not UTF-8). */
interface RawFrame {
  readonly bytes: Uint8Array;
  readonly binary: boolean;
}

type MutableRecord = { -readonly [K in keyof WebSocketResponseRecord]: WebSocketResponseRecord[K] };

interface Run {
  id: string;
  readonly record: MutableRecord;
  /** Drop the connection once this many frames of the run went out (a `drop` fault). */
  dropAt: number | undefined;
  readonly lane: string | undefined;
  frames: Array<string | RawFrame>;
  next: number;
  /** Frames sent before the run pauses for a steer (`loopback_hold`). */
  holdAt: number | undefined;
}

interface Conn {
  readonly ws: WebSocket;
  readonly index: number;
  readonly headers: IncomingHttpHeaders;
  /** The server dropped it on purpose (a fault): its unfinished responses were `dropped`. */
  droppedByFault: boolean;
  timer: NodeJS.Timeout | undefined;
  readonly lanes: Map<string, { queue: Array<Record<string, unknown>>; run: Run | undefined; depth: number }>;
  readonly named: Set<string>;
  readonly known: Set<string>;
  readonly active: Map<string, Run>;
  running: number;
  waiting: string[];
  received: number;
  frames: number;
  pumping: boolean;
  dead: boolean;
}

function resp(id: string, status: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { id, object: 'response', created_at: 1758200000, status, model: 'loopback', output: [], usage: null, error: null, incomplete_details: null, ...extra };
}

/** A plain text response: created → in_progress → message → N deltas → done → completed. */
function textEvents(id: string, deltas: number, extra: Record<string, unknown>): Array<Record<string, unknown>> {
  const item = `msg_${id}`;
  const text = Array.from({ length: deltas }, (_, i) => `d${i} `);
  const message = { id: item, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: text.join(''), annotations: [], logprobs: [] }] };
  const out: Array<Record<string, unknown>> = [
    { type: 'response.created', response: resp(id, 'in_progress', extra) },
    { type: 'response.in_progress', response: resp(id, 'in_progress', extra) },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: item, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
    ...text.map((d) => ({ type: 'response.output_text.delta', item_id: item, output_index: 0, content_index: 0, delta: d, logprobs: [] })),
    { type: 'response.output_text.done', item_id: item, output_index: 0, content_index: 0, text: text.join(''), logprobs: [] },
    { type: 'response.content_part.done', item_id: item, output_index: 0, content_index: 0, part: message.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response: resp(id, 'completed', { ...extra, output: [message] }) },
  ];
  return out.map((e, i) => ({ ...e, sequence_number: i }));
}

function frame(e: Record<string, unknown>, lane: string | undefined): string {
  return JSON.stringify(lane === undefined ? e : { ...e, stream_id: lane });
}

/** Applies the `loopback_*` fault controls of a request's metadata to its frames. */
function withFaults(frames: string[], metadata: Record<string, unknown>): Array<string | RawFrame> {
  const out: Array<string | RawFrame> = [...frames];
  const delta = frames.findIndex((f) => f.startsWith('{"type":"response.output_text.delta"'));
  const big = Number(metadata['loopback_big_frame'] ?? 0);
  if (big > 0 && delta >= 0) {
    const e = JSON.parse(frames[delta]!) as Record<string, unknown>;
    out[delta] = JSON.stringify({ ...e, delta: `${String(e['delta'])}${'x'.repeat(big)}` });
  }
  const utf8 = metadata['loopback_invalid_utf8'];
  if ((utf8 === 'text' || utf8 === 'binary') && delta >= 0) {
    const [head, tail] = frames[delta]!.split('"delta":"');
    const enc = new TextEncoder();
    out[delta] = { bytes: new Uint8Array([...enc.encode(`${head}"delta":"`), 0xc3, 0x28, 0xff, ...enc.encode(tail ?? '')]), binary: utf8 === 'binary' };
  }
  const last = frames.length - 1;
  const terminal = frames[last];
  if (terminal === undefined) return out;
  const bad = metadata['loopback_bad_terminal'];
  // The loopback puts `stream_id` last, so a cut frame loses it; "untyped" keeps the lane and drops the type.
  if (bad === 'anonymous') out[last] = terminal.slice(0, terminal.indexOf('"response":') + 20);
  else if (bad === 'untyped') out[last] = `{"stream_id":${JSON.stringify(/"stream_id":"([^"]*)"/.exec(terminal)?.[1] ?? '')},"response":`;
  if (metadata['loopback_duplicate_terminal'] === 'true') out.push(out[last]!);
  return out;
}

/** Starts the server on 127.0.0.1 and a random port. */
export async function startResponsesWebSocketServer(options: ResponsesWebSocketServerOptions = {}): Promise<ResponsesWebSocketServer> {
  const maxInFlight = options.maxInFlight ?? 16;
  const maxLanes = options.maxLanes ?? 32;
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
  const delay = Math.max(0, options.chunkDelay ?? 0);

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
