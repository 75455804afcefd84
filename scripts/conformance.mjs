// The Durable Streams conformance run (issue 29; `npm run test:conformance`, after jest in `npm test`): the protocol
// authors' suite (@durable-streams/server-conformance-tests, in vitest, scripts/conformance/suite.test.mjs) against
// their reference server (@durable-streams/server) and against `openai-rx streams` (dist/cjs/cli/main.js) on a
// memory log, on a real redis-server, as two instances on one redis-server with requests alternating between them,
// and on a 3-master Redis Cluster, all started and stopped here, the five suites at once (they mostly wait: TTLs, long-polls). Every test the reference passes in this run must pass on
// each of ours unless scripts/conformance/known-failures.json lists it for that server with the reason. Prints a
// table (server × passed / failed / skipped) and exits 1 on a regression.
//
//   node scripts/conformance.mjs [--only memory,redis,redis-pair,cluster] [--sequential] [--keep DIR]   (DIR: the reports, summary.json)
//   node scripts/conformance.mjs --self-test  the harness alone: a second reference server in place of ours
//   node scripts/conformance.mjs --readme     print the README's list of known failures (from the JSON file)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, loadKnownFailures, readmeList, table } from './conformance/compare.mjs';
import { startFront } from './conformance/front.mjs';
import { exited, killAll, start, startRedis, startRedisCluster, stopChild, tempDir, waitForOutput } from './conformance/processes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
// redis-pair: two instances on one Redis behind a front that alternates between them (any instance serves any stream).
const OURS = ['memory', 'redis', 'redis-pair', 'cluster'];
// Every server's long-poll timeout, and the suite's (its tests of a long-poll that times out give it 5 s): the
// protocol leaves it to the server; the defaults (30 s on both sides) would fail those tests everywhere.
const LONG_POLL_MS = 2000;

if (argv.includes('--readme')) {
  process.stdout.write(`${readmeList(loadKnownFailures())}\n`);
  process.exit(0);
}

const selfTest = argv.includes('--self-test');
const only = selfTest ? [] : (option('--only')?.split(',') ?? OURS);
for (const s of only) if (!OURS.includes(s)) throw new Error(`--only: unknown server ${s} (${OURS.join(', ')})`);
const sequential = argv.includes('--sequential');

// Nothing started here outlives the run: a normal end, a thrown error, Ctrl-C, a SIGTERM from CI.
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    process.stderr.write(`conformance: ${signal}, stopping every server\n`);
    killAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** `openai-rx streams` on a free port: its base URL and how to stop it (SIGTERM, as Ctrl-C would; it must exit 0). */
