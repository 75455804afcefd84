/** @jest-environment ./test/angular/environment.js */
// The Angular chat box and its gateway, as docs/angular.md prints them ("Its backend: the gateway, and who the
// browser is"), work together: the gateway snippet is run as printed (its code, transpiled; the upstream it names is
// the fake provider, `node:http`'s listen(8080) a free port), the chat box's `injectResponse` options are taken from
// its snippet, and the page's requests go through a browser's fetch: page-relative URLs on the page's origin, the
// session cookie sent with every same-origin request (credentials 'same-origin', fetch's default), no API key
// anywhere on the page's side. The answer streams; a dropped connection is resumed with the same cookie; another
// user's cookie reaches none of it. Against the earlier pair (a gateway without `authorize`, mounted at /v1) the chat
// box ends in an error (404 for /api/v1, 401 missing_api_key once routed): this test fails there.
import { zoneless } from './setup';
import * as http from 'node:http';
import * as timers from 'node:timers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestBed } from '@angular/core/testing';
import ts from 'typescript';
import { injectResponse, type InjectResponseOptions } from '../../angular/index';
import { HTTPError } from '../../lib/errors';
import { retrieveResponseStream } from '../../lib/http/transports';
import * as gatewayEntry from '../../gateway/index';
import { FAKE_ANSWER, startFakeProvider, type FakeProvider } from '../../testing';
import { lastValueFrom, toArray } from 'rxjs';

