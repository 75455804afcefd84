// A redis-server with arguments of the test's own (a replica of another, an eviction policy), for the suites
// that need one beside redis-server.ts's: on a free loopback port, persistence off, stopped and waited for after.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './redis-server';

export interface ExtraRedis {
  readonly port: number;
  readonly url: string;
  /** Its process (to SIGSTOP / SIGCONT it). */
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Starts `redis-server` with `args` added and waits until it answers PING. */
export async function startRedisWith(args: readonly string[]): Promise<ExtraRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', ...args], { stdio: 'ignore' });
  const { Redis } = await import('ioredis');
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
  probe.on('error', () => undefined);
  try {
    const failed = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server exited (${code})`))));
    failed.catch(() => undefined);
    await Promise.race([probe.ping(), failed]);
  } finally {
    probe.disconnect();
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

/** A master and a `--replicaof` replica of it, the replica synced, and an admin client on the master. */
export interface ReplicaPair {
  readonly master: ExtraRedis;
  readonly replica: ExtraRedis;
  readonly admin: import('ioredis').Redis;
}

/**
 * Registers a beforeAll that starts a master and a synced replica (a paused replica stays connected: repl-timeout
 * 60 s), and an afterAll that resumes and stops both and quits the admin client after `before()` (e.g. closing
 * the suite's logs). Its fields are there from the beforeAll on.
 */
export function replicaPairForSuite(before: () => Promise<void> = async () => undefined): ReplicaPair {
  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    const master = await startRedisWith([]);
    const replica = await startRedisWith(['--replicaof', '127.0.0.1', String(master.port)]);
    const { Redis } = await import('ioredis');
    const admin = new Redis(master.url, { lazyConnect: true });
    pair = { master, replica, admin };
    await admin.connect();
    await admin.call('CONFIG', 'SET', 'repl-timeout', '60');
    const r = new Redis(replica.url, { lazyConnect: true });
    try {
      await r.connect();
      for (let i = 0; !/master_link_status:up/.test(await r.info('replication')); i++) {
        if (i > 600) throw new Error('the replica did not sync');
        await new Promise((res) => setTimeout(res, 50));
      }
    } finally {
      r.disconnect();
    }
  });
  afterAll(async () => {
    pair?.replica.child.kill('SIGCONT');
    await before();
    await pair?.admin.quit();
    await pair?.replica.stop();
    await pair?.master.stop();
  });
  const ready = (): ReplicaPair => {
    if (pair === undefined) throw new Error('replicaPairForSuite: read before its beforeAll ran');
    return pair;
  };
  return {
    get master() {
      return ready().master;
    },
    get replica() {
      return ready().replica;
    },
    get admin() {
      return ready().admin;
    },
  };
}
