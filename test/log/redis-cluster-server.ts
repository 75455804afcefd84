// A real multi-node Redis Cluster for the tests (issue 25): masters and their replicas, each a Debian
// `redis-server` child process (not daemonized: the test can SIGKILL one, and nothing outlives the suite) on
// free loopback ports with explicit cluster bus ports, persistence off, a short node timeout so that a replica
// takes over a killed master within a few seconds. Ready means: every live node says cluster_state:ok, they all
// agree on which live master serves every slot, and every replica's link to its master is up (a replica that
// has not synced cannot take over). The recipe is ../shared/tools/redis-cluster.sh's.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, type Redis } from 'ioredis';
import { redisEventLog, type RedisEventLogOptions } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { freePort } from './redis-server';

export interface RedisClusterOptions {
  /** Default 3. */
  readonly masters?: number;
  /** Default 1. */
  readonly replicasPerMaster?: number;
  /** `cluster-node-timeout`, in ms: how soon a silent master counts as failed. Default 1500. */
  readonly nodeTimeoutMs?: number;
}

export interface ClusterNode {
  readonly port: number;
  /** As of the last time the harness settled (start, killMaster, restartNode, refresh); 'down' once killed. */
  readonly role: 'master' | 'replica' | 'down';
  /** The process id of its current (or last) redis-server. */
  readonly pid: number;
}

export interface RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** For `new Cluster(startupNodes)`: every node's address. */
  readonly startupNodes: readonly { host: string; port: number }[];
  /** The port of the master serving `key`'s slot now (CLUSTER KEYSLOT and CLUSTER SLOTS, asked of a live node). */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs the master on `port`, then waits until one of its replicas serves its slots and the survivors are ready again. */
  killMaster(port: number): Promise<{ readonly promoted: number; readonly ms: number }>;
  /** SIGKILLs any node (no wait for the cluster to settle); the signal is sent before the first await. */
  kill(port: number): Promise<void>;
  /** SIGSTOPs a node (it hangs: its sockets stay open, it answers nothing); `resume` continues it. */
  pause(port: number): void;
  resume(port: number): void;
  /** The ports of the live replicas of the master on `port`, as a live node sees them. */
  replicasOf(port: number): Promise<number[]>;
  /** Starts a killed node again on its ports (it rejoins, as a replica when its slots moved) and waits until all is ready. */
  restartNode(port: number): Promise<void>;
  /** Waits until the cluster is ready (see above) and updates `nodes`. */
  refresh(): Promise<void>;
  /** Kills every node, waits for them, removes the temp dir. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The bound on every wait of the harness: generous (a busy 2-core machine is slow), far below the suites' timeouts. */
const SETTLE_MS = 90_000;

interface Proc {
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  child: ChildProcess | undefined;
  pid: number;
  role: ClusterNode['role'];
  log: string;
}

const closed = (c: ChildProcess): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((resolve) => c.once('close', () => resolve()));

/** One command on a fresh connection to `port`, closed after; fails fast (no retries, no offline queue). */
export async function askNode(port: number, ...args: (string | number)[]): Promise<unknown> {
  const { Redis } = await import('ioredis');
  const c: Redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false, connectTimeout: 5000, commandTimeout: 10_000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return await c.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    c.disconnect();
  }
}

interface NodeLine {
  readonly id: string;
  readonly port: number;
  readonly flags: readonly string[];
  readonly masterId: string;
  readonly slots: number;
}

/** CLUSTER NODES as `port` sees it. */
async function nodesSeenBy(port: number): Promise<NodeLine[]> {
  const text = String(await askNode(port, 'CLUSTER', 'NODES'));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', addr = '', flags = '', masterId = '', , , , , ...slots] = line.trim().split(' ');
      const count = slots.filter((s) => !s.startsWith('[')).reduce((n, s) => {
        const [a, b] = s.split('-').map(Number);
        return n + (b === undefined ? 1 : b - (a ?? 0) + 1);
      }, 0);
      return { id, port: Number(/:(\d+)@/.exec(addr)?.[1]), flags: flags.split(','), masterId, slots: count };
    });
}

