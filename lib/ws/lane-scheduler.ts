import type { Subscription } from 'rxjs';
import { OpenAIRxError } from '../errors.js';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import { LaneError, WebSocketClosedError } from './errors.js';
import type { FrameErrorEvent, LaneSocket, SocketEvent } from './types.js';
import { checkClientEvent } from './validate.js';

// The lane bookkeeping behind `laneMux` and `streamResponseOverSocket`. Frames reach their lane by one Map
// lookup on `stream_id`; only scheduling decisions (a request arrives, a response ends) look at several lanes.

/** Where one request's outcome goes. */
export interface LaneSink {
  /** A server event of this request's lane (its response, or the answer to a steer/inject). */
  event(e: ResponsesServerEvent): void;
  /** The request failed (not sent, refused, undecodable frame, connection lost): it is over. */
  fail(err: LaneError): void;
  /** The response reached its terminal event (after any steered successors), or the steer/inject was answered. */
  done(): void;
}

export interface LaneSchedulerOptions {
  /** Responses in flight at once across lanes (the protocol allows 16). */
  readonly maxInFlight?: number;
  /** Distinct named lanes (the protocol allows 32 per connection). */
  readonly maxLanes?: number;
}

interface Settings {
  readonly maxInFlight: number;
  readonly maxLanes: number;
  /** Forget a lane as soon as it is idle (one-shot requests) instead of keeping it for the scheduler's life. */
  readonly releaseIdleLanes: boolean;
  /** An error that belongs to no pending request (e.g. a bad frame on an idle lane). */
  readonly onOrphan: (err: LaneError) => void;
  /** The socket's events ended; every pending request has already been failed. */
  readonly onSocketEnd: (err: WebSocketClosedError) => void;
  /** Called whenever the scheduler may have become idle. */
  readonly onSettled: () => void;
}

export interface LaneRequest {
  readonly seq: number;
  readonly event: ResponsesClientEvent;
  sink: LaneSink;
}

interface Active {
  readonly req: LaneRequest;
  /** Another lane that may not advance until this response is `in_progress` (a fork by `previous_response_id`). */
  forkParent: Lane | undefined;
  /** A steer was accepted: the terminal event ahead belongs to the steered target, not to the lane's end. */
  steerAccepted: boolean;
  /** Between a steered target's terminal event and its successor's `response.created`. */
  awaitingSuccessor: boolean;
  /** A frame of this response could not be decoded: it has been failed; the rest is dropped until its terminal. */
  suppressed: boolean;
}

interface Lane {
  readonly key: string;
  readonly streamId: string | undefined;
  readonly queue: LaneRequest[];
  active: Active | undefined;
  /** Forks of this lane's response that are not `in_progress` yet. */
  blockers: number;
  /** Steers/injects sent on this lane and not answered yet, in order. */
  readonly controls: LaneRequest[];
}

const DEFAULT_LANE = '';
const CONNECTION_LIMIT = 'websocket_connection_limit_reached';
const MAX_REMEMBERED_RESPONSES = 1024;
const NOOP_SINK: LaneSink = { event() {}, fail() {}, done() {} };

const CONTROL_EVENTS = new Set(['response.steer.accepted', 'response.steer.pending', 'response.steer.failed', 'response.inject.created', 'response.inject.failed']);

function isSteered(e: ResponsesServerEvent): boolean {
  if (e.type !== 'response.incomplete') return false;
  const r = (e as { response?: { incomplete_details?: { reason?: unknown } | null } }).response;
  return r?.incomplete_details?.reason === 'steered';
}

export class LaneScheduler {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with queued requests. */
  private readonly waiting = new Set<Lane>();
  /** Response id → the lane that produced it (bounded), to recognise forks. */
  private readonly responseLanes = new Map<string, Lane>();
  private namedLanes = 0;
  private inFlight = 0;
  private controls = 0;
  private seq = 0;
  private subscription: Subscription | undefined;
  private running = false;
  private ended = false;

