// What `npm pack` (and so `npm publish`) ships: the build, its sources for the maps, README, LICENSE and
// package.json; nothing of the tests, fixtures, benchmarks, examples or scripts.
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { ensureBuilt, pack, ROOT, type PackResult } from './helpers';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  files: string[];
  /** Each subpath: a file, or conditions (`import` / `require`) each naming its own `types` and `default`. */
  exports: Record<string, string | Record<string, string | Record<string, string>>>;
  typesVersions: Record<string, Record<string, string[]>>;
  types: string;
  main: string;
  module: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  license: string;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
};

let packed: PackResult;
let paths: Set<string>;
beforeAll(async () => {
  await ensureBuilt();
  packed = await pack({ dryRun: true });
  paths = new Set(packed.files.map((f) => f.path));
}, 240_000);

const strip = (p: string) => p.replace(/^\.\//, '');
/** Every file an exports entry names, through nested conditions. */
const targetsOf = (t: string | Record<string, unknown>): string[] =>
  typeof t === 'string' ? [t] : Object.values(t).flatMap((v) => targetsOf(v as string | Record<string, unknown>));

describe('npm pack', () => {
  test('ships the three builds, README, LICENSE and package.json', () => {
    for (const p of ['package.json', 'README.md', 'LICENSE', 'dist/esm/package.json', 'dist/cjs/package.json']) expect(paths).toContain(p);
    for (const entry of [pkg.main, pkg.module, pkg.types, ...Object.values(pkg.bin)]) expect(paths).toContain(strip(entry));
  });

  test('every exports target and typesVersions path is in the package', () => {
    const targets = Object.values(pkg.exports).flatMap(targetsOf);
    const typesPaths = Object.values(pkg.typesVersions).flatMap((m) => Object.values(m).flat());
    for (const t of [...targets, ...typesPaths]) expect(paths).toContain(strip(t));
  });

  test('nothing test-only: no tests, fixtures, marbles, benchmarks, examples, scripts, CI files or build leftovers', () => {
    const unwanted = [...paths].filter((p) =>
      /^(test|marbles|bench|examples|scripts|docs|coverage|node_modules|\.ci)\//.test(p) ||
      /(^|\/)(fixtures?|__tests__)\//.test(p) ||
      /\.(spec|test)\.[cm]?[jt]s$|-spec\.[cm]?[jt]s$/.test(p) ||
      /(^|\/)(tsconfig[^/]*\.json|jest\.config\.js|package-lock\.json|\.build-stamp|\.gitignore)$/.test(p) ||
      /\.(sse|tgz|log|cpuprofile)$/.test(p),
    );
    expect(unwanted).toEqual([]);
    // Outside dist/, only the TypeScript sources the maps point at (and the top-level files).
    const outside = [...paths].filter((p) => !p.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(p));
    expect(outside.filter((p) => !(/^(lib|operators|agent|gateway|testing|angular|cli)\/.*\.ts$/.test(p) || p === 'index.ts') || p.endsWith('.d.ts'))).toEqual([]);
  });

  test('every source map points at files the package ships', async () => {
    const maps = [...paths].filter((p) => p.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(100);
    expect(maps.some((p) => p.endsWith('.d.ts.map'))).toBe(true);
    const missing: string[] = [];
    for (const m of maps) {
      const map = JSON.parse(readFileSync(join(ROOT, m), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const s of map.sources) {
        const target = posix.normalize(posix.join(posix.dirname(m), map.sourceRoot ?? '', s));
        if (!paths.has(target)) missing.push(`${m} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
    // And every shipped .js / .d.ts that names a map has it.
    for (const p of [...paths].filter((q) => q.endsWith('.js') || q.endsWith('.d.ts'))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(ROOT, p), 'utf8'))?.[1];
      if (url !== undefined) expect(paths).toContain(posix.join(dirname(p), url));
    }
  });

  test('metadata: MIT LICENSE, repository, homepage, bugs', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\/.*\/issues$/);
  });

  test('no prepare script (it would run in every user\'s install from git); prepack builds; a fresh clone builds before tests', () => {
    expect(pkg.scripts['prepare']).toBeUndefined();
    expect(pkg.scripts['postinstall']).toBeUndefined();
    expect(pkg.scripts['prepack']).toMatch(/scripts\/build\.mjs$/);
    for (const s of ['pretest', 'prestart', 'pretest:browser']) expect(pkg.scripts[s]).toBe('node scripts/build.mjs --if-stale');
  });

  test('dependency ranges: runtime ones shareable (^), rxjs a ^7.8.0 peer, @angular/core, ioredis and ws optional peers, dev ones exact', () => {
    expect(pkg.peerDependencies).toEqual({ rxjs: '^7.8.0', '@angular/core': '^20.0.0 || ^21.0.0 || ^22.0.0', ioredis: '^5.11.1', ws: '^8.23.0' });
    // Only openai-rx/angular needs Angular, only the Redis log ioredis, only WebSocket mode on Node ws (each loaded
    // where used): nobody else must be made to install them, a browser or Angular app installs no server package.
    expect((pkg as unknown as { peerDependenciesMeta?: unknown }).peerDependenciesMeta).toEqual({
      '@angular/core': { optional: true }, ioredis: { optional: true }, ws: { optional: true },
    });
    // The optional peers' dev versions (what the tests run against) are in their ranges' majors.
    for (const name of ['ioredis', 'ws']) expect(pkg.devDependencies[name]?.split('.')[0]).toBe(pkg.peerDependencies[name]?.replace(/^\^/, '').split('.')[0]);
    for (const [name, range] of Object.entries(pkg.dependencies)) expect(`${name}@${range}`).toMatch(/@\^\d+\.\d+\.\d+$/);
    for (const [name, range] of Object.entries(pkg.devDependencies)) expect(`${name}@${range}`).toMatch(/@\d+\.\d+\.\d+$/);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }> };
    expect(lock.packages['']?.dependencies).toEqual(pkg.dependencies);
    expect(lock.packages['']?.peerDependencies).toEqual(pkg.peerDependencies);
    // The lockfile still pins what the tests run against: each dependency at a version its range takes.
    for (const name of Object.keys(pkg.dependencies)) expect(lock.packages[`node_modules/${name}`]?.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test('every exports subpath with types also resolves under moduleResolution node10 (typesVersions), to the CommonJS declarations', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string' || subpath === '.') continue;
      const require = target['require'];
      expect(typeof require === 'object' && require['types']).toMatch(/^\.\/dist\/cjs\/.*\.d\.ts$/);
      expect(pkg.typesVersions['*']?.[subpath.replace(/^\.\//, '')]).toEqual([typeof require === 'object' && require['types']]);
    }
  });

  test('each module kind has its own declarations beside its code, listed first in its condition', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      for (const [condition, half] of [['import', 'esm'], ['require', 'cjs']] as const) {
        const c = target[condition];
        if (typeof c !== 'object') throw new Error(`exports["${subpath}"].${condition} names no types`);
        // TypeScript takes the first matching condition: "types" must come before "default".
        expect(Object.keys(c)).toEqual(['types', 'default']);
        expect(c['types']).toBe(c['default']!.replace(/\.js$/, '.d.ts'));
        expect(c['types']).toMatch(new RegExp(`^\\./dist/${half}/`));
        expect(paths).toContain(strip(c['types']!));
      }
    }
  });
});
