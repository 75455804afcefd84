// The package's types as users' projects see them, under every `moduleResolution` they have: a small
// consumer project per mode imports `openai-rx`, `openai-rx/operators`, `openai-rx/codecs`, `openai-rx/testing` and
// `openai-rx/gateway` (and `openai-rx/angular` where Angular can be imported: ES module projects and bundlers), with the package
// installed from its own `npm pack` tarball (extracted into the project's node_modules, no network) and only its
// declared dependencies and peers (plus @types/node) linked from this repo's node_modules, then type-checked with
// the repo's TypeScript (`tsc --noEmit`, skipLibCheck off so that the package's own declarations are checked too).
// Nothing outside the project may help: TypeScript looks for node_modules/@types in every ancestor directory, so
// the project lives where no ancestor holds a node_modules, and its typeRoots name its own folder only.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanWorkDir, ensureBuilt, helpedBy, installPacked, pack, ROOT, run } from './helpers';

/** The consumer's code, the same in every mode. `@ts-expect-error` lines prove the types are real, not `any`. */
const CONSUMER = `
import { fromResponsesSSE, streamResponse, isEventType, type ClientConfig, type ResponseStreamEvent, type ResponseTextDeltaEvent } from 'openai-rx';
import { ResponseStreamTracker, ResponseTextDeltaEvent as TextDeltaCodec } from 'openai-rx/codecs';
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

// The root's event type is its codec's type; the codec itself is in openai-rx/codecs only.
export const deltaOf = (u: unknown): string | undefined => (TextDeltaCodec.is(u) ? u.delta : undefined);
export const sameType: (e: ResponseTextDeltaEvent) => TextDeltaCodec = (e) => e;
export const tracker = new ResponseStreamTracker({ sequence: 'strict' });

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

__ANGULAR__
// @ts-expect-error: outputText() emits strings
export const wrong$: Observable<number> = events$.pipe(outputText());
// @ts-expect-error: no such export
import { notAnExport } from 'openai-rx/operators';
export { notAnExport };
// @ts-expect-error: the root exports the event types, not their codecs
import { responseEventTable } from 'openai-rx';
export { responseEventTable };
`;

interface Mode {
  readonly name: string;
  readonly module: string;
  readonly moduleResolution: string;
  /** The consumer's own package.json "type" (node16 / nodenext read it). */
  readonly type?: 'module' | 'commonjs';
  /** `@angular/core` ships ES modules only: a CommonJS project cannot import it, so only these check `/angular`. */
  readonly angular?: true;
}

/** The Angular part of the consumer: signals typed from the package's declarations. */
const ANGULAR = `
import { responseSignals, injectResponse, type ResponseController, type ResponseSignals, type ResponseSignalsRef } from 'openai-rx/angular';
import type { Signal } from '@angular/core';
export function signalsOf(): ResponseSignalsRef { return responseSignals(events$); }
export const textOf = (s: ResponseSignals): Signal<string> => s.text;
export const controller = (): ResponseController => injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano' });
`;

const MODES: readonly Mode[] = [
  // The default of module: commonjs, as in a stock NestJS project.
  { name: 'node10', module: 'commonjs', moduleResolution: 'node10' },
  { name: 'node16 (CommonJS project)', module: 'node16', moduleResolution: 'node16', type: 'commonjs' },
  { name: 'node16 (ES module project)', module: 'node16', moduleResolution: 'node16', type: 'module', angular: true },
  { name: 'nodenext (CommonJS project)', module: 'nodenext', moduleResolution: 'nodenext', type: 'commonjs' },
  { name: 'nodenext (ES module project)', module: 'nodenext', moduleResolution: 'nodenext', type: 'module', angular: true },
  { name: 'bundler', module: 'esnext', moduleResolution: 'bundler', angular: true },
];

let work: string;
let tarball: string;
beforeAll(async () => {
  await ensureBuilt();
  work = cleanWorkDir('openai-rx-resolution-');
  tarball = join(work, (await pack({ destination: work })).filename);
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A consumer project in `dir`: the installed package, its dependencies and @types/node, a tsconfig for `mode`. */
async function project(mode: Mode, dir: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  // Peers the mode cannot import (Angular in a CommonJS project) stay out, as in such a user's project.
  const peers = Object.keys(pkg.peerDependencies).filter((name) => mode.angular || !name.startsWith('@angular/'));
  await installPacked(tarball, join(dir, 'node_modules'), [...Object.keys(pkg.dependencies), ...peers, '@types/node']);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, ...(mode.type && { type: mode.type }) }, null, 2));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022', lib: ['ES2022', 'DOM'], module: mode.module, moduleResolution: mode.moduleResolution,
          strict: true, skipLibCheck: false, types: ['node'], noEmit: true, esModuleInterop: true,
          typeRoots: ['./node_modules/@types'],
          // node10 is deprecated in TypeScript 6; this keeps the check meaningful until then.
          ...(mode.moduleResolution === 'node10' && { ignoreDeprecations: '5.0' }),
        },
        files: ['index.ts'],
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, 'index.ts'), CONSUMER.replace('__ANGULAR__', mode.angular ? ANGULAR : ''));
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
  test('no directory above the consumer projects holds a node_modules that could lend them types', () => {
    expect(helpedBy(work)).toEqual([]);
    for (const mode of MODES) expect(existsSync(join(work, mode.name.replace(/\W+/g, '-'), 'node_modules', 'openai-rx', 'package.json'))).toBe(true);
  });

  test.each(MODES.map((m) => [m.name, m] as const))('moduleResolution %s', async (name, mode) => {
    const result = await results.get(name)!;
    // Errors in the consumer or in the package's declarations; not in the linked @types/node, whose
    // version (the repo's) is older than the repo's TypeScript (users' projects have skipLibCheck for that).
    const errors = result.out.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors.filter((l) => !l.includes('/@types/node/'))).toEqual([]);
    // Resolved to the installed package's declarations (not its .ts sources, nor the repo itself).
    // An ES module project (and a bundler's `import`) reads the ES declarations; everything else the CommonJS ones.
    const half = mode.type === 'module' || mode.moduleResolution === 'bundler' ? 'esm' : 'cjs';
    const specs = ['openai-rx', 'openai-rx/operators', 'openai-rx/codecs', 'openai-rx/testing', 'openai-rx/gateway', ...(mode.angular ? ['openai-rx/angular'] : [])];
    for (const spec of specs) {
      const line = result.out.split('\n').find((l) => l.startsWith(`======== Module name '${spec}' was successfully resolved to`));
      expect(line).toMatch(new RegExp(`node_modules/openai-rx/dist/${half}/.*\\.d\\.ts'`));
    }
  }, 300_000);
});