  constructor(
    private readonly socket: LaneSocket,
    private readonly settings: Settings,
  ) {}

  static settings(options: LaneSchedulerOptions, rest: Omit<Settings, 'maxInFlight' | 'maxLanes'>): Settings {
    return { maxInFlight: options.maxInFlight ?? 16, maxLanes: options.maxLanes ?? 32, ...rest };
  }

  get idle(): boolean {
    return this.inFlight === 0 && this.waiting.size === 0 && this.controls === 0;
  }

  start(): void {
    if (this.running || this.ended) return;
    this.running = true;
    const sub = this.socket.events$.subscribe({
      next: (e) => this.onEvent(e),
      error: (err: unknown) => this.onEnd(err instanceof WebSocketClosedError ? err : new WebSocketClosedError(1006, err instanceof Error ? err.message : 'the socket failed')),
      complete: () => this.onEnd(new WebSocketClosedError(1000, 'closed by the client')),
    });
    if (this.running) this.subscription = sub;
    else sub.unsubscribe();
  }

  /** Stops listening and forgets every lane and queued request (nothing more is sent). */
  stop(): void {
    this.running = false;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.lanes.clear();
    this.waiting.clear();
    this.responseLanes.clear();
    this.namedLanes = this.inFlight = this.controls = 0;
  }

  get stopped(): boolean {
    return !this.running;
  }

  /** Queues (or sends) one request. Returns it, for `cancel`, or `undefined` when it failed at once. */
  submit(event: ResponsesClientEvent, sink: LaneSink): LaneRequest | undefined {
    const streamId = typeof (event as { stream_id?: unknown })?.stream_id === 'string' ? (event as { stream_id: string }).stream_id : undefined;
    if (this.ended) {
      sink.fail(new LaneError(streamId, 'websocket_closed', 'the socket is closed', false, event));
      return undefined;
    }
    const invalid = checkClientEvent(event);
    if (invalid) {
      sink.fail(new LaneError(streamId, invalid.code, invalid.message, false, event, invalid));
      return undefined;
    }
    const key = streamId ?? DEFAULT_LANE;
    let lane = this.lanes.get(key);
    if (!lane) {
      if (streamId !== undefined && this.namedLanes >= this.settings.maxLanes) {
        sink.fail(new LaneError(streamId, 'websocket_stream_limit_reached', `more than ${this.settings.maxLanes} lanes on one connection`, false, event));
        return undefined;
      }
      lane = { key, streamId, queue: [], active: undefined, blockers: 0, controls: [] };
      this.lanes.set(key, lane);
      if (streamId !== undefined) this.namedLanes++;
    }
    const req: LaneRequest = { seq: this.seq++, event, sink };
    if (event.type === 'response.create') {
      lane.queue.push(req);
      this.waiting.add(lane);
      this.schedule();
    } else {
      // Steer and inject act on a running response: they skip the lane's queue.
      lane.controls.push(req);
      this.controls++;
      if (!this.trySend(lane, req)) {
        lane.controls.pop();
        this.controls--;
        this.release(lane);
      }
    }
    return req;
  }

  /** The caller lost interest: a queued request is dropped, a running one runs on unseen (its lane stays busy). */
  cancel(req: LaneRequest): void {
    req.sink = NOOP_SINK;
    const lane = this.lanes.get((req.event as { stream_id?: string }).stream_id ?? DEFAULT_LANE);
    if (!lane) return;
    const i = lane.queue.indexOf(req);
    if (i >= 0) {
      lane.queue.splice(i, 1);
      if (lane.queue.length === 0) this.waiting.delete(lane);
      this.release(lane);
    }
    this.settings.onSettled();
  }

  private trySend(lane: Lane, req: LaneRequest): boolean {
    try {
      this.socket.send(req.event);
      return true;
    } catch (e) {
      const code = e instanceof OpenAIRxError ? e.code : 'send_failed';
      req.sink.fail(new LaneError(lane.streamId, code, e instanceof Error ? e.message : 'send failed', false, req.event, e));
      return false;
    }
  }

