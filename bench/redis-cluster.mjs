// A Redis Cluster for the benches: 3 masters + 3 replicas (or `masters` × (1 + `replicasPer`)) from
// `redis-server` on free loopback ports (the cluster bus port explicit), persistence off, cluster-node-timeout
// 1500 ms, created with `redis-cli --cluster create`; ready once every node says cluster_state:ok and every
// replica's link to its master is up (a replica that has not synced cannot take over). `stop()` kills every node
// and removes their directory; `kill(port)` SIGKILLs one (a failover), `restart(port)` starts it again (it
// rejoins from its nodes.conf, as a replica of the node that took its slots).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, ping, sleep } from './durable.mjs';

const run = promisify(execFile);

/** `redis-cli …` on the PATH (REDIS_CLI overrides), its stdout. */
export async function redisCli(args, timeout = 60_000) {
  const { stdout } = await run(process.env.REDIS_CLI ?? 'redis-cli', args, { timeout });
  return stdout;
}

/** INFO `section` of one node as a map, or undefined when it does not answer. */
export async function infoOf(node, section) {
  const c = new Redis({ ...node, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1000, commandTimeout: 2000 });
  c.on('error', () => undefined); // a killed node: no answer
  try {
    await c.connect();
    const text = await c.info(section);
    return new Map(text.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));
  } catch {
    return undefined;
  } finally {
    c.disconnect();
  }
}

/** What one node says of the cluster: its state ('ok', 'fail') and slot map, or undefined when it does not answer. */
async function clusterView(node) {
  const c = new Redis({ ...node, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1000, commandTimeout: 2000 });
  c.on('error', () => undefined); // a killed node: no answer
  try {
    await c.connect();
    const state = /cluster_state:(\w+)/.exec(await c.cluster('INFO'))?.[1];
    const slots = (await c.cluster('SLOTS')).map(([a, b, [, port]]) => `${a}-${b}:${port}`).sort().join(' ');
    return `${state} ${slots}`;
  } catch {
    return undefined;
  } finally {
    c.disconnect();
  }
}

async function until(what, ms, test) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`redis cluster: ${what} not within ${ms / 1000} s`);
    await sleep(100);
  }
}

export async function startRedisCluster({ masters = 3, replicasPer = 1, bin = process.env.REDIS_SERVER ?? 'redis-server' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-cluster-'));
  const nodes = [];
  const up = (n) => {
    n.proc = spawn(bin, ['--port', String(n.port), '--cluster-port', String(n.bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-config-file', `nodes-${n.port}.conf`, '--dir', dir, '--cluster-node-timeout', '1500', '--save', '', '--appendonly', 'no',
      '--daemonize', 'no', '--loglevel', 'warning', '--maxclients', '10000',
      // the first sync at once (diskless, not 5 s later); a replica takes over however long a busy machine kept its link down
      '--repl-diskless-sync-delay', '0', '--cluster-replica-validity-factor', '0'], { stdio: ['ignore', 'ignore', 'inherit'] });
    n.proc.on('error', () => undefined); // a missing binary shows as no answer
    const { proc } = n;
    process.once('exit', () => proc.kill('SIGKILL')); // no node outlives a bench that crashed
  };
  const stop = async () => {
    await Promise.all(nodes.map(async (n) => {
      if (n.proc.exitCode !== null || n.proc.signalCode !== null) return;
      const exited = new Promise((r) => n.proc.once('exit', r));
      n.proc.kill('SIGKILL'); // persistence is off: nothing to save
      await exited;
    }));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicasPer); i++) {
      const port = await freePort();
      let bus = await freePort();
      while (bus === port) bus = await freePort();
      nodes.push({ host: '127.0.0.1', port, bus });
      up(nodes[nodes.length - 1]);
    }
    for (const n of nodes) await until(`node ${n.port} answering`, 20_000, () => ping(n.port));
    await redisCli(['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', String(replicasPer), '--cluster-yes']);
    await until('cluster_state:ok on every node, one slot map', 60_000, async () => {
      const views = await Promise.all(nodes.map(clusterView));
      return views.every((v) => v !== undefined && v.startsWith('ok ') && v === views[0]);
    });
    await until('every replica synced', 60_000, async () =>
      (await Promise.all(nodes.map((n) => infoOf(n, 'replication')))).every((r) => r?.get('role') === 'master' || r?.get('master_link_status') === 'up'));
  } catch (e) {
    await stop();
    throw e;
  }
  const addr = (n) => ({ host: n.host, port: n.port });
  const replication = (port) => infoOf(nodes.find((x) => x.port === port), 'replication');
  return {
    /** Every node's address (the seed list of an ioredis Cluster). */
    nodes: nodes.map(addr),
    /** The masters now, each with the replica that serves it: [{ host, port, replica: { host, port } }]. */
    async masters() {
      const seen = new Map(await Promise.all(nodes.map(async (n) => [n, await infoOf(n, 'replication')])));
      return nodes.filter((n) => seen.get(n)?.get('role') === 'master').map((m) => {
        const replica = nodes.find((r) => seen.get(r)?.get('role') === 'slave' && Number(seen.get(r).get('master_port')) === m.port);
        return { ...addr(m), replica: replica && addr(replica) };
      });
    },
    /** SIGKILLs the node at `port`; resolves once it is gone. */
    async kill(port) {
      const n = nodes.find((x) => x.port === port);
      if (!n || n.proc.exitCode !== null || n.proc.signalCode !== null) return;
      const exited = new Promise((r) => n.proc.once('exit', r));
      n.proc.kill('SIGKILL');
      await exited;
    },
    /** Starts the killed node at `port` again; resolves once it is a replica in sync again (or a master). */
    async restart(port) {
      const n = nodes.find((x) => x.port === port);
      up(n);
      await until(`node ${port} back`, 60_000, async () => {
        const r = await replication(port);
        return r?.get('role') === 'master' || r?.get('master_link_status') === 'up';
      });
    },
    stop,
  };
}
