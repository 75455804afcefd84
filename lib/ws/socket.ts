import { BehaviorSubject, interval, Subject, timer, type Subscription } from 'rxjs';
import { LimitExceededError, MissingPeerDependencyError } from '../errors.js';
import { isErrorType } from '../events/guards.js';
import type { ResponsesClientEvent } from '../events/websocket.js';
import { InvalidOptionError } from '../errors.js';
import { durationMs, nonNegativeInt, oneOf, positiveInt } from '../options.js';
import { VALIDATE_MODES } from '../events/decode.js';
import { WebSocketClosedError, WebSocketNotOpenError } from './errors.js';
import { decodeFrameData, frameSize } from './frames.js';
import { env, isNode } from '../env.js';
import { headerSecrets, redactError, redactValue, secretsOf } from '../redact.js';
import { streamResponseOverSocket } from './response.js';
import { DEFAULT_TERMINAL_TIMEOUT } from './lane-types.js';
import type { ResponsesSocket, ResponsesSocketConfig } from './socket-api.js';
import { nodeWebSocket } from './socket-impl.js';
import { checkSocketURL, responsesSocketURL } from './socket-url.js';
import { checkClientEvent } from './validate.js';
import type { ConnectionState, NodeWebSocketLike, SocketEvent, WebSocketConstructorLike, WebSocketLike } from './types.js';
import { DEFAULT_MAX_EVENT_SIZE } from '../sse/scanner.js';

export type { ResponsesSocket, ResponsesSocketConfig } from './socket-api.js';
export { responsesSocketURL } from './socket-url.js';

const CONNECTION_LIMIT = 'websocket_connection_limit_reached';
// One frame is one event: the same bound as the SSE decoder's largest event (a 64 MiB image event fits).
const DEFAULT_MAX_FRAME_SIZE = DEFAULT_MAX_EVENT_SIZE;
/** `ws`'s code for a frame over `maxPayload`. */
const WS_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
const reasonText = new TextDecoder();