  /** Sends queued heads, oldest first, while there is room in flight. */
  private schedule(): void {
    while (this.running && this.inFlight < this.settings.maxInFlight) {
      let best: Lane | undefined;
      for (const lane of this.waiting) {
        if (lane.active || lane.blockers > 0) continue;
        if (!best || lane.queue[0]!.seq < best.queue[0]!.seq) best = lane;
      }
      if (!best) return;
      const req = best.queue.shift()!;
      if (best.queue.length === 0) this.waiting.delete(best);
      if (!this.trySend(best, req)) {
        this.release(best);
        continue;
      }
      const active: Active = { req, forkParent: undefined, steerAccepted: false, awaitingSuccessor: false, suppressed: false };
      const prev = (req.event as { previous_response_id?: unknown }).previous_response_id;
      if (typeof prev === 'string') {
        const parent = this.responseLanes.get(prev);
        if (parent && parent !== best) {
          parent.blockers++;
          active.forkParent = parent;
        }
      }
      best.active = active;
      this.inFlight++;
    }
  }

  private onEvent(e: SocketEvent): void {
    const sid = e.stream_id;
    const lane = this.lanes.get(typeof sid === 'string' ? sid : DEFAULT_LANE);
    if (e.type === 'error') {
      this.onErrorEvent(lane, e as ResponsesServerEvent);
      return;
    }
    if (!lane) {
      // Another user's lane on a shared socket, unless the frame names no lane at all.
      if (e.type === 'openai_rx.frame_error' && sid === undefined) {
        const f = e as FrameErrorEvent;
        this.settings.onOrphan(new LaneError(undefined, 'decode_error', f.error.message, false, undefined, f.error));
      }
      return;
    }
    if (e.type === 'openai_rx.frame_error') {
      this.onFrameError(lane, e as FrameErrorEvent);
      return;
    }
    const event = e as ResponsesServerEvent;
    if (CONTROL_EVENTS.has(event.type)) {
      const a = lane.active;
      if (event.type === 'response.steer.accepted' && a && !a.awaitingSuccessor) a.steerAccepted = true;
      const c = lane.controls.shift();
      if (c) this.controls--;
      (c ?? a?.req)?.sink.event(event);
      if (c) {
        c.sink.done();
        this.release(lane);
        this.settings.onSettled();
      }
      return;
    }
    const a = lane.active;
    if (!a) return; // a straggler after the lane's request was failed
    const terminal = event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'response.failed';
    if (a.suppressed) {
      if (terminal) this.finish(lane, false);
      return;
    }
    a.req.sink.event(event);
    if (!this.running) return;
    switch (event.type) {
      case 'response.created': {
        if (a.awaitingSuccessor) {
          a.awaitingSuccessor = false;
          a.steerAccepted = false;
        }
        const id = (event as { response?: { id?: unknown } }).response?.id;
        if (typeof id === 'string') this.remember(id, lane);
        return;
      }
      case 'response.in_progress':
        this.releaseFork(a);
        return;
      default:
        if (!terminal) return;
        if (a.steerAccepted || isSteered(event)) {
          // The steered target stopped; its successor continues the lane.
          a.steerAccepted = false;
          a.awaitingSuccessor = true;
          return;
        }
        this.finish(lane, true);
    }
  }

