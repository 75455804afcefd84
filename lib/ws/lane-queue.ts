import { OpenAIRxError } from '../errors.js';
import type { ResponsesClientEvent } from '../events/websocket.js';
import { LaneError } from './errors.js';
import { ResponseBook } from './lane-book.js';
import { endOf, type SocketEnd } from './lane-end.js';
import {
  type Active, DEFAULT_LANE, type Lane, type LaneRequest, type LaneSink, type LaneUser, NOOP_SINK, PROTOCOL_MAX_IN_FLIGHT, streamIdOf,
} from './lane-types.js';
import type { LaneSocket } from './types.js';

// The queueing half of a socket's lanes: who waits, who runs, and the in-flight slots. A lane stays busy
// until its running response is over (its terminal event, an error, or a bounded give-up), whoever sent it.

export abstract class LaneQueue {
  protected readonly lanes = new Map<string, Lane>();
  /** Lanes with queued requests. */
  protected readonly waiting = new Set<Lane>();
  protected readonly users = new Set<LaneUser>();
  protected readonly book = new ResponseBook();
  protected inFlight = 0;
  protected controls = 0;
  protected end: SocketEnd | undefined;
  private seq = 0;

  constructor(private readonly socket: LaneSocket) {}

  /** Starts / stops reading the socket's events. */
  protected abstract listen(): void;
  protected abstract unlisten(): void;

  /** Adds a user and listens to the socket. `false` when the socket has ended (the user was told). */
  attach(user: LaneUser): boolean {
    if (!this.end) {
      this.users.add(user);
      this.listen();
    }
    if (this.end) {
      this.users.delete(user);
      user.ended(this.end.error);
      return false;
    }
    return true;
  }

  /**
   * The user left: its queued requests are withdrawn; its running responses run on unseen and keep their
   * lanes (and their in-flight slots) until their terminal events, so nobody else receives their rest.
   */
  detach(user: LaneUser): void {
    if (!this.users.delete(user)) return;
    for (const lane of [...this.lanes.values()]) {
      for (let i = lane.queue.length - 1; i >= 0; i--) {
        const r = lane.queue[i]!;
        if (r.user !== user) continue;
        lane.queue.splice(i, 1);
        this.quietlyOver(r);
      }
      if (lane.queue.length === 0) this.waiting.delete(lane);
      if (lane.active?.req.user === user) this.quietlyOver(lane.active.req);
      for (const c of lane.controls) if (c.user === user) this.quietlyOver(c);
      this.release(lane);
    }
    this.schedule();
    this.stopIfIdle();
  }

  /** Queues (or sends) one validated request of `user`. */
  submit(user: LaneUser, event: ResponsesClientEvent, sink: LaneSink): void {
    const streamId = streamIdOf(event);
    const req: LaneRequest = { seq: this.seq++, event, user, sink, over: false };
    user.pending++;
    if (this.end || !this.users.has(user)) {
      const message = this.end ? `not sent: ${this.end.error.message}` : 'not sent: the requester left';
      this.over(req, new LaneError(streamId, this.end?.code ?? 'websocket_closed', message, this.end?.retryable ?? false, event, this.end?.error));
      return;
    }
    const lane = this.laneFor(streamId ?? DEFAULT_LANE, streamId);
    if (event.type === 'response.create') {
      lane.queue.push(req);
      this.waiting.add(lane);
      this.schedule();
      return;
    }
    // Steer and inject act on a running response: they skip the lane's queue.
    lane.controls.push(req);
    this.controls++;
    if (!this.send(lane, req)) {
      lane.controls.splice(lane.controls.indexOf(req), 1);
      this.controls--;
      this.release(lane);
    }
  }

