// What a conformance run concludes from vitest's JSON reports: per server passed/failed/skipped, and the
// regressions (a test the reference server passed in the same run that one of ours did not, unless the
// known-failures file lists it for that server). Also the README's list, made from the known-failures file.
import { readFileSync } from 'node:fs';

export const KNOWN_FAILURES = new URL('./known-failures.json', import.meta.url);

export function loadKnownFailures() {
  const { failures } = JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8'));
  for (const f of failures) {
    if (typeof f.test !== 'string' || !Array.isArray(f.servers) || f.servers.length === 0 || typeof f.reason !== 'string' || f.reason === '') {
      throw new Error(`known-failures.json: every entry needs test, servers and a reason: ${JSON.stringify(f)}`);
    }
  }
  return failures;
}

/** test full name → 'passed' | 'failed' | 'skipped' (vitest's 'pending', 'todo' and 'skipped' all count as skipped). */
export function statuses(report) {
  const m = new Map();
  for (const file of report.testResults) {
    for (const a of file.assertionResults) m.set(a.fullName, a.status === 'passed' || a.status === 'failed' ? a.status : 'skipped');
  }
  return m;
}

/** The first line of a failure's message, for the regression list. */
export function firstFailureLine(report, test) {
  for (const file of report.testResults) {
    const a = file.assertionResults.find((x) => x.fullName === test);
    if (a) return (a.failureMessages[0] ?? '').split('\n')[0].slice(0, 200);
  }
  // A file that failed to load (the server down at start, a syntax error): its message is the file's.
  return (report.testResults[0]?.message ?? 'not run').split('\n')[0].slice(0, 200);
}

/**
 * `runs`: [{ server, report }] with the reference first. Returns { rows, regressions, fixed, unlisted }:
 * rows per server (passed, failed, skipped); regressions [{ server, test, message }]; fixed: listed failures that
 * passed (the list can shrink); unlisted: failures the reference shares (no regression) the list gives no reason for.
 */
export function compare(runs, known) {
  const listed = (test, server) => known.some((k) => k.test === test && k.servers.includes(server));
  const [reference, ...ours] = runs;
  const ref = statuses(reference.report);
  const rows = runs.map(({ server, report }) => {
    const s = [...statuses(report).values()];
    return { server, passed: s.filter((x) => x === 'passed').length, failed: s.filter((x) => x === 'failed').length, skipped: s.filter((x) => x === 'skipped').length };
  });
  const regressions = [];
  const fixed = [];
  for (const { server, report } of runs) {
    for (const [test, status] of statuses(report)) if (status === 'passed' && listed(test, server)) fixed.push({ server, test });
  }
  for (const { server, report } of ours) {
    const mine = statuses(report);
    for (const [test, status] of ref) {
      if (status !== 'passed') continue;
      const got = mine.get(test) ?? 'missing';
      if (got !== 'passed' && !listed(test, server)) {
        regressions.push({ server, test, message: got === 'failed' ? firstFailureLine(report, test) : got });
      }
    }
  }
  // Failures that are no regression (the reference failed them too) but that the README should still explain.
  const unlisted = [];
  for (const { server, report } of runs) {
    for (const [test, status] of statuses(report)) {
      if (status === 'failed' && ref.get(test) !== 'passed' && !listed(test, server)) unlisted.push({ server, test });
    }
  }
  return { rows, regressions, fixed, unlisted };
}

/** The table printed at the end of a run. */
export function table(rows, seconds) {
  const head = ['server', 'passed', 'failed', 'skipped', 'seconds'];
  const body = rows.map((r) => [r.server, String(r.passed), String(r.failed), String(r.skipped), seconds[r.server] === undefined ? '' : seconds[r.server].toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

export const README_START = '<!-- conformance:known-failures:start (made by `node scripts/conformance.mjs --readme` from scripts/conformance/known-failures.json) -->';
export const README_END = '<!-- conformance:known-failures:end -->';

/** The README's list of the tests some server does not pass, grouped by server set, between its markers. */
export function readmeList(known) {
  const groups = new Map();
  for (const k of known) {
    const key = k.servers.join(',');
    groups.set(key, [...(groups.get(key) ?? []), k]);
  }
  const NAMES = { memory: 'the memory log', redis: 'Redis', 'redis-pair': 'two instances on one Redis', cluster: 'a Redis Cluster' };
  const who = (servers) => {
    const ours = servers.filter((s) => s !== 'reference').map((s) => NAMES[s] ?? s);
    const mine = ours.length === 0 ? '' : `openai-rx on ${ours.length === 1 ? ours[0] : `${ours.slice(0, -1).join(', ')} and ${ours[ours.length - 1]}`}`;
    if (!servers.includes('reference')) return `Not passed by ${mine}`;
    return mine === '' ? 'Not passed by the reference server' : `Passed neither by the reference server nor by ${mine}`;
  };
  const lines = [README_START];
  for (const [servers, entries] of groups) {
    lines.push('', `${who(servers.split(','))}:`, '');
    for (const k of entries) lines.push(`- “${k.test}”: ${k.reason}`);
  }
  if (!known.some((k) => k.servers.some((s) => s !== 'reference'))) {
    lines.push('', 'openai-rx passes every test the suite runs on the memory log, on Redis, as two instances on one Redis (requests alternating between them) and on a Redis Cluster (the suite skips its six tests of subscriptions, which are not part of the base protocol).');
  }
  lines.push('', README_END);
  return lines.join('\n');
}
