// The Durable Streams server (issue 29) beside the protocol's reference server, each in its own process
// (bench/ds-server.mjs), driven from this one over loopback HTTP/1.1 with keep-alive:
//   appends      S streams, one writer each, POSTing small JSON messages back to back: appends/s, server CPU µs/append
//   catch-up     one stream read from the start by following Stream-Next-Offset: MB/s, server CPU ms/MB
//                (bytes: 100 KB appends of application/octet-stream; JSON: 500-byte messages, 100 per POST)
//   live SSE     1,000 streams, a reader on each (`live=sse` from `now`), each stream appended once a second:
//                delivery latency (POST sent → the message parsed by its reader) p50/p99, and the POST's own p99
// DS_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p' profiles the servers.
// node bench/durable-streams.mjs [--quick] [--only reference,memory,redis] [--sections appends,catch-up,sse] (OPENAI_RX_DIST, REDIS_SERVER as the others)
import { spawn, execFileSync } from 'node:child_process';
import { createServer as netServer } from 'node:net';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const SECTIONS = argv.includes('--sections') ? argv[argv.indexOf('--sections') + 1].split(',') : ['appends', 'catch-up', 'sse'];
const ONLY = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : ['reference', 'memory', 'redis'];
const SIZES = QUICK
  ? { appendStreams: 50, appends: 5_000, catchupBytes: 8 << 20, jsonMessages: 10_000, sseStreams: 1_000, sseSeconds: 6 }
  : { appendStreams: 100, appends: 20_000, catchupBytes: 32 << 20, jsonMessages: 40_000, sseStreams: 1_000, sseSeconds: 15 };
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const now = () => performance.now();
const pct = (xs, p) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]);
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

/** One request; resolves with status, headers and the body as a Buffer. */
function request(method, url, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method, headers, agent }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(body);
  });
}

