// The gateway's connections to its upstream: HTTP/1.1 over net or tls sockets, kept alive between requests (as
// node:http's keep-alive agents kept them), each answer read by http1-response.ts from the socket's own reads. The
// part of node:http's client the gateway used (`request`, `'response'`, the answer's events), without its copy of
// every body chunk and the two streams each chunk went through (docs/performance.md, the gateway).
import { EventEmitter } from 'node:events';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { Http1Response, type ResponseHead, TOKEN } from './http1-response.js';

/** Idle connections kept per origin, at most (node:http's agents keep 256). */
const MAX_IDLE = 256;
/** How long an idle connection is kept, unless the upstream's `keep-alive: timeout=` says less. */
const IDLE_MS = 4000;

export interface UpstreamConnectionOptions {
  /** TLS options of every `https:` connection (a test's CA); the defaults verify as node:https does. */
  readonly tls?: tls.ConnectionOptions;
  readonly idleMs?: number;
}

/**
 * An answer: status, raw headers, then its body as `'data'` events (Buffers viewing the connection's reads, not
 * copied), `'end'`, and `'close'` last in every case; `'error'` (to its listeners, if it has any) when the
 * connection breaks or the bytes are not HTTP before the body ended.
 */
export class UpstreamAnswer extends EventEmitter {
  /** Whether the connection is still this answer's: once its body has ended, pausing it is another answer's business. */
  private owns = true;
  constructor(
    readonly socket: Socket,
    readonly statusCode: number,
    readonly rawHeaders: string[],
  ) {
    super();
  }
  pause(): this {
    if (this.owns) this.socket.pause();
    return this;
  }
  resume(): this {
    if (this.owns) this.socket.resume();
    return this;
  }
  /** @internal The body has ended: the connection is given back (flowing, if this answer had paused it). */
  release(): void {
    if (this.owns && this.socket.isPaused()) this.socket.resume();
    this.owns = false;
  }
}

/** A request on its way: `'response'` with its {@link UpstreamAnswer}, or `'error'` before one came. */
export class UpstreamRequest extends EventEmitter {
  private readonly reader: Http1Response;
  private answer: UpstreamAnswer | undefined;
  /** Whether the answer has closed (its connection kept or given up). */
  private closed = false;
  private idleMs: number;
  private readonly onData = (bytes: Buffer): void => this.data(bytes);
  private readonly onError = (e: Error): void => this.broken(e);
  private readonly onClose = (): void => this.connectionClosed();

  constructor(
    private readonly pool: UpstreamConnections,
    private readonly origin: string,
    private readonly socket: Socket,
    method: string,
  ) {
    super();
    this.idleMs = pool.idleMs;
    this.reader = new Http1Response(
      {
        head: (head) => this.head(head),
        body: (piece) => this.answer!.emit('data', piece),
        end: () => this.answer!.emit('end'),
      },
      method,
    );
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  /** Closes the connection (not used again): an answer not ended fails, then closes. */
  destroy(): void {
    this.socket.destroy();
  }

  private head(head: ResponseHead): void {
    this.answer = new UpstreamAnswer(this.socket, head.status, head.rawHeaders);
    const hint = keepAliveHint(head.rawHeaders);
    if (hint !== undefined) this.idleMs = Math.min(this.idleMs, hint);
    this.emit('response', this.answer);
  }

  private data(bytes: Buffer): void {
    try {
      this.reader.push(bytes);
    } catch (e) {
      this.socket.destroy(e as Error);
      return;
    }
    if (this.reader.done) this.done();
  }

  /** The answer has ended: the connection goes back to the pool (or is closed), then the answer closes. */
  private done(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.off('data', this.onData);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
    this.answer!.release();
    if (this.reader.reusable && !this.socket.destroyed) this.pool.keep(this.origin, this.socket, this.idleMs);
    else this.socket.destroy();
    this.answer!.emit('close');
  }

  private broken(e: Error): void {
    if (this.answer === undefined) this.emit('error', e);
    else if (!this.reader.done && this.answer.listenerCount('error') > 0) this.answer.emit('error', e);
    // 'close' follows.
  }

  private connectionClosed(): void {
    if (this.closed) return;
    if (!this.reader.done) {
      try {
        this.reader.close();
      } catch (e) {
        // Reported by 'error' already when the socket broke; else this is the first word of it.
        if (!this.socket.errored) this.broken(this.answer === undefined ? hangUp(e) : (e as Error));
      }
    }
    if (this.answer === undefined) {
      this.closed = true;
      return;
    }
    this.done();
  }
}

/** As node:http says it: the connection closed before any answer. */
function hangUp(cause: unknown): Error {
  return Object.assign(new Error('socket hang up', { cause }), { code: 'ECONNRESET' });
}

/** `keep-alive: timeout=N` (seconds): the upstream closes idle connections then; kept a second less. */
function keepAliveHint(raw: string[]): number | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.length !== 10 || raw[i]!.toLowerCase() !== 'keep-alive') continue;
    const m = /(?:^|[,\s])timeout=(\d+)/i.exec(raw[i + 1]!);
    if (m) return Math.max(0, Number(m[1]) * 1000 - 1000);
  }
  return undefined;
}