function isEmitter(ws: WebSocketLike): ws is NodeWebSocketLike {
  const n = ws as Partial<NodeWebSocketLike> & { listenerCount?: unknown };
  return typeof n.on === 'function' && typeof n.listenerCount === 'function';
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
 * const socket = connectResponsesSocket();   // OPENAI_API_KEY; wss://api.openai.com/v1/responses
 * socket.response({ model: 'gpt-5.4-nano', input: 'Hi' })
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta), finalize(() => socket.close()))
 *   .subscribe((text) => process.stdout.write(text));
 *
 * // Many requests at once, one lane per `stream_id` (see laneMux):
 * requests$.pipe(laneMux(socket)).subscribe((e) => console.log(e.stream_id, e.type));
 * ```
 */
export function connectResponsesSocket(config: ResponsesSocketConfig = {}): ResponsesSocket {
  const url = config.url !== undefined ? checkSocketURL(config.url) : responsesSocketURL(config.baseURL);
  const validate = oneOf('validate', config.validate, VALIDATE_MODES, 'strict');
  const maxSendBuffer = nonNegativeInt('maxSendBuffer', config.maxSendBuffer, 1024);
  const heartbeatMs = durationMs('heartbeatMs', config.heartbeatMs, 30000);
  const closeTimeoutMs = durationMs('closeTimeoutMs', config.closeTimeoutMs, 2000);
  const maxFrameSize = positiveInt('maxFrameSize', config.maxFrameSize, DEFAULT_MAX_FRAME_SIZE);
  const terminalTimeoutMs = durationMs('terminalTimeoutMs', config.terminalTimeoutMs, DEFAULT_TERMINAL_TIMEOUT);

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
  let tooBig: LimitExceededError | undefined;
  /** No WebSocket to open: `ws` is not installed and the global one cannot serve. */
  let missing: MissingPeerDependencyError | undefined;

  // The key only ever lives in this headers object, which is handed to the constructor and nowhere else.
  const apiKey = config.apiKey ?? (isNode() ? env('OPENAI_API_KEY') : undefined);
  // Header names lower-cased, so a configured key replaces a caller's `Authorization` instead of doubling it.
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.headers ?? {})) headers[k.toLowerCase()] = v;
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  const secrets = secretsOf(apiKey, ...headerSecrets(config.headers));

  const finish = (): void => {
    heartbeat?.unsubscribe();
    closeFallback?.unsubscribe();
    if (state.value === 'closed') return;
    state.next('closed');
    state.complete();
    buffer.length = 0;
    if (tooBig) events.error(tooBig);
    else if (missing) events.error(missing);
    else if (closedByClient && deadReason === undefined) events.complete();
    else events.error(redactError(new WebSocketClosedError(closeCode, deadReason ?? (closeReason || lastErrorMessage), lastErrorCode), secrets));
  };

  /**
   * The WebSocket implementation (the caller's, or `ws`) threw where it should not (a listener, a send from the
   * queue, a ping): the connection is given up, and `events$` errors with it, rather than the throw escaping
   * from an event listener or a timer as an uncaught exception.
   */
  const broke = (e: unknown): void => {
    closeCode = 1006;
    deadReason ??= `the WebSocket failed: ${e instanceof Error ? e.message : 'unknown error'}`;
    try {
      ws?.close();
    } catch {
      /* it is given up either way */
    }
    finish();
  };
  /** Runs a call into the WebSocket implementation; a throw gives the connection up (see `broke`). */
  const guarded = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      broke(e);
    }
  };

  /** Starts the closing handshake; a peer that never answers it must not keep the process alive. */
  const shutdown = (w: WebSocketLike, code: number, reason: string): void => {
    if (state.value !== 'closing') state.next('closing');
    heartbeat?.unsubscribe();
    try {
      w.close(code, reason);
    } catch {
      /* already closing, or a code this WebSocket refuses (browsers take only 1000 and 3000-4999) */
      try {
        w.close();
      } catch {
        /* already closing */
      }
    }
    if (state.value === 'closed') return; // closed at once, inside close()
    closeFallback ??= timer(closeTimeoutMs).subscribe(() => {
      if (hasPing(w)) guarded(() => w.terminate());
      else finish();
    });
  };

  const attach = (Ctor: WebSocketConstructorLike, nodeStyle: boolean): void => {
    if (closedByClient) return finish();
    let socket: WebSocketLike;
    try {
      // UTF-8 is checked per frame (a bad frame fails its lane, not the connection); `maxPayload` caps buffering.
      socket = nodeStyle ? new Ctor(url, { headers, maxPayload: maxFrameSize, skipUTF8Validation: true }) : new (Ctor as unknown as new (u: string) => WebSocketLike)(url);
    } catch (e) {
      closeCode = 1006;
      lastErrorMessage = e instanceof Error ? e.message : 'could not create the WebSocket';
      return finish();
    }
    ws = socket;
    socket.binaryType = 'arraybuffer';
    let alive = true;
    socket.addEventListener('open', () => guarded(() => {
      if (state.value !== 'connecting') return;
      state.next('open');
      for (const frame of buffer) socket.send(frame);
      buffer.length = 0;
      if (hasPing(socket) && heartbeatMs > 0) {
        socket.on('pong', () => { alive = true; });
        heartbeat = interval(heartbeatMs).subscribe(() => guarded(() => {
          if (!alive) {
            deadReason = `no answer to a ping within ${heartbeatMs} ms`;
            closeCode = 1006;
            socket.terminate();
            return;
          }
          alive = false;
          socket.ping();
        }));
      }
    }));
    const onFrame = (data: unknown): void => {
      alive = true;
      if (tooBig) return;
      if (frameSize(data) > maxFrameSize) {
        tooBig = new LimitExceededError('maxFrameSize', maxFrameSize);
        shutdown(socket, 1009, 'frame over maxFrameSize');
        return;
      }
      const decoded = decodeFrameData(data, validate);
      if (decoded === undefined) return;
      // Error frames are where a server echoes what it was sent: the key leaves them masked.
      const e = isErrorType(decoded.type) || decoded.type === 'openai_rx.frame_error' ? redactValue(decoded, secrets) : decoded;
      if (e.type === 'error') {
        const ee = e as { error?: { code?: unknown }; code?: unknown };
        const code = ee.error?.code ?? ee.code;
        if (code === CONNECTION_LIMIT) lastErrorCode = CONNECTION_LIMIT;
      }
      events.next(e);
    };
    // `ws` (an EventEmitter) hands text frames over as bytes this way; its `addEventListener` would decode them lossily.
    if (nodeStyle && isEmitter(socket)) socket.on('message', (data) => onFrame(data));
    else socket.addEventListener('message', (ev: { data: unknown }) => onFrame(ev.data));
    socket.addEventListener('error', (ev: { message?: unknown; error?: unknown }) => {
      if ((ev.error as { code?: unknown } | undefined)?.code === WS_TOO_BIG) tooBig ??= new LimitExceededError('maxFrameSize', maxFrameSize);
      // Only the message: an error object from the handshake could hold request details.
      const m = typeof ev.message === 'string' ? ev.message : ev.error instanceof Error ? ev.error.message : '';
      if (m) lastErrorMessage = m;
    });
    socket.addEventListener('close', (ev: { code?: number; reason?: unknown }) => {
      if (deadReason === undefined) {
        closeCode = typeof ev.code === 'number' ? ev.code : 1006;
        closeReason = typeof ev.reason === 'string' ? ev.reason : ev.reason instanceof Uint8Array ? reasonText.decode(ev.reason) : '';
      }
      finish();
    });
  };

  const given = config.WebSocket;
  if (given) {
    const global = (globalThis as { WebSocket?: unknown }).WebSocket;
    guarded(() => attach(given, given !== global));
  } else if (isNode()) {
    // `ws` (an optional peer dependency) is loaded now, not at import: browser bundles never include it.
    nodeWebSocket(Object.keys(headers).length > 0).then(
      ({ Ctor, nodeStyle }) => guarded(() => attach(Ctor, nodeStyle)),
      (e: unknown) => {
        if (closedByClient) return finish();
        closeCode = 1006;
        if (e instanceof MissingPeerDependencyError) missing = e;
        else lastErrorMessage = e instanceof Error ? e.message : 'could not load ws';
        finish();
      },
    );
  } else {
    const G = (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket;
    if (!G) throw new InvalidOptionError('WebSocket', 'no global WebSocket here: pass one as config.WebSocket');
    if (config.apiKey) throw new InvalidOptionError('apiKey', 'a browser WebSocket cannot send an API key header: connect through your own authenticating relay (config.url)');
    guarded(() => attach(G, false));
  }

  const socket: ResponsesSocket = {
    events$: events.asObservable(),
    state$: state.asObservable(),
    get state() {
      return state.value;
    },
    url,
    terminalTimeoutMs,
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
      shutdown(ws, code, reason);
    },
    response(body, options) {
      return streamResponseOverSocket(socket, body, options);
    },
  };
  return socket;
}
