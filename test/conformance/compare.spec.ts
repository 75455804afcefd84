// What the conformance run (scripts/conformance.mjs) concludes from the suites' reports: a test the reference passed
// that one of ours did not is a regression (exit 1) unless known-failures.json lists it for that server; a listed
// failure that passed, and a failure the reference shares that the list does not explain, are notes. The script is
// an ES module: it runs in a child node, on made-up reports.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const COMPARE = join(__dirname, '..', '..', 'scripts', 'conformance', 'compare.mjs');

type Status = 'passed' | 'failed' | 'pending';
const report = (tests: Record<string, Status>) => ({
  testResults: [{ assertionResults: Object.entries(tests).map(([fullName, status]) => ({ fullName, status, failureMessages: status === 'failed' ? [`AssertionError: ${fullName} failed\n    at x`] : [] })) }],
});

function compare(runs: { server: string; report: ReturnType<typeof report> }[], known: { test: string; servers: string[]; reason: string }[]) {
  const code = `import { compare } from ${JSON.stringify(COMPARE)}; const [runs, known] = JSON.parse(process.argv[1]); console.log(JSON.stringify(compare(runs, known)));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code, JSON.stringify([runs, known])], { encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out) as {
    rows: { server: string; passed: number; failed: number; skipped: number }[];
    regressions: { server: string; test: string; message: string }[];
    fixed: { server: string; test: string }[];
    unlisted: { server: string; test: string }[];
  };
}

test('a test the reference passed and ours failed (or did not run) is a regression, unless listed for that server', () => {
  const r = compare(
    [
      { server: 'reference', report: report({ a: 'passed', b: 'passed', c: 'passed', d: 'failed', s: 'pending' }) },
      { server: 'memory', report: report({ a: 'passed', b: 'failed', c: 'failed', d: 'passed', s: 'pending' }) },
      { server: 'redis', report: report({ a: 'failed', b: 'passed', d: 'failed', s: 'pending' }) },
    ],
    [
      { test: 'c', servers: ['memory'], reason: 'listed for memory only' },
      { test: 'd', servers: ['reference'], reason: 'the reference fails it' },
    ],
  );
  expect(r.rows).toEqual([
    { server: 'reference', passed: 3, failed: 1, skipped: 1 },
    { server: 'memory', passed: 2, failed: 2, skipped: 1 },
    { server: 'redis', passed: 1, failed: 2, skipped: 1 },
  ]);
  expect(r.regressions).toEqual([
    { server: 'memory', test: 'b', message: 'AssertionError: b failed' },
    { server: 'redis', test: 'a', message: 'AssertionError: a failed' },
    { server: 'redis', test: 'c', message: 'missing' },
  ]);
  // d: the reference failed it, so did redis (no regression), and the list explains it for the reference only.
  expect(r.unlisted).toEqual([{ server: 'redis', test: 'd' }]);
  expect(r.fixed).toEqual([]);
});

test('a listed failure that passed is reported as fixed (the list and the README can shrink)', () => {
  const r = compare(
    [
      { server: 'reference', report: report({ a: 'passed', b: 'failed' }) },
      { server: 'cluster', report: report({ a: 'passed', b: 'passed' }) },
    ],
    [
      { test: 'a', servers: ['cluster'], reason: 'was a store bug' },
      { test: 'b', servers: ['reference', 'cluster'], reason: 'both failed it once' },
    ],
  );
  expect(r.regressions).toEqual([]);
  expect(r.fixed).toEqual([
    { server: 'cluster', test: 'a' },
    { server: 'cluster', test: 'b' },
  ]);
});
