// openai-rx/angular as an Angular application gets it: the packed tarball installed in a consumer project,
// imported as an ES module and required from CommonJS in Node (the CJS build loads ESM-only @angular/core
// through require(esm), Node 20.19+, the floor of Angular 21 too), its types checked under `bundler` and
// `node16`; and no other entry point of the build mentions Angular.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureBuilt, pack, ROOT, run } from '../package/helpers';

/** Streams a scripted answer through responseSignals under a bare environment injector; prints what it saw. */
const SCRIPT = (load: string) => `
${load}
const ev = (type, more = {}) => ({ type, sequence_number: n++, ...more });
let n = 0;
const resp = (status) => ({ id: 'resp_1', object: 'response', status, output: [] });
const events = [
  ev('response.created', { response: resp('in_progress') }),
  ev('response.output_item.added', { output_index: 0, item: { id: 'm', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }),
  ev('response.output_text.delta', { item_id: 'm', output_index: 0, content_index: 0, delta: 'Hello ', logprobs: [] }),
  ev('response.output_text.delta', { item_id: 'm', output_index: 0, content_index: 0, delta: 'from the package', logprobs: [] }),
  ev('response.completed', { response: resp('completed') }),
];
const injector = core.createEnvironmentInjector([], core.Injector.NULL);
const answer = angular.responseSignals(rxjs.of(...events), { injector });
const controller = angular.injectResponse({ stream: () => rxjs.NEVER, injector, smooth: false });
controller.send('q');
injector.destroy();
console.log(JSON.stringify({ text: answer.text(), status: answer.status(), after: controller.status(), smooth: typeof angular.smoothText }));
`;

const TYPES = `
import { injectResponse, responseSignals, type ResponseController, type ResponseStatus } from 'openai-rx/angular';
import type { Signal } from '@angular/core';
export const make = (): ResponseController<string> => injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano', resume: true });
export const status = (c: ResponseController): ResponseStatus => c.status();
export const text: (c: ResponseController) => Signal<string> = (c) => c.text;
export { responseSignals };
// @ts-expect-error: status is one of five strings
export const wrong: (c: ResponseController) => Signal<number> = (c) => c.status;
`;

let work: string;
beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'openai-rx-angular-'));
  const tarball = join(work, (await pack({ destination: work })).filename);
  const modules = join(work, 'consumer', 'node_modules');
  mkdirSync(join(modules, 'openai-rx'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'openai-rx'), '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), '@types/node', 'tslib']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const consumer = () => join(work, 'consumer');

test('imported as an ES module: the answer as signals, cancelled with its injector', async () => {
  writeFileSync(join(consumer(), 'esm.mjs'), SCRIPT("import * as angular from 'openai-rx/angular';\nimport * as core from '@angular/core';\nimport * as rxjs from 'rxjs';"));
  const { stdout } = await run(process.execPath, ['esm.mjs'], { cwd: consumer() });
  expect(JSON.parse(stdout)).toEqual({ text: 'Hello from the package', status: 'done', after: 'cancelled', smooth: 'function' });
}, 60_000);

test('required from CommonJS: the same', async () => {
  writeFileSync(join(consumer(), 'cjs.cjs'), SCRIPT("const angular = require('openai-rx/angular');\nconst core = require('@angular/core');\nconst rxjs = require('rxjs');"));
  const { stdout } = await run(process.execPath, ['--no-warnings', 'cjs.cjs'], { cwd: consumer() });
  expect(JSON.parse(stdout)).toEqual({ text: 'Hello from the package', status: 'done', after: 'cancelled', smooth: 'function' });
}, 60_000);

test.each([
  ['bundler', 'esnext', 'bundler', undefined],
  ['node16 (ES module project)', 'node16', 'node16', 'module'],
] as const)('the types check under moduleResolution %s', async (name, module, moduleResolution, type) => {
  const dir = join(work, name.replace(/\W+/g, '-'));
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(consumer(), 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, ...(type && { type }) }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', lib: ['ES2022', 'DOM'], module, moduleResolution, strict: true, skipLibCheck: true, types: [], noEmit: true },
    files: ['index.ts'],
  }));
  writeFileSync(join(dir, 'index.ts'), TYPES);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir }).then(
    (r) => r.stdout,
    (e: { stdout?: string }) => e.stdout ?? 'tsc failed',
  );
  expect(result).toBe('');
}, 240_000);

test('only the angular build mentions @angular: the other entry points never pull it in', () => {
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  const offenders = walk(join(ROOT, 'dist'))
    .filter((f) => /\.(js|d\.ts)$/.test(f) && !/[/\\]angular[/\\]/.test(f))
    .filter((f) => /from\s*['"]@angular\/|require\(['"]@angular\//.test(readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
  expect(readFileSync(join(ROOT, 'dist', 'esm', 'angular', 'response-state.js'), 'utf8')).toMatch(/from '@angular\/core'/);
});
