// The import rule of the floors (.dependency-cruiser.cjs, run by `npm run typecheck` as lint:layers): the repo
// keeps it, and a tree of deliberately upward imports breaks it, each import named with the rule it breaks.
// A tree with legal imports beside the illegal ones: a config that flagged everything would fail here too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The arguments `npm run lint:layers` gives depcruise, the config made absolute (so a fixture tree uses the repo's). */
function lintArgs(): string[] {
  const [bin, ...args] = (scripts['lint:layers'] ?? '').split(/\s+/);
  expect(bin).toBe('depcruise');
  const c = args.indexOf('--config');
  expect(args[c + 1]).toBe('.dependency-cruiser.cjs');
  return args.map((a, i) => (i === c + 1 ? CONFIG : a));
}

function depcruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [DEPCRUISE, ...lintArgs()], { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Each reported violation as one line: `rule: from → to`, or `rule: a → b → a` for a cycle of folders. */
function violations(out: string): string[] {
  return [...out.matchAll(/^\s*error ([\w-]+): (.*(?:\n {6}.*)*)/gm)].map(
    (m) => `${m[1]}: ${(m[2] ?? '').replace(/\s+/g, ' ').replace(/ →$/, '').trim()}`,
  );
}

// The fixture: a file per line, `path: source`. Upward imports and legal ones side by side.
const FIXTURE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'Bundler', strict: true, noEmit: true }, include: ['**/*.ts'] }),
  'node_modules/@angular/core/package.json': JSON.stringify({ name: '@angular/core', version: '0.0.0', main: 'index.js', types: 'index.d.ts' }),
  'node_modules/@angular/core/index.js': 'exports.signal = (v) => () => v;\n',
  'node_modules/@angular/core/index.d.ts': 'export declare function signal<T>(v: T): () => T;\n',
  // The root entry gathers floors (legal).
  'index.ts': "export { a } from './lib/a.js';\nexport { c } from './agent/c.js';\n",
  // lib/ → lib/ is legal; lib/ → operators/ is not.
  'lib/ok.ts': 'export const ok = 1;\n',
  'lib/a.ts': "import { ok } from './ok.js';\nimport { b } from '../operators/b.js';\nexport const a = ok + b;\n",
  // The package importing a test.
  'lib/e.ts': "import { f } from '../test/f.js';\nexport const e = f;\n",
  'test/f.ts': 'export const f = 1;\n',
  // operators/ → lib/ is legal; operators/ → agent/ is not, nor a type-only import from gateway/.
  'operators/ofType.ts': "import { ok } from '../lib/ok.js';\nexport const ofType = ok;\n",
  'operators/b.ts': "import { c } from '../agent/c.js';\nexport const b = c;\n",
  'operators/t.ts': "import type { Shape } from '../gateway/types.js';\nexport const t = (s: Shape): number => s.n;\n",
  'operators/internal/x.ts': 'export const x = 1;\n',
  // agent/ reaching into operators/internal, and importing the root entry.
  'agent/c.ts': "import { x } from '../operators/internal/x.js';\nexport const c = x;\n",
  'agent/i.ts': "import { a } from '../index.js';\nexport const i = a;\n",
  // gateway/ → operators/ is legal; gateway/ → agent/ is not, nor gateway/ → @angular.
  'gateway/d.ts': "import { c } from '../agent/c.js';\nimport { ofType } from '../operators/ofType.js';\nexport const d = c + ofType;\n",
  'gateway/types.ts': 'export interface Shape { n: number }\n',
  'gateway/j.ts': "import { signal } from '@angular/core';\nexport const j = signal(1);\n",
  // A cycle between two top-level folders: testing/ ↔ cli/ (cli → testing alone is legal).
  'testing/g.ts': "import { h } from '../cli/h.js';\nexport const g = h;\n",
  'cli/h.ts': "import { g } from '../testing/g.js';\nimport { a } from '../index.js';\nexport const h = a;\nexport const hg = (): number => g;\n",
  // angular/ → @angular and → operators/ is legal.
  'angular/k.ts': "import { signal } from '@angular/core';\nimport { ofType } from '../operators/ofType.js';\nexport const k = signal(ofType);\n",
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'openai-rx-layers-'));
  for (const [path, text] of Object.entries(FIXTURE)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the floors (.dependency-cruiser.cjs)', () => {
  test('npm run typecheck runs the import rule', () => {
    expect(scripts['typecheck']).toMatch(/&& npm run (--silent )?lint:layers$/);
  });

  test('the repo breaks no rule', () => {
    const { status, out } = depcruise(ROOT);
    expect(violations(out)).toEqual([]);
    expect(out).toContain('no dependency violations found');
    expect(status).toBe(0);
  }, 120_000);

  test('upward imports fail, each named with its rule; legal imports are not reported', () => {
    const { status, out } = depcruise(dir);
    const found = violations(out);
    const modules = found.filter((v) => !v.startsWith('no-cycle-between-floors:'));
    expect(modules.sort()).toEqual(
      [
        'lib-is-the-ground: lib/a.ts → operators/b.ts',
        'operators-stand-on-lib: operators/b.ts → agent/c.ts',
        'operators-stand-on-lib: operators/t.ts → gateway/types.ts',
        'floor3-not-to-each-other: gateway/d.ts → agent/c.ts',
        'operators-internal-is-private: agent/c.ts → operators/internal/x.ts',
        'root-entry-gathers-only: agent/i.ts → index.ts',
        'package-not-to-dev-code: lib/e.ts → test/f.ts',
        'nothing-imports-the-top: testing/g.ts → cli/h.ts',
        'only-angular-imports-angular: gateway/j.ts → node_modules/@angular/core/index.js',
      ].sort(),
    );
    // The folder cycles: the one built on purpose, and lib ↔ operators (lib/a.ts → operators, operators/ofType.ts → lib).
    // The folder cycles, each seen from both ends: the one built on purpose (testing ↔ cli), and the two the
    // upward imports above close with legal ones (lib/a.ts → operators, operators/ofType.ts → lib; operators/t.ts →
    // gateway, gateway/d.ts → operators).
    const cycles = found.filter((v) => v.startsWith('no-cycle-between-floors:'));
    expect(cycles.sort()).toEqual(
      ['testing → cli → testing', 'cli → testing → cli', 'lib → operators → lib', 'operators → lib → operators', 'operators → gateway → operators', 'gateway → operators → gateway']
        .map((c) => `no-cycle-between-floors: ${c}`)
        .sort(),
    );
    // Nothing else: the legal imports of the tree are in none of the lines.
    for (const legal of ['lib/a.ts → lib/ok.ts', 'gateway/d.ts → operators/ofType.ts', ': operators/ofType.ts →', ': angular/k.ts →', ': cli/h.ts →', ': index.ts →']) {
      expect(found.filter((v) => v.includes(legal))).toEqual([]);
    }
    expect(status).not.toBe(0);
  }, 120_000);
});
