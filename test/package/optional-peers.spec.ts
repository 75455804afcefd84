// ioredis and ws are optional peer dependencies: a project without them (a browser or Angular app, a server that
// needs neither) installs the package from its `npm pack` tarball with only its required dependencies (and
// @angular/core, @types/node), and then:
// - the entries a browser or Angular app uses (the root, operators, angular, codecs when there is one) type-check
//   with skipLibCheck off (their declarations name neither package) and load, as ES modules and as CommonJS;
// - streamResponse streams from a loopback server;
// - opening a WebSocket (Node 20: no global one) and using a Redis log fail then, with an error naming the
//   package to install; so does starting openai-rx/testing's WebSocket server (its SSE servers need no ws).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textTranscript } from '../../testing/transcripts';
import { cleanWorkDir, ensureBuilt, helpedBy, installPacked, pack, ROOT, run } from './helpers';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; exports: Record<string, unknown> };
/** The entries that must not need a server package (`openai-rx/codecs` once the package has it). */
const ENTRIES = ['.', './operators', './angular', './codecs'].filter((e) => e in pkg.exports).map((e) => `openai-rx${e.slice(1)}`);
const DELTAS = ['Hello', ', ', 'world'];

interface Kind {
  readonly name: 'esm' | 'cjs';
  readonly module: string;
  /** How the run script loads the module named by the JavaScript expression `spec`. */
  readonly load: (spec: string) => string;
}
const KINDS: readonly Kind[] = [
  { name: 'esm', module: 'nodenext', load: (spec) => `(await import(${spec}))` },
  // require(): the CommonJS build (an import() would load the ES one); @angular/core (ES only) through require(esm).
  { name: 'cjs', module: 'node16', load: (spec) => `require(${spec})` },
];

/** Type-checked only: what the consumer may write, the Redis log's options and the error types included. */
const CONSUMER = `
import { connectResponsesSocket, EventLogError, MissingPeerDependencyError, redisEventLog, streamResponse, type ClientConfig, type RedisEventLogOptions, type ResponsesSocket } from 'openai-rx';
import { ofType, outputText } from 'openai-rx/operators';
import { startResponsesWebSocketServer, startTestServer, type ResponsesWebSocketServer, type TestServer } from 'openai-rx/testing';
import { map, type Observable } from 'rxjs';
__EXTRA__
const config: ClientConfig = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' };
export const text$: Observable<string> = streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, config).pipe(outputText());
export const deltas$: Observable<string> = streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, config).pipe(ofType('response.output_text.delta'), map((e) => e.delta));
const options: RedisEventLogOptions = { url: 'redis://127.0.0.1:9', keyPrefix: 'app:' };
export const log = () => redisEventLog(options);
export const socket = (): ResponsesSocket => connectResponsesSocket({ url: 'ws://127.0.0.1:9/v1/responses' });
export const servers = (): [Promise<TestServer>, Promise<ResponsesWebSocketServer>] => [startTestServer({ transcripts: {} }), startResponsesWebSocketServer()];
export const named = (e: unknown): string | undefined => (e instanceof MissingPeerDependencyError ? e.packageName : e instanceof EventLogError ? e.reason : undefined);
// @ts-expect-error: a client is an ioredis Redis or Cluster, not any object
export const wrong: RedisEventLogOptions = { client: { status: 'ready' } };
`;

const ANGULAR = `
import { responseSignals, type ResponseSignalsRef } from 'openai-rx/angular';
export const signals = (): ResponseSignalsRef => responseSignals(streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, config));
`;

/** Run: loads every entry, streams from a loopback SSE server, then opens a socket and uses a Redis log. */
const RUN = (load: (spec: string) => string): string => {
  const q = JSON.stringify;
  return `
const run = async () => {
  const { createServer } = ${load(q('node:http'))};
  const { readFileSync } = ${load(q('node:fs'))};
  const { lastValueFrom, toArray } = ${load(q('rxjs'))};
  const loaded = {};
  for (const spec of ${JSON.stringify(ENTRIES)}) loaded[spec] = Object.keys(${load('spec')}).length;
  const root = ${load(q('openai-rx'))};
  const { ofType } = ${load(q('openai-rx/operators'))};
  const transcript = readFileSync(process.argv[2], 'utf8');
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(req.method + ' ' + req.url);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(transcript);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const events = await lastValueFrom(root.streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, { baseURL: 'http://127.0.0.1:' + port + '/v1', apiKey: 'sk-test' }).pipe(ofType('response.output_text.delta'), toArray()));
    const socket = root.connectResponsesSocket({ url: 'ws://127.0.0.1:' + port + '/v1/responses', apiKey: 'sk-test' });
    const ws = await lastValueFrom(socket.events$).then(() => undefined, (e) => e);
    const log = root.redisEventLog({ url: 'redis://127.0.0.1:' + port });
    const redis = await log.state({ responseId: 'resp_1' }).then(() => undefined, (e) => e);
    await log.close();
    const testing = ${load(q('openai-rx/testing'))};
    const wsServer = await testing.startResponsesWebSocketServer().then(async (s) => { await s.close(); return undefined; }, (e) => e);
    console.log(JSON.stringify({
      loaded,
      text: events.map((e) => e.delta).join(''),
      requests,
      socketState: socket.state,
      ws: ws && { name: ws.name, packageName: ws.packageName, message: ws.message, typed: ws instanceof root.MissingPeerDependencyError },
      wsServer: wsServer && { name: wsServer.name, packageName: wsServer.packageName, message: wsServer.message },
      redis: redis && { name: redis.name, reason: redis.reason, retryable: redis.retryable, message: redis.message, typed: redis instanceof root.EventLogError, cause: redis.cause instanceof root.MissingPeerDependencyError && redis.cause.packageName },
    }));
  } finally {
    server.close();
  }
};
run().catch((e) => { console.error(e); process.exitCode = 1; });
`;
};

