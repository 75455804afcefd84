// package.json says "sideEffects": false: importing an entry must do no work a bundler could not drop. Each
// built entry (every `exports` path, required and imported) is loaded in a fresh Node process by
// import-probe.mjs, which counts what the import did: globals added, process listeners, timers and tasks
// scheduled, handles left open, RxJS subscriptions made, warm-up objects made (lib/warmup.ts makes them on first
// use, never at import). The build before lib/warmup.ts subscribed 3–13 times at import (its warm-up objects).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run } from './helpers';

interface Report {
  readonly globals: readonly string[];
  readonly listeners: readonly string[];
  readonly scheduled: readonly string[];
  readonly handles: readonly string[];
  readonly subscribes: number;
  readonly warmedUp: readonly string[];
}

const PROBE = join(__dirname, 'import-probe.mjs');

async function probe(how: 'require' | 'import', entry: string, registry?: string): Promise<Report> {
  const args = [PROBE, how, entry, ...(registry === undefined ? [] : [registry])];
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as Report;
}

type Conditions = Record<'import' | 'require', { readonly default: string }>;
const exportsMap = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Conditions | string> }).exports;
const entries = Object.entries(exportsMap).filter((e): e is [string, Conditions] => typeof e[1] !== 'string');

const NOTHING: Report = { globals: [], listeners: [], scheduled: [], handles: [], subscribes: 0, warmedUp: [] };

describe('importing an entry does no work ("sideEffects": false)', () => {
  beforeAll(async () => {
    // The current sources' build (pretest does the same for `npm test`).
    await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  }, 180_000);

  it('lists the entries of package.json', () => {
    expect(entries.map(([path]) => path)).toEqual(expect.arrayContaining(['.', './operators', './gateway', './testing', './angular']));
  });

  for (const how of ['require', 'import'] as const) {
    it.each(entries.map(([path, c]) => [path, c[how].default]))(`${how} of %s`, async (_path, file) => {
      const half = how === 'require' ? 'cjs' : 'esm';
      const report = await probe(how, join(ROOT, file), join(ROOT, 'dist', half, 'lib', 'warmup.js'));
      expect(report).toEqual(NOTHING);
    }, 60_000);
  }

  it('sees the work of an entry that does some (the probe can fail)', async () => {
    const report = await probe('require', join(__dirname, 'fixtures', 'side-effects', 'busy-entry.cjs'));
    expect(report).toMatchObject({ globals: ['__busyEntry'], listeners: ['beforeExit'], scheduled: ['setTimeout'], subscribes: 1 });
  }, 60_000);
});