async function expect(status, p, what) {
  const r = await p;
  if (!status.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body.toString().slice(0, 200)}`);
  return r;
}

/** A server child; `cpu()` its CPU µs so far. */
async function startServer(kind, redisUrl) {
  const child = spawn(process.execPath, [...(process.env.DS_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bench/ds-server.mjs', kind, ...(redisUrl ? [redisUrl] : [])], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill('SIGKILL'));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu.user + m.cpu.system));
      child.send('cpu');
    });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { kind, url, cpu, stop: () => (child.kill('SIGTERM'), exited) };
}

async function appends(server) {
  const base = `${server.url}/v1/stream/bench-append-${Date.now()}`;
  const streams = Array.from({ length: SIZES.appendStreams }, (_, i) => `${base}-${i}`);
  for (const s of streams) await expect([201], request('PUT', s, { 'content-type': 'application/json' }), 'create');
  const body = JSON.stringify({ kind: 'delta', text: 'x'.repeat(160) });
  let left = SIZES.appends;
  const cpu0 = await server.cpu();
  const t0 = now();
  await Promise.all(
    streams.map(async (s) => {
      while (left > 0) {
        left--;
        await expect([200, 204], request('POST', s, { 'content-type': 'application/json' }, body), 'append');
      }
    }),
  );
  const ms = now() - t0;
  const cpu = (await server.cpu()) - cpu0;
  return { rate: SIZES.appends / (ms / 1000), cpuPer: cpu / SIZES.appends };
}

async function readAll(url) {
  let offset = '-1';
  let bytes = 0;
  for (;;) {
    const r = await expect([200], request('GET', `${url}?offset=${encodeURIComponent(offset)}`), 'catch-up read');
    bytes += r.body.length;
    offset = r.headers['stream-next-offset'];
    if (r.headers['stream-up-to-date'] === 'true') return bytes;
  }
}

async function catchUp(server, json) {
  const url = `${server.url}/v1/stream/bench-catchup-${json ? 'json' : 'bytes'}-${Date.now()}`;
  const type = json ? 'application/json' : 'application/octet-stream';
  await expect([201], request('PUT', url, { 'content-type': type }), 'create');
  if (json) {
    const msg = JSON.stringify({ kind: 'delta', text: 'y'.repeat(470) });
    const batch = `[${Array(100).fill(msg).join(',')}]`;
    for (let i = 0; i < SIZES.jsonMessages / 100; i++) await expect([200, 204], request('POST', url, { 'content-type': type }, batch), 'fill');
  } else {
    const chunk = randomBytes(100 << 10);
    for (let i = 0; i < SIZES.catchupBytes / chunk.length; i++) await expect([200, 204], request('POST', url, { 'content-type': type }, chunk), 'fill');
  }
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const cpu0 = await server.cpu();
    const t0 = now();
    const bytes = await readAll(url);
    const ms = now() - t0;
    const cpu = (await server.cpu()) - cpu0;
    runs.push({ mbs: bytes / (1 << 20) / (ms / 1000), cpuPerMb: cpu / 1000 / (bytes / (1 << 20)) });
  }
  runs.sort((a, b) => a.mbs - b.mbs);
  return runs[1];
}

/** A live SSE reader: calls `onMessage` with each JSON message as it arrives; `ready` once the first control came. */
function sseReader(url, onMessage) {
  let ready;
  const readyP = new Promise((r) => (ready = r));
  const req = http.get(`${url}?offset=now&live=sse`, { agent: false }, (res) => {
    res.setEncoding('utf8');
    let buf = '';
    let event = '';
    let data = [];
    res.on('data', (text) => {
      buf += text;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          if (event === 'data') for (const m of JSON.parse(data.join('\n'))) onMessage(m);
          else if (event === 'control') ready();
          event = '';
          data = [];
        } else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
    });
  });
  req.on('error', () => {});
  return { ready: readyP, close: () => req.destroy() };
}

async function liveSse(server) {
  const base = `${server.url}/v1/stream/bench-sse-${Date.now()}`;
  const n = SIZES.sseStreams;
  const urls = Array.from({ length: n }, (_, i) => `${base}-${i}`);
  for (let i = 0; i < n; i += 50) await Promise.all(urls.slice(i, i + 50).map((u) => expect([201], request('PUT', u, { 'content-type': 'application/json' }), 'create')));
  const latencies = [];
  const posts = [];
  let warm = true;
  let received = 0;
  const readers = urls.map((u) =>
    sseReader(u, (m) => {
      received++;
      if (!warm) latencies.push(now() - m.t);
    }),
  );
  await Promise.all(readers.map((r) => r.ready));
  // Each stream once a second, spread evenly: every 10 ms, n/100 streams.
  const cpu0 = await server.cpu();
  let sent = 0;
  const inflight = new Set();
  const t0 = now();
  await new Promise((resolve) => {
    let tick = 0;
    const timer = setInterval(() => {
      if (now() - t0 > 1000) warm = false;
      if (now() - t0 > SIZES.sseSeconds * 1000) {
        clearInterval(timer);
        resolve();
        return;
      }
      for (let k = 0; k < n / 100; k++) {
        const u = urls[(tick * (n / 100) + k) % n];
        const t = now();
        sent++;
        const p = request('POST', u, { 'content-type': 'application/json' }, JSON.stringify({ t })).then((r) => {
          if (!warm) posts.push(now() - t);
          if (r.status !== 200 && r.status !== 204) throw new Error(`append: HTTP ${r.status}`);
        });
        inflight.add(p);
        p.finally(() => inflight.delete(p));
      }
      tick++;
    }, 10);
  });
  await Promise.all(inflight);
  await new Promise((r) => setTimeout(r, 500));
  const cpu = (await server.cpu()) - cpu0;
  for (const r of readers) r.close();
  return { p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), max: pct(latencies, 1), postP99: pct(posts, 0.99), sent, received, cpuPer: cpu / sent };
}

function freePort() {
  return new Promise((resolve) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const bin = process.env.REDIS_SERVER ?? 'redis-server';
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const port = await freePort();
  const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning', '--maxclients', '10000'], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.once('exit', () => proc.kill('SIGKILL'));
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const ok = await new Promise((resolve) => {
      const s = http.get(`http://127.0.0.1:${port}/`, () => resolve(true));
      s.on('error', (e) => resolve(e.code !== 'ECONNREFUSED'));
    });
    if (ok) return { url: `redis://127.0.0.1:${port}`, stop: () => proc.kill('SIGTERM') };
  }
  throw new Error('redis-server did not start');
}

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`\nDurable Streams servers (${cpus().length} cores, ${cpus()[0]?.model ?? '?'}, Node ${process.versions.node}, load ${load()})\n`);
const redis = ONLY.includes('redis') ? await startRedis() : undefined;
if (ONLY.includes('redis') && !redis) console.log('(redis: skipped, no redis-server; REDIS_SERVER=/path/to/redis-server)');
const rows = [];
for (const kind of ONLY) {
  if (kind === 'redis' && !redis) continue;
  const name = { reference: 'reference (@durable-streams/server, memory)', memory: 'openai-rx, memory log', redis: 'openai-rx, Redis log' }[kind];
  let server;
  try {
    server = await startServer(kind, kind === 'redis' ? redis.url : undefined);
  } catch (e) {
    console.log(`(${name}: skipped, ${e.message})`);
    continue;
  }
  const on = (section) => SECTIONS.includes(section);
  const skipped = { rate: NaN, cpuPer: NaN, mbs: NaN, cpuPerMb: NaN, p50: NaN, p99: NaN, max: NaN, postP99: NaN, sent: 0, received: 0 };
  const a = on('appends') ? await appends(server) : skipped;
  const cb = on('catch-up') ? await catchUp(server, false) : skipped;
  const cj = on('catch-up') ? await catchUp(server, true) : skipped;
  const s = on('sse') ? await liveSse(server) : skipped;
  rows.push({ name, a, cb, cj, s });
  await server.stop();
}
redis?.stop();
console.log('| server | appends/s | CPU µs/append | catch-up bytes MB/s | CPU ms/MB | catch-up JSON MB/s | CPU ms/MB | SSE p50 / p99 / max ms | POST p99 ms | delivered | CPU µs/append (SSE) |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { name, a, cb, cj, s } of rows) {
  console.log(`| ${name} | ${f(a.rate, 0)} | ${f(a.cpuPer, 0)} | ${f(cb.mbs, 0)} | ${f(cb.cpuPerMb, 1)} | ${f(cj.mbs, 0)} | ${f(cj.cpuPerMb, 1)} | ${f(s.p50, 2)} / ${f(s.p99, 2)} / ${f(s.max, 1)} | ${f(s.postP99, 2)} | ${s.received}/${s.sent} | ${f(s.cpuPer, 0)} |`);
}
console.log(`\n(${QUICK ? '--quick: ' : ''}${SIZES.appendStreams} writers × ${SIZES.appends} appends; catch-up ${SIZES.catchupBytes >> 20} MB bytes and ${SIZES.jsonMessages} JSON messages, median of 3 reads; SSE ${SIZES.sseStreams} streams × 1 append/s for ${SIZES.sseSeconds} s, the first second not counted; load after ${load()})`);
agent.destroy();
process.exit(0);
