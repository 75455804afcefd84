// The child processes of a conformance run: every one is started in a process group of its own and recorded, so
// that `killAll` ends it with whatever it started (vitest's workers), on a normal end, a failure, SIGINT or SIGTERM.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ping } from '../redis-ping.mjs';

const running = new Set();
const tempDirs = new Set();

/** Spawns `command` in a process group of its own; it is killed (the whole group) by `killAll`. */
export function start(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.output = '';
  const keep = (d) => (child.output = (child.output + d).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return child;
}

export const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Sends `signal` to `child`'s whole process group (a no-op once it is gone). */
export function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Synchronous, for process 'exit' too: SIGKILL to every group still running, temp dirs removed. */
export function killAll() {
  for (const child of running) signalGroup(child, 'SIGKILL');
  running.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves once something on `port` answers PING with PONG; rejects after `ms` or when `child` exits. */
async function answersPing(port, child, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await ping(port);
    if (ok) return;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server on port ${port} exited: ${child.output}`);
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${ms} ms`);
    await sleep(50);
  }
}

// The flags test/log/redis-server.ts and test/log/redis-cluster-server.ts use: loopback, no persistence, not daemonized.
const BASE_FLAGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'];

/** A redis-server on a free loopback port: `{ url, stop }`. */
export async function startRedis() {
  const port = await freePort();
  const child = start('redis-server', ['--port', String(port), ...BASE_FLAGS]);
  const failed = new Promise((_, reject) =>
    child.once('error', (e) => reject(e.code === 'ENOENT' ? new Error('redis-server is not installed (apt-get install redis-server redis-tools)') : e)),
  );
  await Promise.race([answersPing(port, child, 20_000), failed]);
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

const redisCli = (...args) =>
  new Promise((resolve, reject) =>
    execFile('redis-cli', args, { timeout: 60_000 }, (e, out, err) => (e ? reject(new Error(`redis-cli ${args.join(' ')}: ${e.message} ${out} ${err}`)) : resolve(out))),
  );

/** A Redis Cluster of `masters` masters (no replicas) on free loopback ports: `{ url (one node), stop }`. */
export async function startRedisCluster(masters = 3) {
  const dir = tempDir('openai-rx-conformance-cluster-');
  const nodes = [];
  for (let i = 0; i < masters; i++) {
    const port = await freePort();
    const bus = await freePort();
    const child = start('redis-server', [
      '--port', String(port), '--cluster-port', String(bus), ...BASE_FLAGS, '--dir', dir, '--cluster-enabled', 'yes',
      '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000', '--cluster-announce-ip', '127.0.0.1',
    ]);
    nodes.push({ port, child });
    await answersPing(port, child, 20_000);
  }
  await redisCli('--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes');
  const deadline = Date.now() + 60_000;
  for (const n of nodes) {
    while (!/cluster_state:ok/.test(await redisCli('-p', String(n.port), 'CLUSTER', 'INFO'))) {
      if (Date.now() > deadline) throw new Error(`the cluster did not become ready (node ${n.port})`);
      await sleep(100);
    }
  }
  return { url: `redis://127.0.0.1:${nodes[0].port}`, stop: () => Promise.all(nodes.map((n) => stopChild(n.child))) };
}

/** SIGTERM to its group, SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child, graceMs = 5000) {
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** Resolves with the first match of `pattern` in the child's output; rejects if it exits first or after `ms`. */
export function waitForOutput(child, pattern, ms) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(child.output);
      if (!m) return false;
      cleanup();
      resolve(m);
      return true;
    };
    const onExit = () => {
      if (!check()) {
        cleanup();
        reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}: ${child.output}`));
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`printed no ${pattern} within ${ms} ms: ${child.output}`));
    }, ms);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}
