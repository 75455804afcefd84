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
