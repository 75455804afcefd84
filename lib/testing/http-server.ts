import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../decode/responses-sse.js';
import { toChatChunks } from '../../operators/toChatChunks.js';
import { toChatSSE } from '../../operators/toChatSSE.js';
import { finalResponseOf, parseTranscript, sequenceOf, type ParsedTranscript } from './transcripts.js';
import {
  startResponsesWebSocketServer, type ResponsesWebSocketServer, type ResponsesWebSocketServerOptions, type WebSocketResponseFault, type WebSocketResponseRecord,
} from './ws-server.js';

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

export type TestRoute = 'responses.create' | 'responses.stream' | 'responses.retrieve' | 'chat.create' | 'unknown';

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
  readonly chunkDelay?: number;
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
   * is none), takes its fault from `faults` like an HTTP request, is written with `chunkDelay` between frames,
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

const TRANSCRIPT_HEADER = 'x-openai-rx-transcript';
const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key', 'cookie']);
const MAX_BODY = 1024 * 1024;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Loaded {
  readonly name: string;
  readonly parsed: ParsedTranscript;
}

function redact(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    out[k] = REDACTED_HEADERS.has(k) ? (/^bearer /i.test(value) ? 'Bearer [redacted]' : '[redacted]') : value;
  }
  return out;
}

const DEFAULT_ERRORS: Record<number, { code: string | null; type: string; message: string }> = {
  400: { code: null, type: 'invalid_request_error', message: 'Invalid request.' },
  401: { code: 'invalid_api_key', type: 'invalid_request_error', message: 'Incorrect API key provided.' },
  404: { code: null, type: 'invalid_request_error', message: 'Not found.' },
  408: { code: null, type: 'server_error', message: 'Request timed out.' },
  429: { code: 'rate_limit_exceeded', type: 'requests', message: 'Rate limit reached (test server).' },
  500: { code: 'server_error', type: 'server_error', message: 'The server had an error while processing your request.' },
  503: { code: 'server_is_overloaded', type: 'server_error', message: 'The server is overloaded.' },
};