/** The port of the master of every slot range, as `port` sees it (CLUSTER SLOTS), in a comparable form. */
async function slotMapSeenBy(port: number): Promise<string> {
  const slots = (await askNode(port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
  return slots
    .map(([a, b, [, p]]) => `${a}-${b}:${p}`)
    .sort()
    .join(' ');
}

const infoField = (info: string, field: string): string | undefined => new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

/** The config of one node, written to its directory (the cluster state file, nodes.conf, lives there too). */
function configOf(p: Proc, nodeTimeoutMs: number): string {
  return [
    `port ${p.port}`,
    `cluster-port ${p.busPort}`,
    'bind 127.0.0.1',
    'daemonize no',
    `dir ${p.dir}`,
    'cluster-enabled yes',
    'cluster-config-file nodes.conf',
    `cluster-node-timeout ${nodeTimeoutMs}`,
    'cluster-announce-ip 127.0.0.1',
    // A replica takes over however long its link was down (a busy machine's pause must not keep it from it).
    'cluster-replica-validity-factor 0',
    'save ""',
    'appendonly no',
    // The first sync starts at once instead of 5 s later (diskless: nothing written to disk).
    'repl-diskless-sync-delay 0',
    'loglevel warning',
    'logfile ""',
  ].join('\n');
}

/**
 * Starts `masters` masters with `replicasPerMaster` replicas each (redis-cli --cluster create) and waits until
 * the cluster is ready. On any failure on the way, everything started is stopped before the error is thrown.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const perMaster = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1500;
  const root = mkdtempSync(join(tmpdir(), 'openai-rx-cluster-'));
  const procs: Proc[] = [];
  // If the test process dies without its afterAll (a crash, a killed worker), the nodes die with it.
  const onExit = (): void => {
    for (const p of procs) p.child?.kill('SIGKILL');
  };
  process.on('exit', onExit);

  const spawnNode = async (p: Proc): Promise<void> => {
    p.log = '';
    const child = spawn('redis-server', [join(p.dir, 'redis.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    p.child = child;
    p.pid = child.pid ?? 0;
    child.stdout?.on('data', (d) => (p.log = (p.log + d).slice(-4000)));
    child.stderr?.on('data', (d) => (p.log = (p.log + d).slice(-4000)));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server on port ${p.port} exited (${child.exitCode ?? child.signalCode}): ${p.log}`);
      try {
        if ((await askNode(p.port, 'PING')) === 'PONG') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`redis-server on port ${p.port} did not answer within 20 s: ${p.log}`);
      await sleep(50);
    }
  };

  /** A new node on free ports; ports another process took between freePort and the bind are picked again. */
  const addNode = async (i: number): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const p: Proc = { port: await freePort(), busPort: await freePort(), dir: join(root, String(i)), child: undefined, pid: 0, role: 'master', log: '' };
      if (p.port === p.busPort || procs.some((q) => [q.port, q.busPort].includes(p.port) || [q.port, q.busPort].includes(p.busPort))) continue;
      rmSync(p.dir, { recursive: true, force: true });
      mkdirSync(p.dir, { recursive: true });
      writeFileSync(join(p.dir, 'redis.conf'), configOf(p, nodeTimeoutMs));
      try {
        await spawnNode(p);
        procs.push(p);
        return;
      } catch (e) {
        if (p.child) {
          p.child.kill('SIGKILL');
          await closed(p.child);
        }
        if (attempt >= 4 || !/in use|bind/i.test(String(e))) throw e;
      }
    }
  };

  const alive = (): Proc[] => procs.filter((p) => p.child && p.child.exitCode === null && p.child.signalCode === null);
  const byPort = (port: number): Proc => {
    const p = procs.find((q) => q.port === port);
    if (!p) throw new Error(`no node on port ${port}`);
    return p;
  };

  /** What keeps the live nodes from being ready, or undefined when they are (and their roles recorded). */
  const notReady = async (): Promise<string | undefined> => {
    const live = alive();
    const maps = new Set<string>();
    const roles = new Map<number, 'master' | 'replica'>();
    for (const p of live) {
      const info = String(await askNode(p.port, 'CLUSTER', 'INFO'));
      if (infoField(info, 'cluster_state') !== 'ok') return `${p.port}: cluster_state ${infoField(info, 'cluster_state')}`;
      if (infoField(info, 'cluster_slots_ok') !== '16384') return `${p.port}: cluster_slots_ok ${infoField(info, 'cluster_slots_ok')}`;
      const map = await slotMapSeenBy(p.port);
      maps.add(map);
      const servers = new Set([...map.matchAll(/:(\d+)/g)].map((m) => Number(m[1])));
      const dead = [...servers].filter((s) => !live.some((q) => q.port === s));
      if (dead.length > 0) return `${p.port}: slots still served by dead ${dead.join(',')}`;
      const repl = String(await askNode(p.port, 'INFO', 'replication'));
      const role = infoField(repl, 'role');
      if (role === 'slave') {
        if (infoField(repl, 'master_link_status') !== 'up') return `${p.port}: replica link ${infoField(repl, 'master_link_status')}`;
        if (!servers.has(Number(infoField(repl, 'master_port')))) return `${p.port}: replica of ${infoField(repl, 'master_port')}, which serves no slot`;
        roles.set(p.port, 'replica');
      } else {
        if (!servers.has(p.port)) return `${p.port}: a master without slots`;
        roles.set(p.port, 'master');
      }
    }
    if (maps.size !== 1) return `the nodes disagree on the slot map: ${[...maps].join(' | ')}`;
    for (const p of procs) p.role = roles.get(p.port) ?? 'down';
    return undefined;
  };

  const settle = async (what: string): Promise<void> => {
    const deadline = Date.now() + SETTLE_MS;
    let why: string | undefined = 'not asked yet';
    for (;;) {
      try {
        why = await notReady();
        if (why === undefined) return;
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
      }
      if (Date.now() > deadline) throw new Error(`${what}: the cluster was not ready after ${SETTLE_MS} ms (${why})`);
      await sleep(100);
    }
  };

  const killProc = async (p: Proc): Promise<void> => {
    const c = p.child;
    if (!c) return;
    c.kill('SIGKILL'); // (a stopped process dies of it too)
    await closed(c);
    p.child = undefined;
    p.role = 'down';
  };

  const replicasOf = async (port: number): Promise<number[]> => {
    const survivor = alive().find((q) => q.port !== port);
    if (!survivor) throw new Error('no other node is alive');
    const me = (await nodesSeenBy(port)).find((n) => n.flags.includes('myself'));
    if (!me?.flags.includes('master') || me.slots === 0) throw new Error(`the node on port ${port} is not a master serving slots`);
    return (await nodesSeenBy(survivor.port)).filter((n) => n.masterId === me.id && !n.flags.some((f) => f.startsWith('fail'))).map((n) => n.port);
  };

  const stop = async (): Promise<void> => {
    await Promise.all(procs.map(killProc));
    process.off('exit', onExit);
    rmSync(root, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < masters * (1 + perMaster); i++) await addNode(i);
    const hosts = procs.map((p) => `127.0.0.1:${p.port}`);
    await new Promise<void>((resolve, reject) =>
      execFile('redis-cli', ['--cluster', 'create', ...hosts, '--cluster-replicas', String(perMaster), '--cluster-yes'], { timeout: 120_000 }, (e, out, err) =>
        e ? reject(new Error(`redis-cli --cluster create failed: ${e.message}\n${out}\n${err}`)) : resolve(),
      ),
    );
    await settle('startRedisCluster');
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    get nodes() {
      return procs.map((p) => ({ port: p.port, role: p.role, pid: p.pid }));
    },
    startupNodes: procs.map((p) => ({ host: '127.0.0.1', port: p.port })),
    async masterOf(key) {
      const [p] = alive();
      if (!p) throw new Error('no node is alive');
      const slot = Number(await askNode(p.port, 'CLUSTER', 'KEYSLOT', key));
      const slots = (await askNode(p.port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
      const range = slots.find(([a, b]) => slot >= a && slot <= b);
      if (!range) throw new Error(`no node serves slot ${slot} (of ${key})`);
      return Number(range[2][1]);
    },
    async killMaster(port) {
      const p = byPort(port);
      const replicas = await replicasOf(port);
      if (replicas.length === 0) throw new Error(`the master on port ${port} has no live replica to take over`);
      const killed = Date.now();
      await killProc(p);
      await settle(`after killing the master on port ${port}`);
      const promoted = replicas.find((r) => byPort(r).role === 'master');
      if (promoted === undefined) throw new Error(`none of ${replicas.join(',')} took over from ${port}`);
      return { promoted, ms: Date.now() - killed };
    },
    kill: (port) => killProc(byPort(port)),
    pause: (port) => void byPort(port).child?.kill('SIGSTOP'),
    resume: (port) => void byPort(port).child?.kill('SIGCONT'),
    replicasOf,
    async restartNode(port) {
      const p = byPort(port);
      if (p.child) throw new Error(`the node on port ${port} is running: kill it first`);
      await spawnNode(p);
      await settle(`after restarting the node on port ${port}`);
    },
    refresh: () => settle('refresh'),
    stop,
  };
}

/**
 * Registers a beforeAll that starts a cluster and an afterAll that stops it (whatever the tests did: every
 * node is killed and waited for, the temp dir removed). Its fields are there from the beforeAll on.
 */
export function redisClusterForSuite(options: RedisClusterOptions = {}): { readonly cluster: RedisCluster } {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(options);
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);
  return {
    get cluster() {
      if (cluster === undefined) throw new Error('redisClusterForSuite: read before its beforeAll ran');
      return cluster;
    },
  };
}

/**
 * `clusterLog(options)`: a redisEventLog on an ioredis Cluster client of its own (connecting in its constructor,
 * as most applications' do), as another process would have; both closed after each test (`when: 'each'`) or
 * after the suite. Call it BEFORE redisClusterForSuite (hooks run in the order declared: the logs and clients
 * go before the cluster); `nodes` is read when a log is made.
 */
export function clusterLogs(nodes: () => readonly { host: string; port: number }[], when: 'each' | 'all' = 'all'): (options?: Omit<RedisEventLogOptions, 'client'>) => EventLog {
  const clients: Cluster[] = [];
  const logs: EventLog[] = [];
  (when === 'each' ? afterEach : afterAll)(async () => {
    for (const l of logs.splice(0)) await l.close().catch(() => undefined);
    for (const c of clients.splice(0)) await c.quit().catch(() => c.disconnect());
  });
  return (options = {}) => {
    const client = new Cluster([...nodes()]);
    clients.push(client);
    const log = redisEventLog({ client, ...options });
    logs.push(log);
    return log;
  };
}