  private onErrorEvent(lane: Lane | undefined, e: ResponsesServerEvent): void {
    const body = e as { stream_id?: string; status?: number; error?: { code?: string | null; message?: string }; code?: string | null; message?: string };
    const code = body.error?.code ?? body.code ?? 'error';
    const message = body.error?.message ?? body.message ?? 'error';
    if (code === CONNECTION_LIMIT && body.stream_id === undefined) {
      // Connection-wide: every running response is over; a new connection can carry on.
      for (const l of this.lanes.values()) {
        const a = l.active;
        if (a && !a.suppressed) this.fail(l, new LaneError(l.streamId, code, message, true, a.req.event, e));
      }
      return;
    }
    if (!lane) {
      if (body.stream_id === undefined) this.settings.onOrphan(new LaneError(undefined, code, message, false, undefined, e));
      return;
    }
    const a = lane.active;
    const err = new LaneError(lane.streamId, code, message, code === CONNECTION_LIMIT, a?.req.event, e);
    if (a && !a.suppressed) this.fail(lane, err);
    else if (a) this.finish(lane, false);
    else if (lane.controls.length > 0) {
      const c = lane.controls.shift()!;
      this.controls--;
      c.sink.fail(new LaneError(lane.streamId, code, message, false, c.event, e));
      this.release(lane);
      this.settings.onSettled();
    } else this.settings.onOrphan(err);
  }

  private onFrameError(lane: Lane, e: FrameErrorEvent): void {
    const a = lane.active;
    const err = new LaneError(lane.streamId, 'decode_error', e.error.message, false, a?.req.event, e.error);
    if (!a || a.suppressed) {
      if (!a) this.settings.onOrphan(err);
    } else {
      a.suppressed = true;
      a.req.sink.fail(err);
      if (!this.running) return;
    }
    const t = e.event_type;
    if (a && (t === 'response.completed' || t === 'response.incomplete' || t === 'response.failed' || t === 'error')) this.finish(lane, false);
    this.settings.onSettled();
  }

  /** Ends the lane's running response with an error and moves the lane on. */
  private fail(lane: Lane, err: LaneError): void {
    const a = lane.active!;
    a.suppressed = true;
    a.req.sink.fail(err);
    this.finish(lane, false);
  }

  /** The running response is over: free its slot and let the lane (and others) advance. */
  private finish(lane: Lane, notify: boolean): void {
    const a = lane.active;
    if (!a || !this.running) return;
    lane.active = undefined;
    this.inFlight--;
    this.releaseFork(a);
    if (notify) a.req.sink.done();
    if (!this.running) return;
    this.release(lane);
    this.schedule();
    this.settings.onSettled();
  }

  private releaseFork(a: Active): void {
    const parent = a.forkParent;
    if (!parent) return;
    a.forkParent = undefined;
    parent.blockers--;
    if (parent.blockers === 0 && parent.queue.length > 0) this.schedule();
  }

  private remember(id: string, lane: Lane): void {
    this.responseLanes.delete(id);
    this.responseLanes.set(id, lane);
    if (this.responseLanes.size > MAX_REMEMBERED_RESPONSES) {
      const oldest = this.responseLanes.keys().next();
      if (!oldest.done) this.responseLanes.delete(oldest.value);
    }
  }

  /** Forgets an idle lane when lanes are per request (shared one-shot use). */
  private release(lane: Lane): void {
    if (!this.settings.releaseIdleLanes) return;
    if (lane.active || lane.queue.length > 0 || lane.controls.length > 0 || lane.blockers > 0) return;
    if (this.lanes.get(lane.key) !== lane) return;
    this.lanes.delete(lane.key);
    if (lane.streamId !== undefined) this.namedLanes--;
  }

  /** The connection is gone: every pending request gets a `LaneError` carrying the close code. */
  private onEnd(closed: WebSocketClosedError): void {
    if (this.ended) return;
    this.ended = true;
    const code = closed.errorCode ?? closed.code;
    const pending: Array<[Lane, LaneRequest, string]> = [];
    for (const lane of this.lanes.values()) {
      if (lane.active && !lane.active.suppressed) pending.push([lane, lane.active.req, closed.message]);
      for (const c of lane.controls) pending.push([lane, c, closed.message]);
      for (const q of lane.queue) pending.push([lane, q, `not sent: ${closed.message}`]);
    }
    this.stop();
    for (const [lane, req, message] of pending) req.sink.fail(new LaneError(lane.streamId, code, message, closed.retryable, req.event, closed));
    this.settings.onSocketEnd(closed);
  }
}