let work: string;
let tarball: string;
beforeAll(async () => {
  await ensureBuilt();
  work = cleanWorkDir('openai-rx-optional-peers-');
  tarball = join(work, (await pack({ destination: work })).filename);
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A project of `kind` in `dir`: the package, its dependencies, rxjs, @angular/core and @types/node; no ws, no ioredis. */
async function project(kind: Kind, dir: string): Promise<void> {
  await installPacked(tarball, join(dir, 'node_modules'), [...Object.keys(pkg.dependencies), 'rxjs', '@angular/core', '@types/node']);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: kind.name === 'esm' ? 'module' : 'commonjs' }, null, 2));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022', lib: ['ES2022', 'DOM'], module: kind.module, moduleResolution: kind.module, strict: true, skipLibCheck: false,
        types: ['node'], typeRoots: ['./node_modules/@types'], noEmit: true,
      },
      files: ['index.ts'],
    }),
  );
  // Angular's types only where Angular can be imported (an ES module project); its code loads in both.
  const codecs = ENTRIES.includes('openai-rx/codecs') ? "import * as codecs from 'openai-rx/codecs';\nexport const codecNames = Object.keys(codecs);\n" : '';
  writeFileSync(join(dir, 'index.ts'), CONSUMER.replace('__EXTRA__', (kind.name === 'esm' ? ANGULAR : '') + codecs));
  writeFileSync(join(dir, kind.name === 'esm' ? 'run.mjs' : 'run.cjs'), RUN(kind.load));
  writeFileSync(join(dir, 'transcript.sse'), textTranscript({ deltas: DELTAS, responseId: 'resp_peers' }));
}

const outcome = (p: Promise<{ stdout: string; stderr: string }>): Promise<{ code: number; out: string; err: string }> =>
  p.then(
    (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '', err: e.stderr ?? '' }),
  );

const dirs = new Map<string, string>();
const checks = new Map<string, Promise<{ code: number; out: string; err: string }>>();
const runs = new Map<string, Promise<{ code: number; out: string; err: string }>>();
beforeAll(async () => {
  for (const kind of KINDS) {
    const dir = join(work, kind.name);
    dirs.set(kind.name, dir);
    await project(kind, dir);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    checks.set(kind.name, outcome(run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--noEmit', '--pretty', 'false'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 })));
    runs.set(kind.name, outcome(run(process.execPath, [join(dir, kind.name === 'esm' ? 'run.mjs' : 'run.cjs'), join(dir, 'transcript.sse')], { cwd: dir, timeout: 120_000 })));
  }
}, 300_000);

describe('without the optional peers ws and ioredis', () => {
  test('the projects cannot find ws or ioredis, and nothing above them lends a node_modules', () => {
    expect(helpedBy(work)).toEqual([]);
    for (const dir of dirs.values()) {
      for (const name of ['ws', 'ioredis', '@types/ws']) {
        expect(existsSync(join(dir, 'node_modules', name))).toBe(false);
        expect(() => require.resolve(name, { paths: [dir] })).toThrow();
      }
      expect(existsSync(join(dir, 'node_modules', 'openai-rx', 'package.json'))).toBe(true);
    }
  });

  test.each(KINDS.map((k) => [k.name]))('%s: the entries type-check with skipLibCheck off', async (name) => {
    const result = await checks.get(name)!;
    // As in resolution.spec: not the linked @types/node, older than the repo's TypeScript.
    const errors = result.out.split('\n').filter((l) => /error TS\d+/.test(l) && !l.includes('/@types/node/'));
    expect(errors).toEqual([]);
  }, 300_000);

  test.each(KINDS.map((k) => [k.name]))('%s: the entries load, streamResponse streams, a socket and a Redis log fail naming the package', async (name) => {
    const result = await runs.get(name)!;
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.out) as Record<string, unknown>;
    for (const spec of ENTRIES) expect((report['loaded'] as Record<string, number>)[spec]).toBeGreaterThan(0);
    expect(report['text']).toBe(DELTAS.join(''));
    // The socket never reached the server (it has no WebSocket to open), the Redis log neither (no client).
    expect(report['requests']).toEqual(['POST /v1/responses']);
    expect(report['socketState']).toBe('closed');
    expect(report['ws']).toEqual({
      name: 'MissingPeerDependencyError',
      packageName: 'ws',
      message: "connectResponsesSocket needs the optional peer dependency 'ws' (this Node has no global WebSocket): npm install ws",
      typed: true,
    });
    expect(report['wsServer']).toEqual({
      name: 'MissingPeerDependencyError',
      packageName: 'ws',
      message: "startResponsesWebSocketServer needs the optional peer dependency 'ws': npm install ws",
    });
    expect(report['redis']).toEqual({
      name: 'EventLogError',
      reason: 'missing_dependency',
      retryable: false,
      message: "missing_dependency: redisEventLog needs the optional peer dependency 'ioredis': npm install ioredis (response resp_1)",
      typed: true,
      cause: 'ioredis',
    });
  }, 300_000);
});
