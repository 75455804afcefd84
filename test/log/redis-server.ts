// A real redis-server for the tests of redisEventLog: started on a free loopback port, persistence off unless
// a directory is given, stopped (and waited for) after. .ci/run installs Debian's redis-server when missing.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { createServer, Socket } from 'node:net';
import { join } from 'node:path';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills it with SIGKILL (as a crash would) and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill`), with the same options. */
  restart(): Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Turns the append-only file on, in this directory, fsynced on every write: acknowledged writes survive a kill. */
  readonly persistDir?: string;
  /**
   * Starts it as a one-node Redis Cluster (state files in this directory) owning all 16384 slots, so that
   * cluster clients and the cluster's key rules (CROSSSLOT) apply.
   */
  readonly clusterDir?: string;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves when something answers PING with PONG on the port, within `ms`. */
async function answers(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      let data = '';
      const done = (v: boolean): void => {
        socket.destroy();
        resolve(v);
      };
      socket.setTimeout(1000, () => done(false));
      socket.on('error', () => done(false));
      socket.on('data', (chunk) => {
        data += chunk.toString();
        if (data.includes('\r\n')) done(data.startsWith('+PONG'));
      });
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Gives the one node every slot (when not yet) and waits until the cluster reports `cluster_state:ok`. */
async function clusterReady(port: number): Promise<void> {
  const { Redis } = await import('ioredis');
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  try {
    await c.connect();
    const info = (): Promise<string> => c.cluster('INFO') as Promise<string>;
    if (!/cluster_slots_assigned:16384/.test(await info())) await c.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 20_000;
    while (!/cluster_state:ok/.test(await info())) {
      if (Date.now() > deadline) throw new Error(`the one-node cluster on port ${port} did not become ready`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await c.quit();
  }
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Starts `redis-server` (from PATH) on a free loopback port and waits until it answers. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--daemonize', 'no', '--loglevel', 'warning'];
  if (options.persistDir) args.push('--dir', options.persistDir, '--appendonly', 'yes', '--appendfsync', 'always');
  else args.push('--appendonly', 'no');
  if (options.clusterDir) args.push('--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1', '--cluster-config-file', join(options.clusterDir, `nodes-${port}.conf`));

  const start = async (): Promise<void> => {
    log = '';
    const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    c.stdout?.on('data', (d) => (log += d));
    c.stderr?.on('data', (d) => (log += d));
    const failed = new Promise<never>((_, reject) => {
      c.once('error', reject);
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before answering: ${log}`)));
    });
    failed.catch(() => undefined);
    await Promise.race([answers(port, 20_000), failed]);
    if (options.clusterDir) await clusterReady(port);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c) return;
    c.kill('SIGKILL');
    await exited(c);
    child = undefined;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    async stop() {
      const c = child;
      if (!c) return;
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited(c);
      clearTimeout(timer);
      child = undefined;
    },
  };
}

/** A spec file's own redis-server and an admin client on it (INFO, SCAN, TIME ...), set up by redisForSuite. */
export interface RedisSuite {
  readonly server: RedisServer;
  readonly admin: Redis;
}

/**
 * Registers a beforeAll that starts a redis-server and connects an admin client to it, and an afterAll that
 * quits the client and stops the server. Its fields are there from the beforeAll on (read them in hooks and tests).
 */
export function redisForSuite(options: RedisServerOptions = {}): RedisSuite {
  let server: RedisServer | undefined;
  let admin: Redis | undefined;
  beforeAll(async () => {
    server = await startRedisServer(options);
    const { Redis } = await import('ioredis');
    admin = new Redis(server.url, { lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.quit();
    await server?.stop();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('redisForSuite: read before its beforeAll ran');
    return v;
  };
  return {
    get server() {
      return ready(server);
    },
    get admin() {
      return ready(admin);
    },
  };
}

/** Resolves once a client of `admin`'s server is blocked in an XREAD (CLIENT LIST: cmd=xread, flag b); `check` may throw first. */
export async function xreadBlocked(admin: Redis, check: () => void = () => undefined): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    check();
    const list = (await admin.client('LIST')) as string;
    if (list.split('\n').some((l) => / cmd=xread/.test(l) && / flags=\w*b/.test(l))) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no XREAD blocked');
}
