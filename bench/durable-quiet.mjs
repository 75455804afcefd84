// Quiet streams: what 1,000 open durable streams cost while nothing happens on them (a reasoning model thinking, a
// tool running): each written by persistTo (its lease renewed every third of leaseMs) and followed by fromEventLog
// (its stream's state checked after pollMs without news), on its own redis-server.
//
//   node scripts/build.mjs && node bench/durable-quiet.mjs [--quick] [--streams 1000] [--seconds 10] [--lease-ms 10000] [--no-cluster] [--json out.json]
//   `npm run bench` runs it as its `durable-quiet` section (`npm run bench -- --only durable-quiet`).
//   OPENAI_RX_DIST=<dist> measures another build. No targets: the figures are for the record.
//
// Each stream gets its response.created, the streams starting over a second, then stays quiet. After the readers
// have caught up and settled (2.5 s), the window (--seconds) counts Redis's commands (INFO commandstats), this
// process's CPU (the producers' log and the readers' log, two clients) and Redis's CPU; per second, per 1,000 streams.
// With liveReads 'xread' (a single Redis's default: one XREAD BLOCK per process names every followed stream) and
// 'subscribe' (a Cluster's way: SSUBSCRIBE per stream), and on a 3-master/3-replica Redis Cluster (counted over all its
// nodes' CPU, its masters' commands; skipped with --no-cluster or without redis-cli), where a script call holds the keys of one slot only.
import { cpus, loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import { merge, Subject } from 'rxjs';
import { loadRx, redisServerBin, sleep, startRedis } from './durable.mjs';
import { startRedisCluster } from './redis-cluster.mjs';

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const QUICK = flag('--quick');
const STREAMS = Number(opt('--streams', 1000));
const SECONDS = Number(opt('--seconds', QUICK ? 5 : 10));
const LEASE_MS = Number(opt('--lease-ms', 10_000));

const response = (id) => ({ id, object: 'response', created_at: 1764400000, status: 'in_progress', model: 'bench-model', output: [], usage: null, background: true });

/** Calls per command, summed over `admins` (one per node). */
async function commandstats(admins) {
  const m = new Map();
  for (const admin of admins) {
    for (const [, cmd, calls] of (await admin.info('commandstats')).matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) m.set(cmd, (m.get(cmd) ?? 0) + Number(calls));
  }
  return m;
}

/** CPU seconds (user + sys), summed over `admins`. */
async function redisCpu(admins) {
  let sec = 0;
  for (const admin of admins) {
    const info = await admin.info('cpu');
    sec += Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
  }
  return sec;
}

/** One run: STREAMS quiet streams, written and followed with `liveReads` (a Cluster: `cluster`); what the window cost, per second. */
async function run(rx, liveReads, cluster) {
  const redis = cluster === undefined ? await startRedis() : undefined;
  const nodes = cluster === undefined ? [] : cluster.nodes;
  const admins = redis ? [new Redis(redis.url)] : nodes.map((n) => new Redis(n));
  // Commands counted on the masters (a replica runs each write again), CPU on every node.
  const masterPorts = new Set(cluster === undefined ? [] : (await cluster.masters()).map((m) => m.port));
  const counted = redis ? admins : admins.filter((a) => masterPorts.has(a.options.port));
  const clients = [];
  const logOf = () => {
    if (redis) return rx.redisEventLog({ url: redis.url, liveReads });
    const client = new Cluster(nodes);
    clients.push(client);
    return rx.redisEventLog({ client });
  };
  const producers = logOf();
  const readers = logOf();
  const subjects = Array.from({ length: STREAMS }, () => new Subject());
  let failure;
  let delivered = 0;
  const writing = merge(...subjects.map((s) => s.pipe(rx.persistTo(producers, { leaseMs: LEASE_MS })))).subscribe({ error: (e) => (failure ??= e) });
  const reading = merge(...subjects.map((_, i) => rx.fromEventLog(readers, `quiet_${i}`))).subscribe({ next: () => delivered++, error: (e) => (failure ??= e) });
  try {
    await Promise.all(subjects.map((s, i) => sleep(Math.random() * 1000).then(() => s.next({ type: 'response.created', response: response(`quiet_${i}`), sequence_number: 0 }))));
    await sleep(2500);
    if (delivered !== STREAMS) throw new Error(`the readers had ${delivered} of ${STREAMS} events before the window`);
    const s0 = await commandstats(counted);
    const r0 = await redisCpu(admins);
    const c0 = process.cpuUsage();
    await sleep(SECONDS * 1000);
    const c = process.cpuUsage(c0);
    const r1 = await redisCpu(admins);
    const s1 = await commandstats(counted);
    if (failure) throw failure;
    const per = (x) => (x / SECONDS) * (1000 / STREAMS); // per second, per 1,000 streams
    const calls = [...s1].map(([cmd, n]) => [cmd, n - (s0.get(cmd) ?? 0)]).filter(([cmd, n]) => n > 0 && cmd !== 'info');
    const count = (...cmds) => calls.filter(([cmd]) => cmds.includes(cmd)).reduce((a, [, n]) => a + n, 0);
    return {
      liveReads,
      scripts: per(count('eval', 'evalsha')),
      commands: per(calls.reduce((a, [, n]) => a + n, 0)),
      reads: per(count('xrange', 'xread', 'xrevrange')),
      cpuMs: per(((c.user + c.system) / 1000)),
      redisMs: per((r1 - r0) * 1000),
      byCommand: Object.fromEntries(calls.map(([cmd, n]) => [cmd, per(n)])),
    };
  } finally {
    reading.unsubscribe();
    writing.unsubscribe();
    await sleep(100);
    await Promise.all([producers.close(), readers.close()]).catch(() => undefined);
    for (const c of clients) c.disconnect();
    for (const a of admins) a.disconnect();
    await redis?.stop();
  }
}

async function main() {
  if (redisServerBin() === undefined) {
    console.log('\nQuiet durable streams: skipped, no redis-server (apt-get install -y redis-server, or REDIS_SERVER=/path/to/redis-server)');
    return;
  }
  const rx = await loadRx();
  console.log(`\nQuiet durable streams (${cpus().length} cores, ${cpus()[0]?.model ?? '?'}, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}): ${STREAMS} streams, each written by persistTo (leaseMs ${LEASE_MS}) and followed by fromEventLog, quiet for ${SECONDS} s; per second, per 1,000 streams\n`);
  const rows = [];
  for (const liveReads of ['xread', 'subscribe']) {
    process.stderr.write(`  ${liveReads}…\n`);
    rows.push(await run(rx, liveReads));
  }
  if (!flag('--no-cluster')) {
    process.stderr.write('  cluster…\n');
    let cluster;
    try {
      cluster = await startRedisCluster();
      rows.push(await run(rx, 'cluster (3 masters, 3 replicas)', cluster));
    } catch (e) {
      console.log(`(the Cluster row: skipped, ${e instanceof Error ? e.message : String(e)})`);
    } finally {
      await cluster?.stop();
    }
  }
  const head = ['live reads', 'script calls/s', 'Redis commands/s', 'XREAD/XRANGE/s', 'CPU ms/s (producers + readers)', 'Redis CPU ms/s'];
  const body = rows.map((r) => [r.liveReads, r.scripts.toFixed(1), r.commands.toFixed(0), r.reads.toFixed(1), r.cpuMs.toFixed(1), r.redisMs.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(head));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const b of body) console.log(line(b));
  for (const r of rows) console.log(`${r.liveReads}: ${Object.entries(r.byCommand).sort((a, b) => b[1] - a[1]).map(([cmd, n]) => `${cmd} ${n.toFixed(1)}`).join(', ')}`);
  const json = opt('--json');
  if (json) writeFileSync(json, JSON.stringify({ streams: STREAMS, seconds: SECONDS, leaseMs: LEASE_MS, rows }, null, 2));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
