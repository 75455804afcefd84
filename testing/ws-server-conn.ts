// The loopback WebSocket server's own bookkeeping, apart from its public types: these name `ws`'s WebSocket,
// whose types (@types/ws) a consumer of openai-rx/testing does not have, so no public declaration may import this file.
import type { IncomingHttpHeaders } from 'node:http';
import type { WebSocket } from 'ws';
import type { RawFrame } from './ws-server-frames.js';
import type { WebSocketResponseRecord } from './ws-server-types.js';

export type MutableRecord = { -readonly [K in keyof WebSocketResponseRecord]: WebSocketResponseRecord[K] };

export interface Run {
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

export interface Conn {
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