  protected laneFor(key: string, streamId: string | undefined): Lane {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { key, streamId, queue: [], active: undefined, blockers: 0, controls: [], lost: false }));
    return lane;
  }

  /** Stops listening once nobody uses the socket's lanes and no response is still running on them. */
  protected stopIfIdle(): void {
    if (this.users.size > 0 || this.inFlight > 0 || this.controls > 0 || this.waiting.size > 0) return;
    this.unlisten();
  }

  protected send(lane: Lane, req: LaneRequest): boolean {
    try {
      this.socket.send(req.event);
      return true;
    } catch (e) {
      const code = e instanceof OpenAIRxError ? e.code : 'send_failed';
      this.over(req, new LaneError(lane.streamId, code, e instanceof Error ? e.message : 'send failed', false, req.event, e));
      return false;
    }
  }

  /** Sends queued heads, oldest first, while the socket and their users have room in flight. */
  protected schedule(): void {
    while (!this.end && this.inFlight < PROTOCOL_MAX_IN_FLIGHT) {
      let best: Lane | undefined;
      for (const lane of this.waiting) {
        if (lane.active || lane.blockers > 0) continue;
        const head = lane.queue[0]!;
        if (head.user.inFlight >= head.user.maxInFlight) continue;
        if (!best || head.seq < best.queue[0]!.seq) best = lane;
      }
      if (!best) return;
      const req = best.queue.shift()!;
      if (best.queue.length === 0) this.waiting.delete(best);
      if (!this.send(best, req)) {
        this.release(best);
        continue;
      }
      const a: Active = { req, responseId: undefined, forkParent: undefined, steerAccepted: false, awaitingSuccessor: false, suppressed: false, afterLost: best.lost, wait: undefined };
      best.lost = false;
      const prev = (req.event as { previous_response_id?: unknown }).previous_response_id;
      const parentKey = typeof prev === 'string' ? this.book.laneOf(prev) : undefined;
      if (parentKey !== undefined && parentKey !== best.key) {
        const parent = this.laneFor(parentKey, parentKey === DEFAULT_LANE ? undefined : parentKey);
        parent.blockers++;
        a.forkParent = parent;
      }
      best.active = a;
      this.inFlight++;
      req.user.inFlight++;
    }
  }

  /** Ends the lane's running response with an error (unless it already failed) and moves the lane on. */
  protected fail(lane: Lane, err: LaneError): void {
    const a = lane.active!;
    if (!a.suppressed) {
      a.suppressed = true;
      this.over(a.req, err);
    }
    this.finish(lane, false);
  }

  /** The running response is over: free its slot and let the lane (and others) advance. */
  protected finish(lane: Lane, notify: boolean): void {
    const a = lane.active;
    if (!a || this.end) return;
    lane.active = undefined;
    a.wait?.unsubscribe();
    this.inFlight--;
    a.req.user.inFlight--;
    this.releaseFork(a);
    if (notify) this.over(a.req);
    this.release(lane);
    this.schedule();
    this.stopIfIdle();
  }

  /** A request is over: it failed (`err`) or ended. Its user hears of it, then may find itself idle. */
  protected over(req: LaneRequest, err?: LaneError): void {
    if (req.over) return;
    const sink = req.sink;
    this.quietlyOver(req);
    if (err) sink.fail(err);
    else sink.done();
    req.user.settled();
  }

  protected quietlyOver(req: LaneRequest): void {
    req.sink = NOOP_SINK;
    if (req.over) return;
    req.over = true;
    req.user.pending--;
  }

  protected releaseFork(a: Active): void {
    const parent = a.forkParent;
    if (!parent) return;
    a.forkParent = undefined;
    parent.blockers--;
    this.release(parent);
    if (parent.blockers === 0 && parent.queue.length > 0) this.schedule();
  }

  /** Forgets an idle lane: the hub holds only lanes with something running, queued or remembered. */
  protected release(lane: Lane): void {
    if (lane.active || lane.queue.length > 0 || lane.controls.length > 0 || lane.blockers > 0 || lane.lost) return;
    if (this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
  }

  /** An error for no pending request: every user who used that lane hears of it (every user, if it names none). */
  protected orphan(sid: string | undefined, err: LaneError): void {
    for (const u of [...this.users]) if (sid === undefined || u.knows(sid)) u.orphan(err);
  }

  /** The connection is gone: every pending request gets a `LaneError` carrying why, then every user is told. */
  protected onEnd(error: OpenAIRxError): void {
    if (this.end) return;
    const end = (this.end = endOf(error));
    const pending: Array<[Lane, LaneRequest, string]> = [];
    for (const lane of this.lanes.values()) {
      const a = lane.active;
      a?.wait?.unsubscribe();
      if (a && !a.suppressed) pending.push([lane, a.req, error.message]);
      for (const c of lane.controls) pending.push([lane, c, error.message]);
      for (const q of lane.queue) pending.push([lane, q, `not sent: ${error.message}`]);
    }
    this.lanes.clear();
    this.waiting.clear();
    this.inFlight = this.controls = 0;
    this.unlisten();
    for (const [lane, req, message] of pending) {
      if (req.over) continue;
      const sink = req.sink;
      this.quietlyOver(req);
      sink.fail(new LaneError(lane.streamId, end.code, message, end.retryable, req.event, error));
    }
    const users = [...this.users];
    this.users.clear();
    for (const u of users) u.ended(error);
  }
}
