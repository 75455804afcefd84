import { BehaviorSubject, interval, Observable, Subject, timer, type Subscription } from 'rxjs';
import { LimitExceededError } from '../errors.js';
import type { ValidateMode } from '../events/decode.js';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import { DEFAULT_BASE_URL } from '../http/config.js';
import { WebSocketClosedError, WebSocketConfigError, WebSocketNotOpenError } from './errors.js';
import { decodeFrame } from './frames.js';
import { env, isNode } from '../env.js';
import { redactError, redactValue, secretsOf } from '../redact.js';
import type { ResponseOverSocketOptions, SocketResponseBody } from './response.js';
import { streamResponseOverSocket } from './response.js';
import { checkClientEvent } from './validate.js';
import type { ConnectionState, LaneSocket, NodeWebSocketLike, SocketEvent, WebSocketConstructorLike, WebSocketLike } from './types.js';

export interface ResponsesSocketConfig {
  /**
   * Sent as `Authorization: Bearer …` (Node, or any `ws`-style constructor). Default: `OPENAI_API_KEY` in
   * Node. Browsers cannot set WebSocket headers, and a key in the URL or page would leak, so a key is
   * refused there (`WebSocketConfigError`): point `url` at your own relay, which authenticates the user
   * (cookie / session) and opens the upstream socket with the key server-side.
   */
  readonly apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`; the URL is `{baseURL}/responses` with http→ws, https→wss. */
  readonly baseURL?: string;
  /** The full `ws://` / `wss://` URL; overrides `baseURL`. */
  readonly url?: string;
  /** Extra handshake headers (`ws`-style constructors only). */
  readonly headers?: Record<string, string>;
  /** A WebSocket constructor (tests, other runtimes). Default: `ws` in Node, the global `WebSocket` elsewhere. */
  readonly WebSocket?: WebSocketConstructorLike;
  /**
   * Ping period in ms for sockets that can ping (`ws`): keeps an idle connection alive, and a connection that
   * answers no ping within one period is dropped as dead (`WebSocketClosedError` 1006, retryable).
   * Default 30000; 0 turns it off.
   */
  readonly heartbeatInterval?: number;
  /** Client events queued before the socket opens; one more throws `LimitExceededError`. Default 1024. */
  readonly maxSendBuffer?: number;
  /** `'strict'` (default) checks every documented server event against its codec; `'off'` skips codecs. */
  readonly validate?: ValidateMode;
  /** How long `close()` waits for the closing handshake before dropping the connection (ms). Default 2000. */
  readonly closeTimeout?: number;
}

/** One Responses WebSocket connection. Created by `connectResponsesSocket`; owned (and closed) by the caller. */
export interface ResponsesSocket extends LaneSocket {
  /**
   * Every server event, decoded with the SSE codecs (undocumented types pass through), shared by all
   * subscribers (hot: late subscribers see later events only). Undecodable frames arrive as
   * `FrameErrorEvent` values. Completes after `close()`; errors with `WebSocketClosedError` on a drop.
   */
  readonly events$: Observable<SocketEvent>;
  /** The connection state, current value first. Completes once `closed`. */
  readonly state$: Observable<ConnectionState>;
  readonly state: ConnectionState;
  readonly url: string;
  /**
   * Validates and sends one client event (queued until the socket is open). Throws
   * `InvalidClientEventError`, `LimitExceededError` (queue full) or `WebSocketNotOpenError` (closing/closed).
   */
  send(event: ResponsesClientEvent): void;
  /** Closes the connection (normal closure); pending timers are cleared so nothing keeps the process alive. */
  close(code?: number, reason?: string): void;
  /** Sends one `response.create` and streams that response's events; see `streamResponseOverSocket`. */
  response(body: SocketResponseBody, options?: ResponseOverSocketOptions): Observable<ResponsesServerEvent>;
}

