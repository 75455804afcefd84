// The gateway as tenants meet it: a real gateway process (node running the built package, as an operator would)
// with an application `authorize` and one shared upstream key, two users, and a loopback upstream that records
// everything it receives. Each attack test asks: what did the attacker get, and what reached the upstream?
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../../testing/index';
import { ROOT, run } from '../../package/helpers';

/** The gateway's own upstream key, shared by every user: it must never reach a client. */
export const SHARED_KEY = 'sk-proj-GATEWAYSECRETgatewaysecret0123456789abcdef';

/** What the upstream received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query exactly as sent. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** An answer the test scripts for one request instead of the fake provider's. */
export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
  /**
   * The body as these pieces instead (text, or bytes that need not be UTF-8), each written once the one before has
   * gone out, a few ms apart: a body whose secrets are cut across chunks (the client may still get them joined).
   */
  readonly chunks?: ReadonlyArray<string | Uint8Array>;
}

export interface RecordingUpstream {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Requests whose path is not the fake provider's own bookkeeping (all of them, as received). */
  close(): Promise<void>;
}

/**
 * A loopback upstream: every request is recorded, then answered by `script` when it returns an answer, else by
 * the fake provider behind it (which speaks the Responses and Chat Completions APIs and requires {@link SHARED_KEY}).
 */
export async function startRecordingUpstream(
  script?: (req: RecordedRequest) => ScriptedAnswer | undefined,
  provider?: FakeProviderOptions,
): Promise<RecordingUpstream> {
  const fake: FakeProvider = await startFakeProvider({ apiKey: SHARED_KEY, ...provider });
  const requests: RecordedRequest[] = [];
  const server = await listen(async (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    for await (const c of req) body += c as string;
    const rec: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
    requests.push(rec);
    const scripted = script?.(rec);
    if (scripted) {
      res.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
      for (const piece of scripted.chunks ?? []) {
        await new Promise<void>((resolve) => res.write(piece, () => setTimeout(resolve, 2)));
      }
      res.end(scripted.chunks ? undefined : scripted.body);
      return;
    }
    await relay(fake.baseURL.replace(/\/v1$/, ''), rec, res);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      await closeServer(server);
      await fake.close();
    },
  };
}

/** Passes one recorded request on to the fake provider and streams its answer back. */
async function relay(origin: string, rec: RecordedRequest, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
  try {
    const answer = await fetch(`${origin}${rec.url}`, { method: rec.method, headers, ...(rec.body && rec.method !== 'GET' && rec.method !== 'HEAD' ? { body: rec.body } : {}) });
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
    });
    res.writeHead(answer.status, out);
    const reader = answer.body?.getReader();
    for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) res.write(r.value);
    res.end();
  } catch {
    res.destroy();
  }
}

/** Options the gateway process is started with (JSON: what an operator would put in a config file). */
export interface GatewayProcessOptions {
  readonly upstream: string;
  /** `'memory'` (default) or a `redis://` URL. */
  readonly log?: string;
  /** Any other `createGateway` option that JSON can say (passThrough, accessLog: 'stdout', timeouts…). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface GatewayProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** What the process printed on stdout and stderr (an access log, warnings). */
  output(): string;
  close(): Promise<void>;
}

/**
 * The gateway as its own process. `authorize` is the application's: `Authorization: Bearer user-<name>` is the
 * user `<name>` (its owner), anything else a 401; every user goes upstream with {@link SHARED_KEY}.
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  // The process runs dist/: rebuilt when older than the sources (atomic, so suites may race), never a stale one.
  await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const entry = join(ROOT, 'dist', 'cjs', 'gateway', 'index.js');
  const script = `
    const { createServer } = require('node:http');
    const { createGateway, GatewayHttpError } = require(${JSON.stringify(entry)});
    const o = JSON.parse(process.env.GATEWAY_OPTIONS);
    const gateway = createGateway({
      ...o.extra,
      upstream: { baseURL: o.upstream, apiKey: ${JSON.stringify(SHARED_KEY)} },
      log: o.log ?? 'memory',
      authorize: (req) => {
        const m = /^Bearer user-([a-z]+)$/.exec(req.headers.authorization ?? '');
        if (!m) throw new GatewayHttpError(401, 'Unknown user.');
        return { owner: m[1] };
      },
    });
    const server = createServer(gateway).listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
    process.on('SIGTERM', () => { server.closeAllConnections(); server.close(); gateway.close().then(() => process.exit(0)); });
  `;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, OPENAI_API_KEY: '', GATEWAY_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway process did not start: ${out}`)), 60_000);
    const check = (): void => {
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway process exited with ${code}: ${out}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    output: () => out,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/** The two tenants: each is identified by its own bearer token, and neither holds the upstream key. */
export const auth = (user: 'alice' | 'bob'): Record<string, string> => ({ authorization: `Bearer user-${user}` });

/** A request to the gateway as a user: status, headers and the whole body as text. */
export async function call(
  origin: string,
  user: 'alice' | 'bob',
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { ...auth(user), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<Server> {
  const server = createServer((req, res) => void handler(req, res));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  (server as Server & { sockets?: Set<Socket> }).sockets = sockets;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function closeServer(server: Server): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  for (const s of (server as Server & { sockets?: Set<Socket> }).sockets ?? []) s.destroy();
  await stopped;
}

/**
 * A request sent with its path exactly as given (no URL parsing on the way: `fetch` would resolve `..`, `\` and
 * `%2e` itself, and the gateway would never see them), as a user.
 */
export function rawCall(
  origin: string,
  user: 'alice' | 'bob',
  method: string,
  rawPath: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), method, path: rawPath, headers: { ...auth(user), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The attacker's answer is the unknown id's: the same status and the same body once each id is replaced by a
 * placeholder (the only difference allowed is the id the request itself named).
 */
export function expectSameAsUnknown(
  attack: { status: number; text: string },
  unknown: { status: number; text: string },
  ids: { attacked: string; unknown: string },
): void {
  const norm = (text: string, id: string): string => text.split(id).join('<id>');
  expect({ status: attack.status, body: norm(attack.text, ids.attacked) }).toEqual({ status: unknown.status, body: norm(unknown.text, ids.unknown) });
}
