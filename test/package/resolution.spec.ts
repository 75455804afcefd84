// The package's types as users' projects see them, under every `moduleResolution` they have: a small
// consumer project per mode imports `openai-rx`, `openai-rx/operators`, `openai-rx/testing` and `openai-rx/gateway`, with the
// package installed from its own `npm pack` tarball (extracted into the project's node_modules, no network)
// and its dependencies linked from this repo's node_modules, then type-checked with the repo's TypeScript
// (`tsc --noEmit`, skipLibCheck off so that the package's own declarations are checked too).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureBuilt, pack, ROOT, run } from './helpers';

/** The consumer's code, the same in every mode. `@ts-expect-error` lines prove the types are real, not `any`. */
const CONSUMER = `
import { fromResponsesSSE, streamResponse, isEventType, type ClientConfig, type ResponseStreamEvent } from 'openai-rx';
import { accumulateResponse, collectToolCalls, ofType, outputText, type ToolCall } from 'openai-rx/operators';
import { startTestServer, textTranscript, type TestServer } from 'openai-rx/testing';
import { createGateway, type Gateway } from 'openai-rx/gateway';
import { lastValueFrom, map, type Observable } from 'rxjs';

const config: ClientConfig = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' };
const events$: Observable<ResponseStreamEvent> = streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' }, config);
export const deltas$: Observable<string> = events$.pipe(ofType('response.output_text.delta'), map((e) => e.delta));
export const text$: Observable<string> = events$.pipe(outputText());
export const calls$: Observable<ToolCall> = events$.pipe(collectToolCalls());
export const ids$: Observable<string | undefined> = fromResponsesSSE('data: {}\\n\\n').pipe(map((e) => (isEventType(e, 'response.created') ? e.response.id : undefined)));

export async function itemCount(): Promise<number> {
  const final = await lastValueFrom(events$.pipe(accumulateResponse()));
  return final.output.length; // never undefined
}

export async function serve(): Promise<string> {
  const server: TestServer = await startTestServer({ transcripts: { text: textTranscript({ deltas: ['Hi'] }) } });
  await server.close();
  return server.baseURL;
}

export function gateway(): Gateway {
  return createGateway({ upstream: { baseURL: 'http://127.0.0.1:9/v1' } });
}

// @ts-expect-error: outputText() emits strings
export const wrong$: Observable<number> = events$.pipe(outputText());
// @ts-expect-error: no such export
import { notAnExport } from 'openai-rx/operators';
export { notAnExport };
`;

interface Mode {
  readonly name: string;
  readonly module: string;
  readonly moduleResolution: string;
  /** The consumer's own package.json "type" (node16 / nodenext read it). */
  readonly type?: 'module' | 'commonjs';
}

const MODES: readonly Mode[] = [
  // The default of module: commonjs, as in a stock NestJS project.
  { name: 'node10', module: 'commonjs', moduleResolution: 'node10' },
  { name: 'node16 (CommonJS project)', module: 'node16', moduleResolution: 'node16', type: 'commonjs' },
  { name: 'node16 (ES module project)', module: 'node16', moduleResolution: 'node16', type: 'module' },
  { name: 'nodenext (CommonJS project)', module: 'nodenext', moduleResolution: 'nodenext', type: 'commonjs' },
  { name: 'nodenext (ES module project)', module: 'nodenext', moduleResolution: 'nodenext', type: 'module' },
  { name: 'bundler', module: 'esnext', moduleResolution: 'bundler' },
];

let work: string;
let tarball: string;
beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'openai-rx-resolution-'));
  tarball = join(work, (await pack({ destination: work })).filename);
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A consumer project in `dir`: the installed package, its dependencies and @types/node, a tsconfig for `mode`. */
async function project(mode: Mode, dir: string): Promise<void> {
  const modules = join(dir, 'node_modules');
  // A copy, not a link: a linked package would find its dependencies from where the link points.
  mkdirSync(join(modules, 'openai-rx'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'openai-rx'), '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), '@types/node']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, ...(mode.type && { type: mode.type }) }, null, 2));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022', lib: ['ES2022', 'DOM'], module: mode.module, moduleResolution: mode.moduleResolution,
          strict: true, skipLibCheck: false, types: ['node'], noEmit: true, esModuleInterop: true,
          // node10 is deprecated in TypeScript 6; this keeps the check meaningful until then.
          ...(mode.moduleResolution === 'node10' && { ignoreDeprecations: '5.0' }),
        },
        files: ['index.ts'],
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, 'index.ts'), CONSUMER);
}

/** Type-checks the project in `dir` with the repo's TypeScript, tracing module resolution. */
function check(dir: string): Promise<{ code: number; out: string }> {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--noEmit', '--pretty', 'false', '--traceResolution'], { cwd: dir, maxBuffer: 256 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '' }),
  );
}

// The projects are checked all at once (each check is a separate tsc process); each test reads its own result.
const results = new Map<string, Promise<{ code: number; out: string }>>();
beforeAll(async () => {
  await Promise.all(
    MODES.map(async (mode) => {
      const dir = join(work, mode.name.replace(/\W+/g, '-'));
      await project(mode, dir);
      results.set(mode.name, check(dir));
    }),
  );
}, 300_000);

describe('the package type-checks in a consumer project', () => {
  test.each(MODES.map((m) => [m.name, m] as const))('moduleResolution %s', async (name) => {
    const result = await results.get(name)!;
    // Errors in the consumer or in the package's declarations; not in the linked @types/node, whose
    // version (the repo's) is older than the repo's TypeScript (users' projects have skipLibCheck for that).
    const errors = result.out.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors.filter((l) => !l.includes('/@types/node/'))).toEqual([]);
    // Resolved to the installed package's declarations (not its .ts sources, nor the repo itself).
    for (const spec of ['openai-rx', 'openai-rx/operators', 'openai-rx/testing', 'openai-rx/gateway']) {
      const line = result.out.split('\n').find((l) => l.startsWith(`======== Module name '${spec}' was successfully resolved to`));
      expect(line).toMatch(/node_modules\/openai-rx\/dist\/types\/.*\.d\.ts'/);
    }
  }, 300_000);
});
