// Durable streams on a Redis Cluster (issue 25): bench/durable.mjs's end-to-end runs (persistTo → Redis →
// fromEventLog in another process) on a 3-master/3-replica cluster (an ioredis `Cluster` passed as
// `redisEventLog({ client })`) beside a single redis-server on the same machine, and a master's failover.
//
//   node scripts/build.mjs && node --expose-gc bench/durable-cluster.mjs [--quick] [--streams 1,1000] [--failover-streams 200] [--rate 25]
//     [--seconds 20] [--kill-after 6] [--failover-replicas 1] [--check] [--json out.json]
//   `npm run bench` runs it as its `durable-cluster` section (`npm run bench -- --only durable-cluster`).
//   --check: exit 1 when a run failed or was not exact (an event lost, repeated or out of order). No targets:
//   the figures are for the record. Without redis-server/redis-cli it prints why it skipped and exits 0.
//
// - throughput: at 1 and 1,000 streams, as fast as the log acknowledges, on the single Redis and on the cluster.
// - failover: --failover-streams streams paced at --rate events/s each on the cluster, the log's `replicas: 1`
//   (--failover-replicas) so that nothing acknowledged can be lost; --kill-after s into the run
//   the master holding the most of them is SIGKILLed, and started again once its replica was promoted. The p99 added latency (producer's send → reader's delivery)
//   of the events delivered before the kill vs the rest (in flight at the kill or sent after it, until every stream
//   ended) and vs those sent from 1 s after the promotion on; the replica's promotion time (kill → its INFO says
//   role:master); whether every reader was exact.
// A run that fails (or does not end within its deadline) is reported as its row's error; the next runs go on.
import { cpus, loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { loadRx, measure, nowMs, pct, redisServerBin, sleep, startRedis } from './durable.mjs';
import { infoOf, startRedisCluster } from './redis-cluster.mjs';

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const QUICK = flag('--quick');
const STREAMS = opt('--streams', '1,1000').split(',').map(Number);
const FAILOVER_STREAMS = Number(opt('--failover-streams', 200));
const RATE = Number(opt('--rate', 25));
const SECONDS = Number(opt('--seconds', QUICK ? 12 : 20)); // the failover run's length (paced)
const KILL_AFTER = Number(opt('--kill-after', QUICK ? 3 : 6)) * 1000;
// The failover run's `replicas` (producer's and readers' log): with 1, what was acknowledged survives the kill, so
// every reader must be exact; with 0 a failover may lose acknowledged events, which the readers report as 'lost'.
const FAILOVER_REPLICAS = Number(opt('--failover-replicas', 1));
const THROUGHPUT_EVENTS = QUICK ? 50_000 : 200_000;

function cliMissing() {
  if (redisServerBin() === undefined) return `no redis-server (${process.env.REDIS_SERVER ? `REDIS_SERVER=${process.env.REDIS_SERVER} does not exist` : 'not on the PATH'})`;
  try {
    execFileSync(process.env.REDIS_CLI ?? 'redis-cli', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'no redis-cli';
  }
  return undefined;
}

/** The streams of `run` each master holds now (SCAN for their keys), the busiest master first. */
async function streamsPerMaster(cluster, ids) {
  const prefix = ids[0].slice(0, ids[0].lastIndexOf('_') + 1);
  const counts = await Promise.all((await cluster.masters()).map(async (m) => {
    const c = new Redis({ host: m.host, port: m.port, maxRetriesPerRequest: 1 });
    c.on('error', () => undefined); // the scan's own failure is the one reported
    const seen = new Set();
    try {
      let cursor = '0';
      do {
        const [next, keys] = await c.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const k of keys) seen.add(/resp_[\w]+_(\d+)/.exec(k.slice(k.indexOf(prefix)))?.[1]);
      } while (cursor !== '0');
    } finally {
      c.disconnect();
    }
    return { ...m, streams: seen.size };
  }));
  return counts.sort((a, b) => b.streams - a.streams);
}

/**
 * The failover: `after` ms from now, SIGKILLs the master holding the most of `ids`, then polls its replica until
 * it is a master, then starts the killed node again, as a supervisor would (it comes back as the promoted node's
 * replica: until then, that node has none to confirm a `replicas: 1` write). Resolves { killAt, victim,
 * promotedMs, rejoinedMs } (promotedMs undefined when it was not within 30 s); `cancel()` before the kill leaves
 * the cluster alone.
 */
function failoverAfter(cluster, ids, after) {
  let cancelled = false;
  const done = (async () => {
    await sleep(after);
    if (cancelled) return undefined;
    const [victim] = await streamsPerMaster(cluster, ids);
    await cluster.kill(victim.port);
    const killAt = nowMs();
    let promotedMs;
    while (victim.replica && promotedMs === undefined && nowMs() - killAt < 30_000) {
      if ((await infoOf(victim.replica, 'replication'))?.get('role') === 'master') promotedMs = nowMs() - killAt;
      else await sleep(50);
    }
    if (promotedMs === undefined) return { killAt, victim };
    await cluster.restart(victim.port);
    return { killAt, victim, promotedMs, rejoinedMs: nowMs() - killAt };
  })();
  return { done, cancel: () => (cancelled = true) };
}

async function row(label, fn) {
  process.stderr.write(`  ${label}…\n`);
  try {
    return await fn();
  } catch (e) {
    process.stderr.write(`    failed: ${e instanceof Error ? e.message : e}\n`);
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

async function main() {
  const missing = cliMissing();
  if (missing) {
    console.log(`\nDurable streams on a Redis Cluster: skipped, ${missing} (apt-get install -y redis-server, or REDIS_SERVER=/path/to/redis-server)`);
    return;
  }
  const rx = await loadRx();
  const single = await startRedis();
  let cluster;
  const rows = [];
  try {
    cluster = await startRedisCluster();
    const targets = [['single', single.url], ['cluster', { cluster: cluster.nodes }]];
    for (const streams of STREAMS) {
      for (const [redis, url] of targets) {
        const job = { design: 'durable', mode: 'throughput', streams, events: Math.max(3, Math.round(THROUGHPUT_EVENTS / streams)), window: 20_000, deadlineMs: 180_000 };
        const r = await row(`${redis}: as fast as acked × ${streams} streams (${job.streams * job.events} events)`, () => measure(rx, url, job));
        rows.push({ redis, run: 'as fast as acked', streams, events: job.streams * job.events, ...r });
      }
    }
    // The failover: paced, well below capacity, so the added latency is the failover's.
    const job = { design: 'durable', mode: 'latency', streams: FAILOVER_STREAMS, events: Math.round(RATE * SECONDS), rate: RATE, window: 20_000, samples: true, deadlineMs: SECONDS * 1000 + 90_000,
      logOptions: { replicas: FAILOVER_REPLICAS } };
    let failover;
    const r = await row(`cluster: paced ${RATE}/s × ${FAILOVER_STREAMS} streams (${job.streams * job.events} events), a master SIGKILLed at ${KILL_AFTER / 1000} s`, async () => {
      try {
        return await measure(rx, { cluster: cluster.nodes }, job, { go: (ids) => (failover = failoverAfter(cluster, ids, KILL_AFTER)) });
      } finally {
        failover?.cancel();
      }
    });
    const killed = await failover?.done.catch((e) => ({ error: e.message }));
    const fo = { redis: 'cluster', run: `paced ${RATE}/s/stream, failover, replicas: ${FAILOVER_REPLICAS}`, streams: FAILOVER_STREAMS, events: job.streams * job.events, ...r, failover: killed };
    if (r.samples && killed?.killAt) {
      // Delivered before the kill; the rest (in flight at the kill or sent after it); sent from 1 s after the promotion on (settled again?).
      const [before, after, settled] = [[], [], []];
      const settledAt = killed.promotedMs === undefined ? Infinity : killed.killAt + killed.promotedMs + 1000;
      r.samples.lat.forEach((l, i) => {
        const t = r.samples.sentAt[i];
        (t + l < killed.killAt ? before : after).push(l);
        if (t >= settledAt) settled.push(l);
      });
      for (const a of [before, after, settled]) a.sort((x, y) => x - y);
      Object.assign(fo, { p99before: pct(before, 0.99), p99after: pct(after, 0.99), maxAfter: after[after.length - 1], p99settled: pct(settled, 0.99), killedAtMs: killed.killAt - r.samples.t0 });
    }
    delete fo.samples;
    fo.cpuRedis = NaN; // INFO's counters of the killed node are gone, its restarted one's start from 0
    rows.push(fo);
  } catch (e) {
    rows.push({ redis: 'cluster', run: 'start', error: `the cluster did not start: ${e instanceof Error ? e.message : e}` });
  } finally {
    await cluster?.stop();
    await single.stop();
  }
  report(rows);
}

function report(rows) {
  const f = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
  const k = (x) => (x === undefined ? '—' : x >= 1000 ? `${f(x / 1000, 1)}k` : f(x, 0));
  const table = [['redis', 'streams', 'run', 'events', 'events/s', 'p50 ms', 'p99 ms', 'max ms', 'wall s', 'CPU s producer/reader/redis', 'exact']];
  for (const r of rows) {
    const exact = r.error ? 'FAILED' : r.exact ? 'yes' : 'NO';
    if (r.error) table.push([r.redis, String(r.streams ?? '—'), r.run, String(r.events ?? '—'), '—', '—', '—', '—', '—', '—', exact]);
    else table.push([r.redis, String(r.streams), r.run, String(r.events), k(r.eventsPerSec), f(r.p50, 2), f(r.p99, 2), f(r.max, 1), f(r.ms / 1000, 2), `${f(r.cpuProducer, 2)} / ${f(r.cpuReader, 2)} / ${f(r.cpuRedis, 2)}`, exact]);
  }
  const widths = table[0].map((_, c) => Math.max(...table.map((x) => x[c].length)));
  const line = (x) => x.map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(`\nDurable streams on a Redis Cluster (${cpus().length} cores, ${cpus()[0]?.model ?? '?'}, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}; 3 masters + 3 replicas and a single redis-server, all on this machine; cluster CPU: all six nodes)\n`);
  console.log(line(table[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const x of table.slice(1)) console.log(line(x));

  for (const s of STREAMS) {
    const one = rows.find((r) => r.redis === 'single' && r.streams === s && !r.error);
    const many = rows.find((r) => r.redis === 'cluster' && r.streams === s && r.run === 'as fast as acked' && !r.error);
    if (one && many) console.log(`cluster vs single Redis, ${s} stream${s === 1 ? '' : 's'}: ${f(many.eventsPerSec / one.eventsPerSec, 2)}x the events/s (${k(many.eventsPerSec)} vs ${k(one.eventsPerSec)})`);
  }
  const fo = rows.find((r) => r.run.includes('failover'));
  if (fo) {
    const kill = fo.failover;
    console.log(`\nfailover: ${fo.streams} streams paced at ${RATE} events/s on the cluster (replicas: ${FAILOVER_REPLICAS}); ${kill?.victim ? `the master on port ${kill.victim.port}, holding ${kill.victim.streams} of them, SIGKILLed ${f((fo.killedAtMs ?? KILL_AFTER) / 1000, 1)} s into the run` : kill?.error ? `the kill failed: ${kill.error}` : `no master was killed (the run ${fo.error ? 'failed' : 'ended'} first)`}`);
    if (kill?.victim) console.log(`  replica promoted ${kill.promotedMs === undefined ? 'not within 30 s' : `${f(kill.promotedMs / 1000, 2)} s after the kill; the killed node, started again then, back as its replica and in sync ${f(kill.rejoinedMs / 1000, 2)} s after the kill`}`);
    if (fo.p99before !== undefined) {
      console.log(`  p99 added latency: ${f(fo.p99before, 2)} ms before the kill, ${f(fo.p99after, 1)} ms from the kill until every stream ended (sent from then on, or in flight; max ${f(fo.maxAfter, 0)} ms),`);
      console.log(`    ${f(fo.p99settled, 2)} ms from 1 s after the promotion on`);
    }
    console.log(`  every reader exact (each sequence_number once, in order): ${fo.error ? `no, the run failed: ${fo.error}` : fo.exact ? 'yes' : `NO: ${fo.inexact}`}`);
  }
  const bad = rows.filter((r) => r.error || !r.exact);
  for (const r of bad.filter((x) => x.run !== fo?.run)) console.log(`${r.redis} × ${r.streams ?? '—'} (${r.run}): ${r.error ?? r.inexact}`);
  if (flag('--check')) {
    if (bad.length > 0) {
      console.error(`\n--check: ${bad.length} durable-cluster run(s) failed or were not exact`);
      process.exitCode = 1;
    } else console.log(`--check: every durable-cluster run ended and every reader was exact (${rows.length})`);
  }
  const json = opt('--json');
  if (json) writeFileSync(json, JSON.stringify({ rows, cpus: cpus().length, load: loadavg() }, null, 2));
}

// Interrupted: exit, so that the servers' exit hooks kill them.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
