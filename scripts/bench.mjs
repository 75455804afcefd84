// npm run bench [-- --quick] [-- --only <section|contender|durable|durable-quiet|durable-cluster|smooth|partial-json|gateway|durable-streams>] [-- --runs N] [-- --mode memory|http|both] [-- --gc-between] [-- --gc-column <workloads>|all|none] [-- --check]
// --check: exit 1 when a benchmark target is missed (the default prints it and exits 0).
// Builds dist first when any source is newer than it, then runs bench/run.mjs with --expose-gc, then the durable
// section (bench/durable.mjs, its own redis-server; --only durable runs it alone), quiet streams' cost
// (bench/durable-quiet.mjs; --only durable-quiet), the same on a Redis Cluster
// (bench/durable-cluster.mjs; --only durable-cluster), then smoothText's (bench/smooth.mjs; --only smooth), then
// partialJson's (bench/partial-json.mjs; --only partial-json).
import { execFileSync, spawnSync } from 'node:child_process';

// OPENAI_RX_DIST points the bench at another build (e.g. a clean clone's dist) and skips the build here.
if (!process.env.OPENAI_RX_DIST) {
  // The build's own staleness check (every source folder and entry file), so that the bench never runs old code.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
let status = 0;
if (!['durable', 'durable-quiet', 'durable-cluster', 'smooth', 'partial-json', 'gateway', 'durable-streams'].includes(only)) {
  const r = spawnSync(process.execPath, ['--expose-gc', 'bench/run.mjs', ...args], { stdio: 'inherit' });
  status = r.status ?? 1;
}
// The durable section (bench/durable.mjs): persistTo → its own redis-server → fromEventLog in another process,
// beside the direct PUBLISH path and the design's no-library ceiling (bench/durable-ceiling.mjs) in the same run.
// Runs with the others, or alone with --only durable; skipped (with a line saying so) without redis-server.
if (only === undefined || only === 'durable') {
  const pass = ['--quick', '--check', '--stats'].filter((f) => args.includes(f));
  const r = spawnSync(process.execPath, ['--expose-gc', 'bench/durable.mjs', ...pass], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// Quiet streams (bench/durable-quiet.mjs): 1,000 open streams with nothing happening, written and followed: what
// their lease renewals and readers' checks cost per second; alone with --only durable-quiet.
if (only === undefined || only === 'durable-quiet') {
  const r = spawnSync(process.execPath, ['bench/durable-quiet.mjs', ...args.filter((f) => f === '--quick')], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// The durable section on a 3-master/3-replica Redis Cluster beside a single Redis, and a master's failover
// (bench/durable-cluster.mjs, issue 25); alone with --only durable-cluster; skipped without redis-server/redis-cli.
if (only === undefined || only === 'durable-cluster') {
  const pass = ['--quick', '--check'].filter((f) => args.includes(f));
  const r = spawnSync(process.execPath, ['--expose-gc', 'bench/durable-cluster.mjs', ...pass], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// smoothText's own cost per form and chunking, on virtual time (bench/smooth.mjs); alone with --only smooth.
if (only === undefined || only === 'smooth') {
  const r = spawnSync(process.execPath, ['bench/smooth.mjs', ...args.filter((f) => f === '--quick')], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// partialJson over 200 KB and 2 MB documents in 1–8 character snapshots (bench/partial-json.mjs); alone with --only partial-json.
if (only === undefined || only === 'partial-json') {
  const pass = ['--quick', '--check'].filter((f) => args.includes(f));
  const r = spawnSync(process.execPath, ['bench/partial-json.mjs', ...pass], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// The gateway (bench/gateway.mjs, issues 16 and 28): in-memory and Redis logs beside a byte-forwarding proxy and an
// openai-SDK proxy, each in its own process; alone with --only gateway (--check: its targets; --profile <contender>).
if (only === undefined || only === 'gateway') {
  const pass = ['--quick', '--check'].filter((f) => args.includes(f));
  if (args.includes('--profile')) pass.push('--profile', args[args.indexOf('--profile') + 1]);
  const r = spawnSync(process.execPath, ['--expose-gc', 'bench/gateway.mjs', ...pass], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
// The Durable Streams server (bench/durable-streams.mjs, issue 29) beside the protocol's reference server: appends/s,
// catch-up MB/s, live SSE latency at 1,000 streams; alone with --only durable-streams.
if (only === undefined || only === 'durable-streams') {
  const r = spawnSync(process.execPath, ['bench/durable-streams.mjs', ...args.filter((f) => f === '--quick')], { stdio: 'inherit' });
  status = Math.max(status, r.status ?? 1);
}
process.exit(status);
