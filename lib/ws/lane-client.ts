import type { ResponsesClientEvent } from '../events/websocket.js';
import { durationMs, positiveInt } from '../options.js';
import { LaneError } from './errors.js';
import { laneHubOf, type LaneHub } from './lane-hub.js';
import { DEFAULT_LANE, DEFAULT_TERMINAL_TIMEOUT, type LaneOptions, type LaneSink, type LaneUser, PROTOCOL_MAX_IN_FLIGHT, streamIdOf } from './lane-types.js';
import type { LaneSocket } from './types.js';
import { checkClientEvent } from './validate.js';

/** @internal Throws the `InvalidOptionError` of a lane option that cannot work. */
export function checkLaneOptions(options: LaneOptions): void {
  positiveInt('maxInFlight', options.maxInFlight);
  positiveInt('maxLanes', options.maxLanes);
  durationMs('terminalTimeoutMs', options.terminalTimeoutMs);
}

/** Where a lane client's errors that belong to no request go. */
export interface LaneClientEvents {
  /** An error that belongs to no pending request of this client (a bad frame on one of its idle lanes). */
  orphan(err: LaneError): void;
  /** The socket ended; every pending request has already been failed. */
  ended(err: Error): void;
  /** A request is over: the client may have become idle. */
  settled(): void;
}

/**
 * One user of a socket's lanes (a `laneMux` subscription, a `socket.response()` call): validates its
 * requests, keeps its own caps, and shares the socket's lanes and in-flight limit with every other user.
 */
export class LaneClient implements LaneUser {
  readonly maxInFlight: number;
  readonly maxLanes: number;
  readonly terminalTimeoutMs: number;
  inFlight = 0;
  pending = 0;
  /** The named lanes this client used, for `maxLanes`; and the default lane, for its errors. */
  private readonly used = new Set<string>();
  private readonly hub: LaneHub;
  private attached: boolean;

  constructor(socket: LaneSocket, options: LaneOptions, private readonly on: LaneClientEvents) {
    checkLaneOptions(options);
    this.maxInFlight = Math.min(options.maxInFlight ?? PROTOCOL_MAX_IN_FLIGHT, PROTOCOL_MAX_IN_FLIGHT);
    this.maxLanes = options.maxLanes ?? 32;
    this.terminalTimeoutMs = options.terminalTimeoutMs ?? socket.terminalTimeoutMs ?? DEFAULT_TERMINAL_TIMEOUT;
    this.hub = laneHubOf(socket);
    // Listen before anything is sent, so no answer is missed.
    this.attached = this.hub.attach(this);
  }

  /** Nothing of this client is queued, running or awaiting an answer. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** Queues (or sends) one client event; a request that cannot go fails at once through `sink`. */
  submit(event: ResponsesClientEvent, sink: LaneSink): void {
    const streamId = streamIdOf(event);
    const invalid = checkClientEvent(event);
    if (invalid) return sink.fail(new LaneError(streamId, invalid.code, invalid.message, false, event, invalid));
    const key = streamId ?? DEFAULT_LANE;
    if (!this.used.has(key)) {
      const named = this.used.size - (this.used.has(DEFAULT_LANE) ? 1 : 0);
      if (streamId !== undefined && named >= this.maxLanes) {
        return sink.fail(new LaneError(streamId, 'websocket_stream_limit_reached', `more than ${this.maxLanes} lanes on one connection`, false, event));
      }
      this.used.add(key);
    }
    this.hub.submit(this, event, sink);
  }

  /** Leaves: queued requests are withdrawn; running responses keep their lanes until they end, unseen. */
  close(): void {
    if (!this.attached) return;
    this.attached = false;
    this.hub.detach(this);
  }

  knows(laneKey: string): boolean {
    return this.used.has(laneKey);
  }

  orphan(err: LaneError): void {
    this.on.orphan(err);
  }

  ended(err: Error): void {
    this.attached = false;
    this.on.ended(err);
  }

  settled(): void {
    this.on.settled();
  }
}