async function startOurs(server, redisUrl) {
  const args = [join(root, 'dist/cjs/cli/main.js'), 'streams', '--port', '0', '--host', '127.0.0.1', '--long-poll-ms', String(LONG_POLL_MS)];
  if (server !== 'memory') args.push('--redis', redisUrl);
  if (server === 'cluster') args.push('--cluster');
  const child = start(process.execPath, args, { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
  const [, url] = await waitForOutput(child, /(http:\/\/127\.0\.0\.1:\d+)\/v1\/stream\//, 30_000);
  return {
    url,
    stop: async () => {
      await stopChild(child, 10_000);
      if (child.exitCode !== 0) throw new Error(`openai-rx streams (${server}) did not stop cleanly (${child.exitCode ?? child.signalCode}): ${child.output}`);
    },
  };
}

/** The protocol's reference server, in this process (it only waits on sockets). */
async function startReference() {
  const { DurableStreamTestServer } = await import('@durable-streams/server');
  const server = new DurableStreamTestServer({ port: 0, host: '127.0.0.1', longPollTimeout: LONG_POLL_MS });
  return { url: await server.start(), stop: () => server.stop() };
}

/** One vitest process running the suite against `url`; resolves with its JSON report and the seconds it took. */
async function runSuite(server, url, dir) {
  const outputFile = join(dir, `${server}.json`);
  const vitest = join(root, 'node_modules/vitest/vitest.mjs');
  const t0 = performance.now();
  const child = start(process.execPath, [vitest, 'run', '--config', join(root, 'scripts/conformance/vitest.config.mjs'), '--reporter=json', `--outputFile=${outputFile}`], {
    cwd: root,
    env: { ...process.env, CONFORMANCE_BASE_URL: url, CONFORMANCE_LONG_POLL_MS: String(LONG_POLL_MS), NO_COLOR: '1' },
  });
  const timer = setTimeout(() => {
    process.stderr.write(`conformance: the suite against ${server} ran 10 minutes, killed\n`);
    killAll();
  }, 600_000);
  await exited(child);
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  let report;
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8'));
  } catch {
    throw new Error(`the suite against ${server} wrote no report (exit ${child.exitCode ?? child.signalCode}): ${child.output.slice(-3000)}`);
  }
  return { server, report, seconds };
}

const t0 = performance.now();
const dir = option('--keep') ?? tempDir('openai-rx-conformance-');
mkdirSync(dir, { recursive: true });
const known = loadKnownFailures();

const servers = { reference: await startReference() };
const stores = [];
try {
  if (selfTest) servers['reference-copy'] = await startReference();
  if (only.includes('memory')) servers.memory = await startOurs('memory');
  if (only.includes('redis')) {
    const redis = await startRedis();
    stores.push(redis);
    servers.redis = await startOurs('redis', redis.url);
  }
  if (only.includes('redis-pair')) {
    const redis = await startRedis();
    stores.push(redis);
    const pair = [await startOurs('redis-pair', redis.url), await startOurs('redis-pair', redis.url)];
    const front = await startFront(pair.map((p) => p.url));
    servers['redis-pair'] = { url: front.url, stop: async () => (await front.stop(), await Promise.all(pair.map((p) => p.stop()))) };
  }
  if (only.includes('cluster')) {
    const cluster = await startRedisCluster(3);
    stores.push(cluster);
    servers.cluster = await startOurs('cluster', cluster.url);
  }
  const names = Object.keys(servers);
  console.log(`conformance: ${names.map((n) => `${n} ${servers[n].url}`).join(', ')} (started in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  let runs;
  if (sequential) {
    runs = [];
    for (const n of names) runs.push(await runSuite(n, servers[n].url, dir));
  } else runs = await Promise.all(names.map((n) => runSuite(n, servers[n].url, dir)));

  for (const n of names) if (n !== 'reference') await servers[n].stop();
  for (const s of stores) await s.stop();

  const { rows, regressions, fixed, unlisted } = compare(runs, known);
  if (option('--keep')) writeFileSync(join(dir, 'summary.json'), `${JSON.stringify({ rows, regressions, fixed, unlisted }, null, 2)}\n`);
  console.log(`\n${table(rows, Object.fromEntries(runs.map((r) => [r.server, r.seconds])))}\n`);
  for (const u of unlisted) console.log(`note: ${u.server} failed "${u.test}" (so did the reference), which known-failures.json gives no reason for`);
  for (const f of fixed) console.log(`note: ${f.server} now passes "${f.test}": remove it from known-failures.json (and the README: --readme)`);
  // One line per test, the servers it regressed on beside it (the same cause shows on several).
  const byTest = new Map();
  for (const r of regressions) byTest.set(r.test, [...(byTest.get(r.test) ?? []), r]);
  for (const [test, rs] of byTest) console.log(`REGRESSION on ${rs.map((r) => r.server).join(', ')}: ${test}\n    ${[...new Set(rs.map((r) => r.message))].join(' | ')}`);
  console.log(
    `conformance: ${regressions.length === 0 ? 'every test the reference passed passed on ours (known failures aside)' : `${regressions.length} regression(s)`}, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  process.exitCode = regressions.length === 0 ? 0 : 1;
} catch (e) {
  console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  // The reference server's own timers (a 30 s long-poll a test left) would keep this process up: exit.
  await Promise.race([servers.reference.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
  killAll();
  process.exit();
}
