// What the loopback OpenAI-compatible test server is told (transcripts, faults, pacing) and what it records.
import type { ParsedTranscript } from './transcripts.js';
import type { ResponsesWebSocketServer, ResponsesWebSocketServerOptions } from './ws-server-types.js';

/**
 * What to do to one request instead of (or part-way through) answering it normally.
 * - `drop`: write `afterEvents` whole events and half of the next (or `afterBytes` bytes), then destroy the socket.
 * - `stall`: write `afterEvents` whole events (or `afterBytes` bytes), then send nothing more, keeping the connection open.
 * - `status`: answer `status` with an OpenAI-style JSON error body.
 * - `ok`: answer normally (a placeholder in a script).
 */
export type Fault =
  | { readonly type: 'drop'; readonly afterEvents?: number; readonly afterBytes?: number }
  | { readonly type: 'stall'; readonly afterEvents?: number; readonly afterBytes?: number }
  | {
      readonly type: 'status';
      readonly status: number;
      readonly code?: string | null;
      readonly message?: string;
      readonly errorType?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly type: 'ok' };

export type TestRoute = 'responses.create' | 'responses.stream' | 'responses.retrieve' | 'chat.create' | 'models.list' | 'models.retrieve' | 'unknown';

/** How a request's connection ended. */
export type CloseOutcome = 'completed' | 'client-closed' | 'dropped' | 'server-closed';

/** What the server saw of one request. Header values that carry credentials are redacted. */
export interface RecordedRequest {
  readonly index: number;
  /** Sent back as `x-request-id`. */
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly route: TestRoute;
  readonly transcript: string | undefined;
  readonly fault: Fault | undefined;
  readonly status: number | undefined;
  /** Whole events written. */
  readonly eventsSent: number;
  readonly bytesSent: number;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
  readonly outcome: CloseOutcome | undefined;
  /** Which TCP connection (index into `connections`) carried it. */
  readonly connection: number;
  /**
   * `websocket` for a `response.create` over WebSocket mode (`method` is then `WS`, `body` the client event,
   * `status` 200, or that of a `status` fault, and `eventsSent` counts frames). Absent means HTTP.
   */
  readonly transport?: 'websocket';
  /** The `stream_id` of a WebSocket request, if it named one. */
  readonly lane?: string;
}

export interface RecordedConnection {
  readonly index: number;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
}

export interface TestServerOptions {
  /** Transcripts by name: Responses SSE text, or Chat Completions SSE text (`data:` only, `[DONE]`). */
  readonly transcripts: Readonly<Record<string, string>>;
  /**
   * The transcript when a request names none. A request names one by the header
   * `x-openai-rx-transcript` or by a `model` equal to a transcript name. Default: the first of its kind.
   */
  readonly defaultTranscript?: string;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** Bytes per write. Default: one event per write. */
  readonly chunkSize?: number;
  /** Milliseconds between writes. Default 0. */
  readonly chunkDelayMs?: number;
  /**
   * Faults for the API requests in arrival order (one entry each, `{ type: 'ok' }` for a normal answer),
   * or a function choosing one per request. `inject()` adds more later.
   */
  readonly faults?: readonly Fault[] | ((request: RecordedRequest) => Fault | undefined);
  /** When set, requests must send `Authorization: Bearer <apiKey>`, else 401. */
  readonly apiKey?: string;
  /** Called as each request arrives (for logs, e.g. a CLI). */
  readonly onRequest?: (request: RecordedRequest) => void;
  /** Called when a request's connection closes or its response ends. */
  readonly onClose?: (request: RecordedRequest) => void;
  /**
   * Also speak WebSocket mode at `ws://<host>:<port>/v1/responses` (the loopback WebSocket server, on this
   * port), so that one `baseURL` serves both transports, as the API does. Unless these options say otherwise,
   * a `response.create` gets the Responses transcript chosen as over HTTP (the handshake's
   * `x-openai-rx-transcript` header, the `model`, `defaultTranscript`, the first; a generated answer when there
   * is none), takes its fault from `faults` like an HTTP request, is written with `chunkDelayMs` between frames,
   * and is recorded in `requests` (`transport: 'websocket'`) with `onRequest` / `onClose` called.
   */
  readonly webSocket?: Omit<ResponsesWebSocketServerOptions, 'attach'>;
  /**
   * `POST /v1/chat/completions` when no Chat Completions transcript is named or exists: the Responses
   * transcript chosen as for `/v1/responses`, converted with `toChatChunks({ includeUsage: true })` and
   * `toChatSSE()`. Default `true`; `false` answers 404 instead.
   */
  readonly chatFromResponses?: boolean;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/v1`: pass as `baseURL`. */
  readonly baseURL: string;
  readonly port: number;
  readonly requests: readonly RecordedRequest[];
  readonly connections: readonly RecordedConnection[];
  /** Queues faults for the next requests (before any from `options.faults`). */
  inject(...faults: Fault[]): void;
  /** Drops the queued faults that no request has taken yet; returns how many there were. */
  clearFaults(): number;
  /** Resolves once request `index` (0-based) has arrived. */
  waitForRequest(index: number): Promise<RecordedRequest>;
  /** Resolves once request `index`'s connection has closed or its response has ended. */
  waitForClose(index: number): Promise<RecordedRequest>;
  /** The WebSocket side when `options.webSocket` was given (its `url` is on this server's port). */
  readonly webSocket: ResponsesWebSocketServer | undefined;
  /** Ends every open connection, then stops listening. */
  close(): Promise<void>;
}

// The server's own bookkeeping (not part of the package's API).

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A transcript the server serves, by name. */
export interface Loaded {
  readonly name: string;
  readonly parsed: ParsedTranscript;
}