/**
 * Starts an OpenAI-compatible server on the loopback interface (a real `node:http` server on a free
 * port) that serves recorded transcripts, with fault injection per request:
 * `POST /v1/responses`, `GET /v1/responses/{id}?stream=true&starting_after=N`, `GET /v1/responses/{id}`,
 * `POST /v1/chat/completions`.
 *
 * ```ts
 * const server = await startTestServer({ transcripts: { long: sse }, faults: [{ type: 'drop', afterEvents: 40 }] });
 * streamResponse({ model: 'long', input: 'hi' }, { baseURL: server.baseURL, apiKey: 'test' });
 * await server.close();
 * ```
 */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const loaded = new Map<string, Loaded>();
  for (const [name, sse] of Object.entries(options.transcripts)) loaded.set(name, { name, parsed: parseTranscript(sse) });
  const responses = new Map<string, Loaded>();
  const script: Fault[] = [];
  if (Array.isArray(options.faults)) script.push(...(options.faults as readonly Fault[]));
  const faultFn = typeof options.faults === 'function' ? options.faults : undefined;
  const requests: Array<Mutable<RecordedRequest>> = [];
  const connections: Array<Mutable<RecordedConnection>> = [];
  const sockets = new Map<Socket, number>();
  const arrivals = new Map<number, Array<(r: RecordedRequest) => void>>();
  const closings = new Map<number, Array<(r: RecordedRequest) => void>>();
  let closing = false;

  const notify = (waiters: Map<number, Array<(r: RecordedRequest) => void>>, r: RecordedRequest) => {
    for (const w of waiters.get(r.index) ?? []) w(r);
    waiters.delete(r.index);
  };

  const pick = (kind: 'responses' | 'chat', headers: IncomingMessage['headers'], body: unknown): Loaded | undefined => {
    const header = headers[TRANSCRIPT_HEADER];
    const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
    const names = [typeof header === 'string' ? header : undefined, typeof model === 'string' ? model : undefined, options.defaultTranscript];
    const named = (k: 'responses' | 'chat') => {
      for (const name of names) {
        const t = name === undefined ? undefined : loaded.get(name);
        if (t && t.parsed.kind === k) return t;
      }
      return undefined;
    };
    const firstOf = (k: 'responses' | 'chat') => [...loaded.values()].find((t) => t.parsed.kind === k);
    if (kind === 'chat' && options.chatFromResponses !== false) {
      // A chat transcript the request names, else a Responses one it names (as chat chunks), else the first of either.
      const t = named('chat') ?? named('responses') ?? firstOf('chat') ?? firstOf('responses');
      return t?.parsed.kind === 'responses' ? asChat(t) : t;
    }
    return named(kind) ?? firstOf(kind);
  };

  // Responses transcripts as chat chunks, converted once each (a promise until the first chat request needs it).
  const chatVersions = new Map<string, Loaded>();
  const pendingChat = new Map<string, Promise<void>>();
  const asChat = (t: Loaded): Loaded => chatVersions.get(t.name) ?? { name: t.name, parsed: { kind: 'chat', events: [], responseId: undefined } };
  const convertToChat = (t: Loaded): Promise<void> => {
    let p = pendingChat.get(t.name);
    if (!p) {
      const sse = t.parsed.events.map((e) => e.raw).join('');
      p = lastValueFrom(fromResponsesSSE(sse, { validate: 'off', errorEvents: 'value' }).pipe(toChatChunks({ includeUsage: true }), toChatSSE({ onError: 'event' }), toArray()))
        .then((body) => body.join(''), (e: unknown) => `event: error\ndata: ${JSON.stringify({ error: { message: e instanceof Error ? e.message : String(e), type: 'server_error', code: null } })}\n\n`)
        .then((sseText) => {
          chatVersions.set(t.name, { name: t.name, parsed: parseTranscript(sseText) });
        });
      pendingChat.set(t.name, p);
    }
    return p;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500);
      else res.destroy();
    });
  });

  server.on('connection', (socket) => {
    const index = connections.length;
    connections.push({ index, openedAt: Date.now(), closedAt: undefined });
    sockets.set(socket, index);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      const c = connections[index];
      if (c) c.closedAt = Date.now();
    });
  });

  function sendError(res: ServerResponse, status: number, overrides: { code?: string | null; message?: string; errorType?: string; headers?: Readonly<Record<string, string>> } = {}): void {
    const d = DEFAULT_ERRORS[status] ?? { code: null, type: status >= 500 ? 'server_error' : 'invalid_request_error', message: `HTTP ${status}` };
    const payload = JSON.stringify({
      error: { message: overrides.message ?? d.message, type: overrides.errorType ?? d.type, param: null, code: overrides.code !== undefined ? overrides.code : d.code },
    });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...overrides.headers });
    res.end(payload);
  }

  function sendJSON(res: ServerResponse, value: unknown): void {
    const payload = JSON.stringify(value);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  }

  async function readBody(req: IncomingMessage): Promise<unknown> {
    req.setEncoding('utf8');
    let text = '';
    for await (const c of req as AsyncIterable<string>) {
      text += c;
      if (text.length > MAX_BODY) break;
    }
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  function routeOf(method: string, path: string, query: Record<string, string>): { route: TestRoute; id?: string } {
    if (method === 'POST' && path === '/v1/responses') return { route: 'responses.create' };
    if (method === 'POST' && path === '/v1/chat/completions') return { route: 'chat.create' };
    const m = /^\/v1\/responses\/([^/]+)$/.exec(path);
    if (method === 'GET' && m?.[1]) return { route: query['stream'] === 'true' ? 'responses.stream' : 'responses.retrieve', id: decodeURIComponent(m[1]) };
    return { route: 'unknown' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    const body = method === 'POST' ? await readBody(req) : undefined;
    const { route, id } = routeOf(method, url.pathname, query);
    const index = requests.length;
    const record: Mutable<RecordedRequest> = {
      index, requestId: `req_test_${index}`, method, path: url.pathname, query, headers: redact(req.headers), body, route,
      transcript: undefined, fault: undefined, status: undefined, eventsSent: 0, bytesSent: 0,
      openedAt: Date.now(), closedAt: undefined, outcome: undefined, connection: sockets.get(req.socket) ?? -1,
    };
    requests.push(record);
    res.setHeader('x-request-id', record.requestId);
    let dropped = false;
    res.on('close', () => {
      record.closedAt = Date.now();
      record.outcome = dropped ? 'dropped' : res.writableFinished ? 'completed' : closing ? 'server-closed' : 'client-closed';
      notify(closings, record);
      options.onClose?.(record);
    });
    notify(arrivals, record);
    options.onRequest?.(record);

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      record.status = 401;
      sendError(res, 401);
      return;
    }
    if (route === 'unknown') {
      record.status = 404;
      sendError(res, 404, { message: `No route for ${method} ${url.pathname}.` });
      return;
    }

    const fault = script.shift() ?? faultFn?.(record);
    record.fault = fault;
    if (fault?.type === 'status') {
      record.status = fault.status;
      sendError(res, fault.status, fault);
      return;
    }

    let transcript: Loaded | undefined;
    let events = [] as ParsedTranscript['events'];
    if (route === 'responses.create' || route === 'chat.create') {
      if (route === 'chat.create' && options.chatFromResponses !== false) await Promise.all([...loaded.values()].filter((t) => t.parsed.kind === 'responses').map(convertToChat));
      transcript = pick(route === 'chat.create' ? 'chat' : 'responses', req.headers, body);
      if (!transcript) {
        record.status = 404;
        sendError(res, 404, { message: 'No transcript for this request.' });
        return;
      }
      if (transcript.parsed.responseId !== undefined) responses.set(transcript.parsed.responseId, transcript);
      events = transcript.parsed.events;
      const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
      if (!streaming) {
        record.transcript = transcript.name;
        if (route === 'chat.create') {
          record.status = 400;
          sendError(res, 400, { message: 'This test server answers chat completions with stream: true only.' });
        } else {
          record.status = 200;
          sendJSON(res, finalResponseOf(transcript.parsed) ?? {});
        }
        return;
      }
    } else {
      transcript = id === undefined ? undefined : responses.get(id);
      if (!transcript) {
        record.status = 404;
        sendError(res, 404, { message: `No response found with id '${id ?? ''}'.` });
        return;
      }
      if (route === 'responses.retrieve') {
        record.transcript = transcript.name;
        if (fault?.type === 'drop') {
          dropped = true;
          res.destroy();
        } else if (fault?.type !== 'stall') {
          record.status = 200;
          sendJSON(res, finalResponseOf(transcript.parsed) ?? {});
        }
        return;
      }
      const after = query['starting_after'] === undefined ? undefined : Number(query['starting_after']);
      events = after === undefined || Number.isNaN(after) ? transcript.parsed.events : transcript.parsed.events.filter((e) => (sequenceOf(e) ?? Infinity) > after);
    }
    record.transcript = transcript.name;
    record.status = 200;
    stream(res, record, events, fault, () => {
      dropped = true;
    });
  }

  function stream(res: ServerResponse, record: Mutable<RecordedRequest>, events: ParsedTranscript['events'], fault: Fault | undefined, markDropped: () => void): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const lengths = events.map((e) => Buffer.byteLength(e.raw, 'utf8'));
    const ends: number[] = [];
    let total = 0;
    for (const n of lengths) ends.push((total += n));
    const all = Buffer.from(events.map((e) => e.raw).join(''), 'utf8');

    // Where the body stops, if a fault cuts it.
    let cut = total;
    if (fault?.type === 'drop' || fault?.type === 'stall') {
      if (fault.afterBytes !== undefined) cut = Math.min(total, Math.max(0, fault.afterBytes));
      else {
        const k = Math.max(0, fault.afterEvents ?? 0);
        const start = k === 0 ? 0 : (ends[k - 1] ?? total);
        const next = lengths[k];
        cut = fault.type === 'drop' && next ? start + Math.max(1, Math.floor(next / 2)) : start;
      }
    }

    // The pieces to write: fixed-size chunks, or one per event.
    const pieces: Array<[number, number]> = [];
    if (options.chunkSize && options.chunkSize > 0) {
      for (let at = 0; at < cut; at += options.chunkSize) pieces.push([at, Math.min(cut, at + options.chunkSize)]);
    } else {
      let at = 0;
      for (const end of ends) {
        if (at >= cut) break;
        pieces.push([at, Math.min(cut, end)]);
        at = end;
      }
    }

    const delay = options.chunkDelay ?? 0;
    let timer: NodeJS.Timeout | undefined;
    res.on('close', () => clearTimeout(timer));
    const finish = () => {
      if (res.destroyed) return;
      if (fault?.type === 'drop') {
        markDropped();
        // Close the socket once the bytes written so far are out: the client sees a partial event, then the end.
        res.socket?.destroySoon();
      } else if (fault?.type !== 'stall') {
        res.end();
      }
    };
    let i = 0;
    const step = () => {
      while (i < pieces.length) {
        if (res.destroyed) return;
        const [a, b] = pieces[i++] as [number, number];
        res.write(all.subarray(a, b));
        record.bytesSent = b;
        record.eventsSent = ends.filter((e) => e <= b).length;
        if (delay > 0) {
          timer = setTimeout(step, delay);
          return;
        }
      }
      finish();
    };
    step();
  }

  // WebSocket mode: the same transcripts, faults, pacing and records as HTTP, unless its own options say otherwise.
  const wsRecords = new Map<number, Mutable<RecordedRequest>>();
  function webSocketOptions(ws: Omit<ResponsesWebSocketServerOptions, 'attach'>): ResponsesWebSocketServerOptions {
    const recordOf = (r: WebSocketResponseRecord): Mutable<RecordedRequest> | undefined => wsRecords.get(r.index);
    return {
      ...ws,
      attach: { server, path: '/v1/responses' },
      ...(ws.chunkDelay === undefined && options.chunkDelay !== undefined ? { chunkDelay: options.chunkDelay } : {}),
      respond:
        ws.respond ??
        ((request, _index, r) => {
          const t = pick('responses', r.headers, request);
          const rec = recordOf(r);
          if (rec && t) rec.transcript = t.name;
          return t ? t.parsed.events.map((e) => e.raw).join('') : undefined;
        }),
      fault: (request, r) => {
        const rec = recordOf(r);
        const f: Fault | WebSocketResponseFault | undefined = ws.fault ? ws.fault(request, r) : (script.shift() ?? (rec ? faultFn?.(rec) : undefined));
        if (rec) {
          rec.fault = f;
          if (f?.type === 'status') rec.status = f.status;
        }
        return f;
      },
      onResponseStart: (r) => {
        const index = requests.length;
        const lane = r.lane;
        const record: Mutable<RecordedRequest> = {
          index, requestId: `req_test_${index}`, method: 'WS', path: '/v1/responses', query: {}, headers: redact(r.headers), body: r.request,
          route: 'responses.create', transcript: undefined, fault: undefined, status: 200, eventsSent: 0, bytesSent: 0,
          openedAt: r.openedAt, closedAt: undefined, outcome: undefined, connection: -1, transport: 'websocket', ...(lane !== undefined ? { lane } : {}),
        };
        requests.push(record);
        wsRecords.set(r.index, record);
        notify(arrivals, record);
        options.onRequest?.(record);
        ws.onResponseStart?.(r);
      },
      onResponseEnd: (r) => {
        const rec = recordOf(r);
        if (rec) {
          wsRecords.delete(r.index);
          rec.eventsSent = r.framesSent;
          rec.bytesSent = r.bytesSent;
          rec.closedAt = r.closedAt;
          rec.outcome = r.outcome;
          notify(closings, rec);
          options.onClose?.(rec);
        }
        ws.onResponseEnd?.(r);
      },
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const hostInURL = host.includes(':') ? `[${host}]` : host;
  const webSocket = options.webSocket ? await startResponsesWebSocketServer(webSocketOptions(options.webSocket)) : undefined;

  const waitFor = (waiters: Map<number, Array<(r: RecordedRequest) => void>>, index: number, ready: (r: RecordedRequest) => boolean) =>
    new Promise<RecordedRequest>((resolve) => {
      const r = requests[index];
      if (r && ready(r)) {
        resolve(r);
        return;
      }
      waiters.set(index, [...(waiters.get(index) ?? []), resolve]);
    });

  return {
    baseURL: `http://${hostInURL}:${port}/v1`,
    port,
    requests,
    connections,
    inject: (...faults) => {
      script.push(...faults);
    },
    clearFaults: () => script.splice(0).length,
    waitForRequest: (index) => waitFor(arrivals, index, () => true),
    waitForClose: (index) => waitFor(closings, index, (r) => r.outcome !== undefined),
    webSocket,
    close: async () => {
      closing = true;
      // Upgraded sockets are no longer the HTTP server's to close: the WebSocket side ends them first.
      await webSocket?.close();
      const open = requests.filter((r) => r.outcome === undefined).map((r) => waitFor(closings, r.index, (x) => x.outcome !== undefined));
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets.keys()) s.destroy();
      // Resolve only when every record says how its connection ended.
      await Promise.all([stopped, ...open]);
    },
  };
}