const DOC = readFileSync(join(__dirname, '..', '..', 'docs', 'angular.md'), 'utf8');
const BLOCKS = [...DOC.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

function only(blocks: string[], what: string): string {
  if (blocks.length !== 1) throw new Error(`docs/angular.md: expected one ${what} snippet, found ${blocks.length}`);
  return blocks[0]!;
}
const GATEWAY_SNIPPET = only(BLOCKS.filter((b) => b.includes('createGateway(')), 'gateway');
const CHAT_BOX_SNIPPET = only(BLOCKS.filter((b) => b.includes('@Component') && b.includes('injectResponse(')), 'chat box');

/** The chat box's options, as printed: the object literal given to injectResponse. */
function chatBoxOptions(): InjectResponseOptions<string> {
  const literal = /injectResponse\((\{[^{}]*\})\)/.exec(CHAT_BOX_SNIPPET)?.[1];
  if (!literal) throw new Error('docs/angular.md: the chat box no longer calls injectResponse({ … }) with a plain object');
  return new Function(`return (${literal});`)() as InjectResponseOptions<string>;
}

const UPSTREAM_KEY = 'sk-upstream-kept-in-the-gateway';
const SESSIONS: Record<string, string> = { 'sess-alice': 'alice', 'sess-bob': 'bob' };

interface RunningSnippet {
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Runs the gateway snippet's code as printed. What it leaves to the reader is given here: `userOfSession` (the
 * sign-in's sessions), `serveApp` (a 404: no Angular build is served), `process` (its env holds the upstream key; a
 * SIGTERM handler is recorded). Its `createServer(…).listen(8080)` listens on a free loopback port instead.
 */
async function runGatewaySnippet(upstream: FakeProvider): Promise<RunningSnippet> {
  let code = ts.transpileModule(GATEWAY_SNIPPET, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const named = code.split("'https://api.openai.com/v1'").length - 1;
  if (named !== 1) throw new Error(`the gateway snippet names the OpenAI API as its upstream ${named} times, expected once`);
  code = code.replace("'https://api.openai.com/v1'", JSON.stringify(upstream.baseURL));

  const servers: http.Server[] = [];
  const gateways: gatewayEntry.Gateway[] = [];
  const modules: Record<string, unknown> = {
    'node:http': {
      ...http,
      createServer: (...args: Parameters<typeof http.createServer>) => {
        const server = http.createServer(...args);
        servers.push(server);
        const listen = server.listen.bind(server);
        server.listen = ((..._ignored: unknown[]) => listen(0, '127.0.0.1')) as typeof server.listen;
        return server;
      },
    },
    'openai-rx/gateway': {
      ...gatewayEntry,
      createGateway: (options?: gatewayEntry.GatewayOptions) => {
        const g = gatewayEntry.createGateway(options);
        gateways.push(g);
        return g;
      },
    },
  };
  const require = (name: string): unknown => {
    if (!(name in modules)) throw new Error(`the gateway snippet imports ${name}, which this test does not provide`);
    return modules[name];
  };
  const signals: string[] = [];
  const fakeProcess = { env: { OPENAI_API_KEY: UPSTREAM_KEY }, on: (signal: string) => (signals.push(signal), fakeProcess) };
  const userOfSession = async (id: string | undefined) => (id === undefined ? undefined : SESSIONS[id]);
  const serveApp = (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(404).end();
  new Function('require', 'exports', 'process', 'userOfSession', 'serveApp', code)(require, {}, fakeProcess, userOfSession, serveApp);

  expect(servers).toHaveLength(1);
  expect(gateways).toHaveLength(1);
  expect(signals).toEqual(['SIGTERM']);
  const server = servers[0]!;
  if (!server.listening) await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await gateways[0]!.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Node's own fetch (the environment's), which the page's fetch below stands in front of. */
const NODE_FETCH = globalThis.fetch;

interface BrowserRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
}

/**
 * A browser's fetch on a page served by `origin` (jsdom's page is http://localhost/): a relative or same-origin URL
 * goes to that server with the page's cookies (unless `credentials: 'omit'`); another origin is refused, as it
 * would need CORS. `dropFirstBodyAfter`: the first response body breaks after that many bytes, as a dropped
 * connection does.
 */
function browserFetch(origin: string, cookie: string, seen: BrowserRequest[], dropFirstBodyAfter?: number): typeof fetch {
  let dropped = false;
  const pageFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (url.origin !== location.origin) throw new TypeError(`a cross-origin request (${url.origin}) from a page on ${location.origin}`);
    const headers = new Headers(init?.headers);
    if ((init?.credentials ?? 'same-origin') !== 'omit') headers.set('cookie', cookie);
    seen.push({ method: init?.method ?? 'GET', path: `${url.pathname}${url.search}`, headers: Object.fromEntries(headers) });
    const response = await NODE_FETCH(`${origin}${url.pathname}${url.search}`, { ...init, headers });
    if (dropFirstBodyAfter === undefined || dropped || !response.body || !response.ok) return response;
    dropped = true;
    const reader = response.body.getReader();
    let passed = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        passed += value.byteLength;
        controller.enqueue(value);
        if (passed >= dropFirstBodyAfter) {
          await reader.cancel();
          controller.error(new TypeError('network error: the connection was reset'));
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return pageFetch as typeof fetch;
}

const until = async (check: () => boolean, what: string) => {
  for (const t0 = Date.now(); !check(); ) {
    if (Date.now() - t0 > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

let upstream: FakeProvider;
let gateway: RunningSnippet;
const saved: Record<string, string | undefined> = {};

// The gateway is a Node service (its timers are unref'd): here it runs beside the page, so the test's timers are Node's.
const TIMERS = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] as const;
const pageTimers = Object.fromEntries(TIMERS.map((name) => [name, globalThis[name]]));

beforeAll(async () => {
  for (const name of TIMERS) Object.assign(globalThis, { [name]: timers[name] });
  // A browser has no environment: nothing on the page's side may find a key there.
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL']) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
  // The fake provider insists on the gateway's own upstream key.
  upstream = await startFakeProvider({ apiKey: UPSTREAM_KEY, eventDelayMs: 2 });
  gateway = await runGatewaySnippet(upstream);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  Object.assign(globalThis, pageTimers);
});

let realFetch: typeof fetch;
beforeEach(() => {
  zoneless();
  realFetch = globalThis.fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('the chat box and its gateway, as docs/angular.md prints them', () => {
  test('the snippets are the pair: the chat box asks /api/v1 on its own origin, the gateway identifies the browser in authorize', () => {
    expect(chatBoxOptions().baseURL).toBe('/api/v1');
    expect(GATEWAY_SNIPPET).toContain('authorize');
    expect(GATEWAY_SNIPPET).toContain('req.headers.cookie');
  });

  test("a signed-in browser's question streams its answer (no API key on the page's side)", async () => {
    const seen: BrowserRequest[] = [];
    globalThis.fetch = browserFetch(gateway.origin, 'theme=dark; session=sess-alice', seen);
    const chat = TestBed.runInInjectionContext(() => injectResponse(chatBoxOptions()));
    chat.send('Why reactive streams?');
    const texts = new Set<string>();
    await until(() => (texts.add(chat.text()), chat.status() !== 'streaming'), 'the answer');
    expect(chat.error()).toBeUndefined();
    expect(chat.status()).toBe('done');
    expect(chat.text()).toBe(FAKE_ANSWER);
    expect(texts.size).toBeGreaterThan(3); // it streamed: the text grew in steps

    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/responses']);
    expect(seen[0]!.headers['authorization']).toBeUndefined();
    expect(seen[0]!.headers['cookie']).toContain('session=sess-alice');
    // The upstream saw the gateway's key (it refuses any other), never the browser's cookie.
    const created = [...upstream.responses.values()].pop()!;
    expect(chat.response()?.id).toBe(created.id);
  });

  test('a dropped connection is resumed from the gateway (resume: true), with the same cookie', async () => {
    const seen: BrowserRequest[] = [];
    globalThis.fetch = browserFetch(gateway.origin, 'session=sess-alice', seen, 1500);
    const chat = TestBed.runInInjectionContext(() => injectResponse(chatBoxOptions()));
    chat.send('And again?');
    await until(() => chat.status() !== 'streaming', 'the resumed answer');
    expect(chat.error()).toBeUndefined();
    expect(chat.status()).toBe('done');
    expect(chat.text()).toBe(FAKE_ANSWER);
    const id = chat.response()!.id;
    expect(seen.map((r) => `${r.method} ${r.path.replace(/starting_after=\d+/, 'starting_after=N')}`)).toEqual([
      'POST /api/v1/responses',
      `GET /api/v1/responses/${id}?stream=true&starting_after=N`,
    ]);
    expect(seen.every((r) => r.headers['cookie'] === 'session=sess-alice' && r.headers['authorization'] === undefined)).toBe(true);
  });

  test("another user's cookie, or none, reaches nothing", async () => {
    const alice: BrowserRequest[] = [];
    globalThis.fetch = browserFetch(gateway.origin, 'session=sess-alice', alice);
    const chat = TestBed.runInInjectionContext(() => injectResponse(chatBoxOptions()));
    chat.send('Mine?');
    await until(() => chat.status() !== 'streaming', 'the answer');
    expect(chat.status()).toBe('done');
    const id = chat.response()!.id;
    // The reconnect the chat box would make (resume: true), as bob, then without a session.
    const config = { baseURL: new URL('/api/v1', location.href).href };
    globalThis.fetch = browserFetch(gateway.origin, 'session=sess-bob', []);
    const asBob = await lastValueFrom(retrieveResponseStream(id, { startingAfter: 0 }, config).pipe(toArray())).catch((e: unknown) => e);
    expect(asBob).toBeInstanceOf(HTTPError);
    expect(asBob).toMatchObject({ status: 404 });
    globalThis.fetch = browserFetch(gateway.origin, '', []);
    const signedOut = await lastValueFrom(retrieveResponseStream(id, { startingAfter: 0 }, config).pipe(toArray())).catch((e: unknown) => e);
    expect(signedOut).toBeInstanceOf(HTTPError);
    expect(signedOut).toMatchObject({ status: 401, errorCode: 'no_session' });
  });
});
