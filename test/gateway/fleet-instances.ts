// Gateway processes for the fleet specs: the CLI from source (tsx), on a free port, sharing one Redis log.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface Instance {
  readonly child: ChildProcess;
  readonly baseURL: string;
  stderr(): string;
}

export interface Fleet {
  /** One gateway process (`--background`, the fleet's lease); resolves once it listens. */
  start(name: string): Promise<Instance>;
  /** Kills every instance still running (SIGKILL). */
  killAll(): Promise<void>;
}

/** A fleet of gateways in front of `upstream()` on the Redis at `redisUrl()` (read when an instance starts). */
export function gatewayFleet(upstream: () => string, redisUrl: () => string, leaseMs: number): Fleet {
  const children = new Set<ChildProcess>();
  return {
    start(name) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(__dirname, '..', '..', 'cli', 'main.ts'), 'gateway', '--port', '0', '--upstream', upstream(), '--redis', redisUrl(), '--background', '--lease-ms', String(leaseMs)],
        { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '' } },
      );
      children.add(child);
      child.on('exit', () => children.delete(child));
      let out = '';
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      return new Promise((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
          if (m) resolve({ child, baseURL: m[1]!, stderr: () => err });
        });
        child.on('exit', (code) => reject(new Error(`gateway ${name} exited (${code}) before listening: ${err}`)));
      });
    },
    async killAll() {
      await Promise.all([...children].map(killed));
    },
  };
}

/** Resolves once `c` has exited, killing it (SIGKILL) when it still runs. */
export const killed = (c: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  });
