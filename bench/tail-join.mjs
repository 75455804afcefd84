// A new live reader's wait: how long `follow` takes to hand over the events a stream already has when the log
// instance's shared tail is blocked in XREAD on other streams, as Redis's default user and as the
// least-privilege ACL user of docs/durable-log.md (the line read from that page).
//
//   node scripts/build.mjs && node bench/tail-join.mjs [--samples 200] [--extra '+info +client|id'] [--json out.json]
//   (OPENAI_RX_DIST=/path/to/dist to measure another build; REDIS_SERVER=/path/to/redis-server)
//   --extra: rules added to the documented ACL line (an older build needed +info +script|load +client|id;
//   add +client|unblock to give it CLIENT UNBLOCK too).
//
// It starts its own redis-server (loopback, random port, persistence off). Per user: one writer log stores
// 3 events in each of `samples` streams; one reader log follows a stream that stays quiet (its tail blocks,
// 1 s per XREAD), then, one after another at random moments of that block, follows each stored stream until
// its events arrive: join → first events, in ms. Without a way to interrupt the blocked XREAD, a join waits
// for the block to end (0-1000 ms, ~500 on average).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const SAMPLES = Number(opt('--samples', '200'));
const EXTRA = opt('--extra', '').split(/\s+/).filter(Boolean);
const JSON_OUT = opt('--json', undefined);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function loadRx() {
  const root = process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
  return import(new URL('esm/index.js', root).href);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const ping = (port) =>
  new Promise((resolve) => {
    const socket = new Socket();
    const done = (v) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });

async function startRedis() {
  const port = await freePort();
  const bin = process.env.REDIS_SERVER ?? 'redis-server';
  const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (const deadline = Date.now() + 20_000; !(await ping(port)); await sleep(50)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`${bin} did not start on port ${port}`);
  }
  return { port, stop: () => (proc.exitCode !== null ? undefined : new Promise((r) => (proc.once('exit', r), proc.kill('SIGTERM')))) };
}

/** The documented ACL line's rules (after `ACL SETUSER openai-rx`), the password given. */
function documentedRules(password) {
  const line = readFileSync(new URL('../docs/durable-log.md', import.meta.url), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ACL SETUSER openai-rx '));
  return line.trim().split(/\s+/).slice(3).map((r) => (r === '>PASSWORD' ? `>${password}` : r));
}

const ev = (id, seq) =>
  seq === 0
    ? { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] }, sequence_number: 0 }
    : { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: `d${seq}`, logprobs: [], sequence_number: seq };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** `follow` until its first events; resolves with the ms it took. */
function firstEvents(log, scope) {
  const start = nowMs();
  return new Promise((resolve, reject) => {
    let stop = () => undefined;
    stop = log.follow(scope, undefined, {
      events: () => {
        stop();
        resolve(nowMs() - start);
      },
      end: () => undefined,
      error: reject,
    });
  });
}

async function measure(rx, url, label) {
  const writer = rx.redisEventLog({ url });
  const reader = rx.redisEventLog({ url });
  const run = `${label.replace(/\W+/g, '_')}_${process.pid}`;
  try {
    const scopes = Array.from({ length: SAMPLES }, (_, i) => ({ responseId: `resp_${run}_${i}` }));
    for (const s of scopes) {
      const { token } = await writer.acquire(s, 600_000);
      await writer.append(s, token, [ev(s.responseId, 0), ev(s.responseId, 1), ev(s.responseId, 2)]);
    }
    // The tail's XREAD blocks on this one (nothing comes) between the joins.
    const stopQuiet = reader.follow({ responseId: `resp_${run}_quiet` }, undefined, { events: () => undefined, end: () => undefined, error: (e) => console.error(e) });
    await sleep(200);
    const ms = [];
    for (const s of scopes) {
      await sleep(Math.random() * 1000); // a random moment of the 1-s block
      ms.push(await firstEvents(reader, s));
    }
    stopQuiet();
    ms.sort((a, b) => a - b);
    return { label, samples: ms.length, p50: pct(ms, 0.5), p95: pct(ms, 0.95), max: ms[ms.length - 1], mean: ms.reduce((a, b) => a + b, 0) / ms.length };
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
}

const rx = await loadRx();
const server = await startRedis();
const { Redis } = await import('ioredis');
const admin = new Redis(`redis://127.0.0.1:${server.port}`);
const rows = [];
try {
  const password = `bench-${process.pid}`;
  await admin.call('ACL', 'SETUSER', 'openai-rx', 'reset', ...documentedRules(password), ...EXTRA);
  rows.push(await measure(rx, `redis://127.0.0.1:${server.port}`, 'default user'));
  rows.push(await measure(rx, `redis://openai-rx:${password}@127.0.0.1:${server.port}`, `ACL user${EXTRA.length ? ` ${EXTRA.join(' ')}` : ''}`));
} finally {
  await admin.quit();
  await server.stop();
}
const f = (v) => v.toFixed(1).padStart(7);
console.log(`\nA new live reader while the tail blocks (${SAMPLES} joins each, ms from follow() to its first events)`);
console.log('| user | p50 | p95 | max | mean |\n|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.label} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.max)} | ${f(r.mean)} |`);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(rows, null, 2));
