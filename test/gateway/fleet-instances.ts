// Gateway processes for the fleet specs: the CLI from source (tsx), on a free port, sharing one Redis log; and the
// bed they share (the Redis, the fake provider, this process's view of the log).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { startFakeProvider, type FakeProvider } from '../../testing/index';
import { type RedisServer, startRedisServer } from '../log/redis-server';
import { words } from './helpers';

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

/** What the fleet specs share: one real Redis, the fake provider in this process, this process's view of the log. */
export interface FleetBed {
  readonly redis: RedisServer;
  readonly provider: FakeProvider;
  /** This process's view of the shared log, to watch an instance's progress. */
  readonly log: EventLog;
  /** One gateway process on them (`--background`, the bed's lease); resolves once it listens. */
  start(name: string): Promise<Instance>;
}

/** Starts the bed before the spec file's tests and stops it (and every instance) after them. */
export function fleetBed(leaseMs: number): FleetBed {
  let redis: RedisServer | undefined;
  let provider: FakeProvider | undefined;
  let log: EventLog | undefined;
  const ready = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('the fleet bed is used before beforeAll started it');
    return x;
  };
  const fleet = gatewayFleet(() => ready(provider).baseURL, () => ready(redis).url, leaseMs);
  beforeAll(async () => {
    redis = await startRedisServer();
    provider = await startFakeProvider({ answer: words(160), eventDelayMs: 15 });
    log = redisEventLog({ url: redis.url, commandTimeoutMs: 30_000 }); // a busy machine may delay a command long
  });
  afterAll(async () => {
    await fleet.killAll();
    await log?.close();
    await provider?.close();
    await redis?.stop();
  });
  return {
    get redis() {
      return ready(redis);
    },
    get provider() {
      return ready(provider);
    },
    get log() {
      return ready(log);
    },
    start: (name) => fleet.start(name),
  };
}
