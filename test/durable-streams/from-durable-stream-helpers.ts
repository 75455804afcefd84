import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { firstValueFrom, lastValueFrom, toArray, type Observable } from 'rxjs';
import type { DurableStreamBatch } from '../../lib/durable-streams/from-durable-stream';

/** A Durable Streams server under test: its base URL and how to stop it. */
export interface StreamServer {
  readonly name: string;
  /** The base under which streams are made, e.g. http://127.0.0.1:1234/v1/stream */
  readonly base: string;
  /** Another instance serving the same streams (`http://host:port`): the tests write there and read from `base`. */
  readonly writeOrigin?: string;
  stop(): Promise<void>;
}

/**
 * The protocol's reference server (@durable-streams/server) in a child process: loading it makes an Ed25519 key
 * pair at import (its webhooks'), a handle jest's open-handle detection reports for as long as the process lives.
 */
export async function referenceServer(options: { longPollTimeout?: number } = {}): Promise<StreamServer> {
  const script = `
    const { DurableStreamTestServer } = require('@durable-streams/server');
    const s = new DurableStreamTestServer({ port: 0, host: '127.0.0.1', longPollTimeout: ${options.longPollTimeout ?? 1000} });
    s.start().then((url) => process.stdout.write(url + '\\n'));
    process.stdin.on('end', () => s.stop().then(() => process.exit(0)));
    process.stdin.resume();
  `;
  const child = spawn(process.execPath, ['-e', script], { cwd: join(__dirname, '..', '..'), stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the reference server exited (${code})`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    name: 'reference',
    base: `${url}/v1/stream`,
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

let n = 0;
/** A fresh stream path under `base`. */
export const freshUrl = (base: string, label = 's'): string => `${base}/${label}-${process.pid}-${++n}`;

async function ok(res: Response, what: string): Promise<Response> {
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
  return res;
}

export async function createStream(url: string, contentType: string, body?: string | Uint8Array): Promise<void> {
  await ok(await fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, ...(body === undefined ? {} : { body: body as BodyInit }) }), `PUT ${url}`);
}

export async function append(url: string, contentType: string, body: string | Uint8Array, close = false): Promise<void> {
  await ok(await fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...(close ? { 'stream-closed': 'true' } : {}) }, body: body as BodyInit }), `POST ${url}`);
}

export async function closeStream(url: string): Promise<void> {
  await ok(await fetch(url, { method: 'POST', headers: { 'stream-closed': 'true' } }), `close ${url}`);
}

export async function deleteStream(url: string): Promise<void> {
  await ok(await fetch(url, { method: 'DELETE' }), `DELETE ${url}`);
}

export async function tailOffset(url: string): Promise<string> {
  const res = await fetch(url, { method: 'HEAD' });
  return res.headers.get('stream-next-offset') ?? '';
}

export const collect = <T>(o: Observable<T>): Promise<T[]> => lastValueFrom(o.pipe(toArray()));
export const first = <T>(o: Observable<T>): Promise<T> => firstValueFrom(o);

export const messagesIn = (batches: readonly DurableStreamBatch[]): unknown[] => batches.flatMap((b) => ('messages' in b ? [...b.messages] : []));
export function bytesIn(batches: readonly DurableStreamBatch[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(batches.map((b) => ('bytes' in b ? b.bytes : new Uint8Array(0)))));
}

export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await delay(5);
  }
}

/**
 * A TCP proxy in front of a server, to see the client's connections and cut them: `cut()` destroys every open
 * connection; `cutAfter(bytes)` lets the next connection's answer through up to `bytes`, then destroys it.
 */
export interface CuttingProxy {
  readonly url: string;
  /** Connections from the client still open. */
  open(): number;
  /** The last request line of each open client connection that carried one. */
  openRequests(): string[];
  /** Connections accepted so far. */
  accepted(): number;
  cut(): void;
  cutAfter(bytes: number): void;
  stop(): Promise<void>;
}

export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  const t = new URL(target);
  const sockets = new Set<Socket>();
  // The last request line each client connection carried.
  const requests = new Map<Socket, string>();
  let accepted = 0;
  let budget: number | undefined;
  const { connect } = await import('node:net');
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(Number(t.port), t.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let left = budget;
    budget = undefined;
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      requests.delete(client);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    client.on('data', (d: Uint8Array) => {
      const line = Buffer.from(d).toString('latin1').split('\r\n')[0]!;
      if (/^[A-Z]+ \S+ HTTP\/1\.1$/.test(line)) requests.set(client, line);
      upstream.write(d);
    });
    upstream.on('data', (d: Uint8Array) => {
      if (left === undefined) return void client.write(d);
      if (d.length >= left) {
        client.write(d.subarray(0, left), () => end());
        left = 0;
        return;
      }
      left -= d.length;
      client.write(d);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => [...sockets].filter((s) => s.remotePort !== Number(t.port)).length,
    accepted: () => accepted,
    openRequests: () => [...requests.values()],
    cut: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    cutAfter: (bytes) => {
      budget = bytes;
    },
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
