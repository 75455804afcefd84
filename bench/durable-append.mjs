// The write path of redisEventLog alone, in CPU per event (this process and redis-server), without a reader:
// every turn, each of --streams streams appends --per-append events (as persistTo's writers do when their
// batches are due in the same turn), at most --window turns unacknowledged. A scratch tool for comparing
// builds (OPENAI_RX_DIST=/path/to/dist), not part of `npm run bench`.
//
//   node scripts/build.mjs && node bench/durable-append.mjs [--streams 1000] [--per-append 1,10] [--events 200000] [--window 2]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const root = process.env.OPENAI_RX_DIST ? `file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}` : new URL('../dist/', import.meta.url).href;
const rx = await import(new URL('esm/index.js', root).href);
const { Redis } = await import('ioredis');

const WORDS = 'Reactive streams turn each server-sent event into a value you can map filter and combine '.split(' ');
const eventOf = (id, seq) => ({ type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: `${WORDS[seq % WORDS.length]} `, logprobs: [], sequence_number: seq, t: performance.now() });

const port = await new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const server = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
const url = `redis://127.0.0.1:${port}`;
const admin = new Redis(url, { retryStrategy: (n) => (n > 100 ? null : 50) });
admin.on('error', () => undefined);
const redisCpu = async () => {
  const info = await admin.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
};

try {
  await admin.ping();
  const streams = Number(opt('--streams', 1000));
  const total = Number(opt('--events', 200_000));
  const window = Number(opt('--window', 2));
  for (const per of opt('--per-append', '1,10').split(',').map(Number)) {
    const log = rx.redisEventLog({ url, keyPrefix: `b${per}:`, maxEvents: 1e9, maxBytes: 1e12 });
    const scopes = Array.from({ length: streams }, (_, i) => ({ responseId: `resp_${i}` }));
    const tokens = await Promise.all(scopes.map((s) => log.acquire(s, 600_000).then((l) => l.token)));
    const turns = Math.ceil(total / (streams * per));
    // Warm-up turns (JIT, script load), then the measured ones.
    let seq = 0;
    const turn = () => {
      const from = seq;
      seq += per;
      return Promise.all(scopes.map((s, i) => log.append(s, tokens[i], Array.from({ length: per }, (_, k) => eventOf(s.responseId, from + k)))));
    };
    for (let w = 0; w < 5; w++) await turn();
    global.gc?.();
    const r0 = await redisCpu();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const inFlight = new Set();
    for (let t = 0; t < turns; t++) {
      const p = turn();
      inFlight.add(p);
      void p.then(() => inFlight.delete(p));
      if (inFlight.size >= window) await Promise.race(inFlight);
      else await new Promise((r) => setImmediate(r));
    }
    await Promise.all(inFlight);
    const c = process.cpuUsage(c0);
    const ms = performance.now() - t0;
    const redisSec = (await redisCpu()) - r0;
    const events = turns * streams * per;
    console.log(`${streams} streams × ${per}/append: ${events} events; CPU µs/event producer ${((c.user + c.system) / events).toFixed(2)}, redis ${((redisSec * 1e6) / events).toFixed(2)}; wall ${(events / ms).toFixed(1)}k events/s (load ${loadavg()[0].toFixed(1)})`);
    await log.close();
  }
} finally {
  admin.disconnect();
  server.kill('SIGTERM');
}