/** `{baseURL}/responses` with http→ws and https→wss. */
export function responsesSocketURL(baseURL: string = env('OPENAI_BASE_URL') ?? DEFAULT_BASE_URL): string {
  return `${baseURL.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:')}/responses`;
}

const CONNECTION_LIMIT = 'websocket_connection_limit_reached';
const utf8 = new TextDecoder();

function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return utf8.decode(data);
  if (ArrayBuffer.isView(data)) return utf8.decode(data);
  return undefined;
}

function hasPing(ws: WebSocketLike): ws is NodeWebSocketLike {
  const n = ws as Partial<NodeWebSocketLike>;
  return typeof n.ping === 'function' && typeof n.terminate === 'function' && typeof n.on === 'function';
}

/**
 * Opens a Responses WebSocket (`wss://api.openai.com/v1/responses` by default) and returns it at once;
 * events sent before it opens are queued.
 *
 * ```ts
 * const socket = connectResponsesSocket({ apiKey });
 * socket.response({ model: 'gpt-5.4-nano', input: 'Hi' }).pipe(ofType('response.output_text.delta')).subscribe(…);
 * requests$.pipe(laneMux(socket)).subscribe(…);   // many lanes at once
 * socket.close();
 * ```
 */
export function connectResponsesSocket(config: ResponsesSocketConfig = {}): ResponsesSocket {
  const url = config.url ?? responsesSocketURL(config.baseURL);
  const validate = config.validate ?? 'strict';
  const maxSendBuffer = config.maxSendBuffer ?? 1024;
  const heartbeatMs = config.heartbeatInterval ?? 30000;
  const closeTimeout = config.closeTimeout ?? 2000;

  const events = new Subject<SocketEvent>();
  const state = new BehaviorSubject<ConnectionState>('connecting');
  const buffer: string[] = [];
  let ws: WebSocketLike | undefined;
  let closedByClient = false;
  let closeCode = 1000;
  let closeReason = '';
  let lastErrorCode: string | undefined;
  let lastErrorMessage = '';
  let deadReason: string | undefined;
  let heartbeat: Subscription | undefined;
  let closeFallback: Subscription | undefined;

  // The key only ever lives in this headers object, which is handed to the constructor and nowhere else.
  const apiKey = config.apiKey ?? (isNode() ? env('OPENAI_API_KEY') : undefined);
  const headers: Record<string, string> = { ...config.headers };
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  const secrets = secretsOf(apiKey);

  const finish = (): void => {
    heartbeat?.unsubscribe();
    closeFallback?.unsubscribe();
    if (state.value === 'closed') return;
    state.next('closed');
    state.complete();
    buffer.length = 0;
    if (closedByClient && deadReason === undefined) events.complete();
    else events.error(redactError(new WebSocketClosedError(closeCode, deadReason ?? (closeReason || lastErrorMessage), lastErrorCode), secrets));
  };

  const attach = (Ctor: WebSocketConstructorLike, nodeStyle: boolean): void => {
    if (closedByClient) return finish();
    let socket: WebSocketLike;
    try {
      socket = nodeStyle ? new Ctor(url, { headers }) : new (Ctor as unknown as new (u: string) => WebSocketLike)(url);
    } catch (e) {
      closeCode = 1006;
      lastErrorMessage = e instanceof Error ? e.message : 'could not create the WebSocket';
      return finish();
    }
    ws = socket;
    socket.binaryType = 'arraybuffer';
    let alive = true;
    socket.addEventListener('open', () => {
      if (state.value !== 'connecting') return;
      state.next('open');
      for (const frame of buffer) socket.send(frame);
      buffer.length = 0;
      if (hasPing(socket) && heartbeatMs > 0) {
        socket.on('pong', () => { alive = true; });
        heartbeat = interval(heartbeatMs).subscribe(() => {
          if (!alive) {
            deadReason = `no answer to a ping within ${heartbeatMs} ms`;
            closeCode = 1006;
            socket.terminate();
            return;
          }
          alive = false;
          socket.ping();
        });
      }
    });
    socket.addEventListener('message', (ev: { data: unknown }) => {
      alive = true;
      const text = frameText(ev.data);
      if (text === undefined) return;
      // Error frames are where a server echoes what it was sent: the key leaves them masked.
      const decoded = decodeFrame(text, validate);
      const e = decoded.type === 'error' || decoded.type.endsWith('.failed') || decoded.type === 'openai_rx.frame_error' ? redactValue(decoded, secrets) : decoded;
      if (e.type === 'error') {
        const ee = e as { error?: { code?: unknown }; code?: unknown };
        const code = ee.error?.code ?? ee.code;
        if (code === CONNECTION_LIMIT) lastErrorCode = CONNECTION_LIMIT;
      }
      events.next(e);
    });
    socket.addEventListener('error', (ev: { message?: unknown; error?: unknown }) => {
      // Only the message: an error object from the handshake could hold request details.
      const m = typeof ev.message === 'string' ? ev.message : ev.error instanceof Error ? ev.error.message : '';
      if (m) lastErrorMessage = m;
    });
    socket.addEventListener('close', (ev: { code?: number; reason?: unknown }) => {
      if (deadReason === undefined) {
        closeCode = typeof ev.code === 'number' ? ev.code : 1006;
        closeReason = typeof ev.reason === 'string' ? ev.reason : ev.reason instanceof Uint8Array ? utf8.decode(ev.reason) : '';
      }
      finish();
    });
  };

  if (config.WebSocket) {
    const global = (globalThis as { WebSocket?: unknown }).WebSocket;
    attach(config.WebSocket, config.WebSocket !== global);
  } else if (isNode()) {
    // Dynamic, so browser bundles never load `ws`.
    import('ws').then(
      (mod) => {
        const m = mod as unknown as { WebSocket?: WebSocketConstructorLike; default?: WebSocketConstructorLike };
        const Ctor = m.WebSocket ?? m.default;
        if (!Ctor) throw new Error('ws has no WebSocket export');
        attach(Ctor, true);
      },
      () => {
        const G = (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket;
        if (G) attach(G, false);
        else {
          closeCode = 1006;
          lastErrorMessage = 'no WebSocket implementation: install ws or pass config.WebSocket';
          finish();
        }
      },
    );
  } else {
    const G = (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket;
    if (!G) throw new WebSocketConfigError('no global WebSocket: pass config.WebSocket');
    if (config.apiKey) throw new WebSocketConfigError('a browser WebSocket cannot send an API key header: connect through your own authenticating relay (config.url)');
    attach(G, false);
  }

  const socket: ResponsesSocket = {
    events$: events.asObservable(),
    state$: state.asObservable(),
    get state() {
      return state.value;
    },
    url,
    send(event: ResponsesClientEvent): void {
      const invalid = checkClientEvent(event);
      if (invalid) throw invalid;
      const s = state.value;
      if (s === 'closing' || s === 'closed') throw new WebSocketNotOpenError(s);
      const frame = JSON.stringify(event);
      if (s === 'open' && ws) ws.send(frame);
      else {
        if (buffer.length >= maxSendBuffer) throw new LimitExceededError('maxQueue', maxSendBuffer);
        buffer.push(frame);
      }
    },
    close(code = 1000, reason = ''): void {
      if (closedByClient || state.value === 'closed') return;
      closedByClient = true;
      if (!ws) {
        // Still loading `ws`: `attach` finishes without connecting.
        state.next('closing');
        return;
      }
      state.next('closing');
      heartbeat?.unsubscribe();
      const w = ws;
      try {
        w.close(code, reason);
      } catch {
        /* already closing */
      }
      // A peer that never answers the closing handshake must not keep the process alive.
      closeFallback = timer(closeTimeout).subscribe(() => {
        if (hasPing(w)) w.terminate();
        else finish();
      });
    },
    response(body, options) {
      return streamResponseOverSocket(socket, body, options);
    },
  };
  return socket;
}
