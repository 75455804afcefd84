// A browser or Angular build pulls in no server package: each entry a browser uses (dist/esm), bundled for the
// browser by esbuild (the bundler under @angular/build, which installs it), takes in no file of ws or ioredis.
// They are loaded (lib/peer.ts) through a specifier bundlers do not follow; an `import('ws')` written out would
// bring ws's browser stub into the bundle, and this test would name it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ensureBuilt, ROOT } from './helpers';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import?: { default?: string } } | string> };
const BROWSER_ENTRIES = ['.', './operators', './angular', './codecs'].filter((e) => e in pkg.exports);

beforeAll(() => ensureBuilt(), 240_000);

test.each(BROWSER_ENTRIES.map((e) => [e]))('%s bundles for a browser without ws or ioredis', async (entry) => {
  const target = pkg.exports[entry];
  const file = typeof target === 'string' ? target : target?.import?.default;
  expect(file).toMatch(/^\.\/dist\/esm\//);
  const result = await build({
    entryPoints: [join(ROOT, file!)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // The application's own dependencies; the package's files and everything they reach are bundled.
    external: ['rxjs', '@angular/core', 'fp-ts', 'io-ts'],
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.some((p) => p.includes('dist/esm/'))).toBe(true);
  expect(inputs.filter((p) => /node_modules\/(?:ws|ioredis)\//.test(p))).toEqual([]);
}, 60_000);
