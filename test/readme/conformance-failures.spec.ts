// The README lists every conformance test some server of the run does not pass, with the reason (issue 29): the
// list is made from scripts/conformance/known-failures.json, the file the conformance run itself goes by, so the
// two cannot drift. After editing the JSON: `node scripts/conformance.mjs --readme` prints the README's new text.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

interface KnownFailure {
  readonly test: string;
  readonly servers: readonly string[];
  readonly reason: string;
}

test('the README\'s list of known conformance failures is the one known-failures.json makes', () => {
  const made = execFileSync(process.execPath, [join(root, 'scripts', 'conformance.mjs'), '--readme'], { encoding: 'utf8', timeout: 30_000 });
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = made.slice(0, made.indexOf('\n'));
  const end = made.trimEnd().slice(made.trimEnd().lastIndexOf('\n') + 1);
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  expect(readme.slice(from, to + end.length)).toBe(made.trimEnd());
});

test('every known failure names a test, the servers it fails on and why', () => {
  const { failures } = JSON.parse(readFileSync(join(root, 'scripts', 'conformance', 'known-failures.json'), 'utf8')) as { failures: KnownFailure[] };
  expect(failures.length).toBeGreaterThan(0);
  for (const f of failures) {
    expect(f.test).toMatch(/\S/);
    expect(f.reason.length).toBeGreaterThan(10);
    expect(f.servers.length).toBeGreaterThan(0);
    for (const s of f.servers) expect(['reference', 'memory', 'redis', 'redis-pair', 'cluster']).toContain(s);
  }
  // At most one reason per test and server.
  const pairs = failures.flatMap((f) => f.servers.map((s) => `${s}: ${f.test}`));
  expect(new Set(pairs).size).toBe(pairs.length);
});