interface Idle {
  readonly socket: Socket;
  readonly drop: () => void;
}

/** Keep-alive connections per origin, and the TLS sessions to resume. */
export class UpstreamConnections {
  readonly idleMs: number;
  private readonly idle = new Map<string, Idle[]>();
  private readonly sessions = new Map<string, Buffer>();
  private closing = false;

  constructor(private readonly options: UpstreamConnectionOptions = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /**
   * Sends a request. Throws (as node:http does) for a header name or value that cannot be sent: a line break in
   * a value would let the caller write a request of its own.
   */
  request(target: URL, method: string, headers: Readonly<Record<string, string | number>>, body: Uint8Array | undefined): UpstreamRequest {
    const path = `${target.pathname}${target.search}`;
    if (/[^\u0021-\u00ff]/.test(path) || !TOKEN.test(method)) throw new TypeError('Request path or method contains invalid characters');
    // One line per name, whatever its case: the last value given wins, as with node:http's setHeader (two
    // content-lengths would be a request the upstream and the gateway could read differently).
    const lines = new Map<string, string>();
    for (const name of Object.keys(headers)) {
      const value = String(headers[name]);
      validateHeaderName(name);
      validateHeaderValue(name, value);
      lines.set(name.toLowerCase(), `${name}: ${value}\r\n`);
    }
    if (!lines.has('host')) lines.set('host', `Host: ${target.host}\r\n`);
    let head = `${method} ${path} HTTP/1.1\r\n`;
    for (const line of lines.values()) head += line;
    head += '\r\n';
    const secure = target.protocol === 'https:';
    const port = Number(target.port) || (secure ? 443 : 80);
    const hostname = target.hostname.replace(/^\[|\]$/g, '');
    const origin = `${target.protocol}//${hostname}:${port}`;
    const socket = this.take(origin) ?? this.connect(origin, secure, hostname, port);
    const req = new UpstreamRequest(this, origin, socket, method);
    const bytes = Buffer.from(head, 'latin1') as unknown as Uint8Array;
    // One write, the head and the body. (A Buffer is the Uint8Array `write` takes: the DOM and Node typings disagree.)
    socket.write(body === undefined || body.byteLength === 0 ? bytes : (Buffer.concat([bytes, body]) as unknown as Uint8Array));
    return req;
  }

  /** Closes the idle connections; those in use close once their answers end. */
  close(): void {
    this.closing = true;
    for (const list of this.idle.values()) for (const c of [...list]) c.socket.destroy();
    this.idle.clear();
  }

  private connect(origin: string, secure: boolean, hostname: string, port: number): Socket {
    let socket: Socket;
    if (secure) {
      const session = this.sessions.get(origin);
      const s = tls.connect({ ...this.options.tls, host: hostname, port, ALPNProtocols: ['http/1.1'], ...(net.isIP(hostname) ? {} : { servername: hostname }), ...(session ? { session } : {}) });
      s.on('session', (next: Buffer) => this.sessions.set(origin, next));
      socket = s;
    } else socket = net.connect({ host: hostname, port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    return socket;
  }

  /** @internal An answer ended with its connection reusable: kept idle (unreferenced, so it keeps no process alive). */
  keep(origin: string, socket: Socket, idleMs: number): void {
    const list = this.idle.get(origin) ?? [];
    if (this.closing || idleMs <= 0 || list.length >= MAX_IDLE) return void socket.destroy();
    const drop = (): void => {
      const i = list.indexOf(entry);
      if (i !== -1) list.splice(i, 1);
      if (list.length === 0 && this.idle.get(origin) === list) this.idle.delete(origin);
      socket.destroy();
    };
    const entry: Idle = { socket, drop };
    // Closed by the upstream, broken, or bytes nobody asked for: not used again.
    socket.on('close', drop);
    socket.on('error', drop);
    socket.on('data', drop);
    socket.setTimeout(idleMs, drop);
    socket.unref();
    list.push(entry);
    this.idle.set(origin, list);
  }

  /** The most recently kept idle connection to `origin` that is still open. */
  private take(origin: string): Socket | undefined {
    const list = this.idle.get(origin);
    while (list !== undefined && list.length > 0) {
      const { socket, drop } = list.pop()!;
      socket.off('close', drop);
      socket.off('error', drop);
      socket.off('data', drop);
      socket.off('timeout', drop);
      socket.setTimeout(0);
      if (list.length === 0) this.idle.delete(origin);
      if (socket.destroyed || !socket.writable) {
        socket.destroy();
        continue;
      }
      socket.ref();
      return socket;
    }
    return undefined;
  }
}
