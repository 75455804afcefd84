import { type Subscription, timer } from 'rxjs';
import { OpenAIRxError } from '../errors.js';
import type { ResponsesServerEvent } from '../events/websocket.js';
import { LaneError, WebSocketClosedError } from './errors.js';
import { errorOf } from './lane-end.js';
import { LaneQueue } from './lane-queue.js';
import { type Active, DEFAULT_LANE, isControlEvent, isSteered, isTerminal, type Lane, responseIdOf, streamIdOf } from './lane-types.js';
import type { FrameErrorEvent, LaneSocket, SocketEvent } from './types.js';

// The lanes of one socket, shared by every laneMux and socket.response() on it: FIFO per lane and the
// protocol's 16 in flight hold across all of them. This half reads the server's events: each frame reaches
// its lane by one Map lookup on `stream_id`, and its request by response id.

const hubs = new WeakMap<LaneSocket, LaneHub>();

/** The socket's lane hub (one per socket, for its whole life). */
export function laneHubOf(socket: LaneSocket): LaneHub {
  let hub = hubs.get(socket);
  if (!hub) hubs.set(socket, (hub = new LaneHub(socket)));
  return hub;
}

export class LaneHub extends LaneQueue {
  private subscription: Subscription | undefined;

  constructor(private readonly source: LaneSocket) {
    super(source);
  }

  protected listen(): void {
    if (this.subscription || this.end) return;
    const sub = this.source.events$.subscribe({
      next: (e) => this.onEvent(e),
      error: (err: unknown) => this.onEnd(err instanceof OpenAIRxError ? err : new WebSocketClosedError(1006, err instanceof Error ? err.message : 'the socket failed')),
      complete: () => this.onEnd(new WebSocketClosedError(1000, 'closed by the client')),
    });
    // An ended socket answers at once, inside subscribe.
    if (this.end) sub.unsubscribe();
    else this.subscription = sub;
  }

  private onEvent(e: SocketEvent): void {
    if (e.type === 'error') return this.onErrorEvent(e as ResponsesServerEvent);
    if (e.type === 'openai_rx.frame_error') return this.onFrameError(e as FrameErrorEvent);
    const event = e as ResponsesServerEvent;
    const lane = this.lanes.get(streamIdOf(e) ?? DEFAULT_LANE);
    if (!lane) return; // a straggler on an idle lane
    if (isControlEvent(event.type)) return this.onControl(lane, event);
    const a = lane.active;
    if (!a) return;
    if (a.wait) this.waitForMore(lane, a);
    if (!this.ownedBy(a, event)) return;
    const terminal = isTerminal(event.type);
    if (a.suppressed) {
      if (terminal) this.finish(lane, false);
      return;
    }
    a.req.sink.event(event);
    if (lane.active !== a) return; // the socket ended meanwhile
    if (event.type === 'response.in_progress') this.releaseFork(a);
    if (!terminal) return;
    if (a.steerAccepted || isSteered(event)) {
      // The steered target stopped; its successor continues the lane.
      a.steerAccepted = false;
      a.awaitingSuccessor = true;
      a.responseId = undefined;
      return;
    }
    this.finish(lane, true);
  }

  /**
   * Whether a frame belongs to the lane's running response: lifecycle events carry the response id, which
   * binds the response at its first one; an ended or other response's id is a duplicate or a stray.
   */
  private ownedBy(a: Active, e: ResponsesServerEvent): boolean {
    const id = responseIdOf(e);
    const key = streamIdOf(e) ?? DEFAULT_LANE;
    if (id === undefined) return !(a.afterLost && a.responseId === undefined);
    if (this.book.hasEnded(id)) return false;
    if (a.responseId === undefined) {
      // The first lifecycle event of a response (the successor's, after a steer) names it.
      a.responseId = id;
      a.afterLost = a.awaitingSuccessor = a.steerAccepted = false;
      this.book.running(id, key);
    }
    if (id !== a.responseId) return false;
    if (isTerminal(e.type)) this.book.ended(id, key);
    return true;
  }

  private onControl(lane: Lane, event: ResponsesServerEvent): void {
    const a = lane.active;
    if (event.type === 'response.steer.accepted' && a && !a.awaitingSuccessor) a.steerAccepted = true;
    const c = lane.controls.shift();
    if (!c) {
      if (a && !a.suppressed) a.req.sink.event(event);
      return;
    }
    this.controls--;
    c.sink.event(event);
    this.over(c);
    this.release(lane);
    this.stopIfIdle();
  }

  private onErrorEvent(e: ResponsesServerEvent): void {
    const err = errorOf(e);
    const sid = streamIdOf(e);
    if (err.connectionWide) {
      // The connection is over: every running response ends; a new connection can carry on.
      for (const l of [...this.lanes.values()]) if (l.active) this.fail(l, new LaneError(l.streamId, err.code, err.message, true, l.active.req.event, e));
      return;
    }
    const lane = this.lanes.get(sid ?? DEFAULT_LANE);
    const a = lane?.active;
    if (lane && a) return this.fail(lane, new LaneError(lane.streamId, err.code, err.message, err.retryable, a.req.event, e));
    const c = lane?.controls.shift();
    if (lane && c) {
      this.controls--;
      this.over(c, new LaneError(lane.streamId, err.code, err.message, false, c.event, e));
      this.release(lane);
      return this.stopIfIdle();
    }
    this.orphan(sid, new LaneError(sid, err.code, err.message, err.retryable, undefined, e));
  }

  private onFrameError(e: FrameErrorEvent): void {
    const sid = e.stream_id;
    const lane = this.lanes.get(sid ?? DEFAULT_LANE);
    const a = lane?.active;
    // A frame naming no lane may have been any running response's terminal: each waits for more, bounded.
    if (sid === undefined && (e.event_type === undefined || isTerminal(e.event_type))) {
      for (const l of this.lanes.values()) if (l.active && l !== lane) this.waitForMore(l, l.active);
    }
    if (!lane || !a) return this.orphan(sid, new LaneError(sid, 'decode_error', e.error.message, false, undefined, e.error));
    if (!a.suppressed) {
      a.suppressed = true;
      this.over(a.req, new LaneError(lane.streamId, 'decode_error', e.error.message, false, a.req.event, e.error));
      if (lane.active !== a) return;
    }
    if (isTerminal(e.event_type) || e.event_type === 'error') this.finish(lane, false);
    else this.waitForMore(lane, a);
  }

  /** (Re)starts the bounded wait for more of a response that may have lost its terminal frame. */
  private waitForMore(lane: Lane, a: Active): void {
    a.wait?.unsubscribe();
    const ms = a.req.user.terminalTimeoutMs;
    a.wait = timer(ms).subscribe(() => {
      a.wait = undefined;
      if (lane.active !== a) return;
      if (a.responseId !== undefined) this.book.ended(a.responseId, lane.key);
      lane.lost = true;
      const what = `no terminal event within ${ms} ms after a frame that could not be decoded`;
      this.fail(lane, new LaneError(lane.streamId, 'terminal_timeout', what, false, a.req.event));
    });
  }

  protected unlisten(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
