// The gateway (openai-rx/gateway) against other ways to stand between a client and the model, side by side in
// one run, all in front of the same loopback upstream:
//   - gateway, in-memory log      createGateway({ log: 'memory' })
//   - gateway, Redis log          createGateway({ log: 'redis://…' }) (a redis-server started here; skipped without one)
//   - byte proxy                  node:http piping the upstream body
//   - openai SDK proxy            client.responses.create({ stream: true }) re-encoded as SSE
//   - event proxy                 handwritten, no library: each event's JSON parsed, written again with its `id:`
//                                 (an indication of the floor of any proxy that reads the events; not in a target)
//
//   node scripts/build.mjs && node --expose-gc bench/gateway.mjs [--quick] [--check] [--only gateway,byte,...]
//     [--streams 10] [--events 2000] [--rounds 5] [--rate1 200] [--rate 10] [--many 1000] [--paced-rounds 3] [--paced-seconds 5] [--sections bulk,paced,idle]
//     [--profile <contender>] (--cpu-prof of that proxy child; summarise with bench/profile.mjs) [--profile-interval µs] (its sampling interval; default 1000)
//     [--proxy-flags '--trace-gc …'] (node flags of every proxy child, after --semi-space's and --memory-reducer's)
//     [--semi-space 4] (every proxy child's --max-semi-space-size in MB, as docs/gateway.md recommends for a gateway;
//     `node` for Node's default, a young generation that grows to 16 MB semi-spaces)
//     [--memory-reducer off] (every proxy child with --no-memory-reducer, as docs/gateway.md recommends; `node` for
//     Node's default, which shrinks an idle process's heap and then pays for it when its traffic comes back)
//     [--heap-snapshots DIR] (idle: each proxy's heap snapshot before and with --many streams open)
//     [--paced-settle] (paced: a full GC in each proxy before the window; the p99 target n/a) [--paced-by-second] (each round's p99 per second)
//     [--idle-settle-ms 6000] (idle: how long each proxy is left idle, since a full GC, before its RSS is read)
//     [--dists a=<dist>,b=<dist>] (the in-memory gateway once per build, side by side: an A/B in one run) [--dists-of gateway-redis] (the Redis-log one)
//     [--json bench-gateway.json]      (OPENAI_RX_DIST=/path/to/dist, REDIS_SERVER=/path/to/redis-server)
//
// Processes: the upstream (a raw TCP server writing prebuilt Responses SSE bytes, one write per event group), one
// child per proxy, and this one (the clients: raw sockets, the chunked body decoded and the stamps read in place,
// so that the direct path costs ~15 µs of CPU per delta, kernel included, and is no bottleneck). Figures:
// - events/s per core: events through the proxy / the proxy process's CPU seconds (process.cpuUsage() of its
//   child), with the upstream writing as fast as the sockets take it ("bulk": the proxy reads coalesced
//   chunks), and in the paced run at --many streams (one event per read, as a model streams: per event a read,
//   a parse and a write, so 1,000 streams × 10/s = 10,000 deltas/s costs a proxy 0.3–0.7 of a core).
// - latency: the upstream stamps each delta with CLOCK_MONOTONIC (shared by the processes) as it writes it,
//   the client reads the stamp; every delta's now − stamp is kept (p50/p99/max over all of them). Pacing starts
//   once every stream is open and the streams' last events come once every delta has been read: the window
//   (first delta written → last read) holds the deltas only, not 1,000 openings or endings at once. The CPU of
//   the proxy, the clients and the upstream is measured over that window, per delta. The direct path (client →
//   upstream, no proxy) runs in each round too: "added" is the proxy's percentile minus the direct one
//   (indicative: percentiles do not subtract); the target holds the proxy's whole p99 (an upper bound of what
//   it adds) under 5 ms plus the direct p99, and is n/a when the direct p99 alone is ≥ 5 ms (a starved machine).
//   "deltas ≥ p99 in a GC pause": of the deltas at or above the proxy's p99, the share in flight while one of the
//   proxy's GC pauses ran (the pauses as PerformanceObserver reports them): how much of the tail its collector explains.
// - memory per open stream: the proxy's RSS and heap (after a full GC) with --many streams open and idle,
//   minus before they opened, each read once the process has been idle --idle-settle-ms since a full GC (V8 gives
//   back the young generation the opening of the streams grew only then; the figure 0.5 s after is printed too).
// The machine's load average is printed with each figure: on a shared machine, read them with it.
// Targets (issue 28), each a ratio to contenders of the same run, printed with its figure; --check exits 1 when one
// is missed (n/a, a figure missing or not measurable, is printed and is no miss); --quick: the same, shorter.
//   paced: in-memory log CPU/delta ≤ 1.5x the byte proxy's and ≤ 0.6x the SDK proxy's; Redis log ≤ 2x the byte
//   proxy's; in-memory log p99 ≤ 5 ms + the direct p99 (n/a when that is ≥ 5 ms).
//   bulk: in-memory log ≥ 50% of the byte proxy's events per CPU-second and ≥ 2x the SDK proxy's.
//   idle: in-memory log ≤ 35 KB RSS per open stream.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { connect, createServer as createNetServer, Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const QUICK = flag('--quick');
const HEAP_SNAPSHOTS = opt('--heap-snapshots');
// Lenses on the paced tail (docs/performance.md, the twentieth round). --paced-settle: each proxy runs a full GC once
// its streams are open, before the window, so that what the opening left for its collector is not paid inside the
// window (the p99 target is n/a on such a run). --paced-by-second: each round's p99 per second of the window.
const PACED_SETTLE = flag('--paced-settle');
const PACED_BY_SECOND = flag('--paced-by-second');
// Every proxy runs with the young generation docs/gateway.md recommends for a gateway ("Deploying"): Node's default
// lets it grow to 16 MB semi-spaces, and after 1,000 streams open at once each scavenge copies megabytes of their
// state (5–14 ms pauses, the paced tail: docs/performance.md, the twentieth round). The same for every contender.
const SEMI_SPACE = opt('--semi-space', '4');
if (SEMI_SPACE !== 'node' && !(Number(SEMI_SPACE) > 0)) throw new Error(`--semi-space takes a size in MB or 'node', not ${JSON.stringify(SEMI_SPACE)}`);
const SEMI_SPACE_FLAGS = SEMI_SPACE === 'node' ? [] : [`--max-semi-space-size=${Number(SEMI_SPACE)}`];
// Likewise without V8's memory reducer ("Deploying"): a full run leaves each proxy idle ~60 s between its windows,
// the reducer's collections shrink its heap to what is live, and the next window's opening pays the growth back in
// major GCs beside the deltas (docs/performance.md, the twenty-fourth round). A fleet's lull does the same.
const MEMORY_REDUCER = opt('--memory-reducer', 'off');
if (MEMORY_REDUCER !== 'off' && MEMORY_REDUCER !== 'node') throw new Error(`--memory-reducer takes 'off' or 'node', not ${JSON.stringify(MEMORY_REDUCER)}`);
const V8_FLAGS = [...SEMI_SPACE_FLAGS, ...(MEMORY_REDUCER === 'off' ? ['--no-memory-reducer'] : [])];
const IDLE_SETTLE_MS = Number(opt('--idle-settle-ms', 6000)); // idle: how long the process is left idle (since a full GC) before RSS is read // a directory: the idle section writes each proxy's heap before and with its streams open
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SELF = fileURLToPath(import.meta.url);
const distOf = (dir) => new URL(`file://${dir.replace(/\/?$/, '/')}`);
const distRoot = () => (opt('--dist') ? distOf(opt('--dist')) : process.env.OPENAI_RX_DIST ? distOf(process.env.OPENAI_RX_DIST) : new URL('../dist/', import.meta.url));

// =====================================================================================================
// The upstream (child): `--role upstream`. A request's `input` is `bench:<run>:<fast|hold>:<deltas>`.
// fast: the whole stream at once; hold: the first 4 events, then the rest on the parent's word: {go} paces the
// deltas with stamps and holds the last events until {finish}; {finish} alone writes the deltas and the end at once.
// Each write is one buffer (one syscall): the head with the prelude, each paced delta, the tail with the last chunk.
// =====================================================================================================
const PRELUDE = 4; // created, in_progress, output_item.added, content_part.added
const TAIL = 4; // output_text.done, content_part.done, output_item.done, completed
const WORDS = ' Reactive streams turn each server-sent event into a value you can map, filter and combine'.split(' ');
/** Resolves on 'drain' or 'close', whichever first, leaving no listener behind. */
const drained = (w) => new Promise((resolve) => {
  const done = () => {
    w.off('drain', done);
    w.off('close', done);
    resolve();
  };
  w.on('drain', done);
  w.on('close', done);
});
const sse = (e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const responseObj = (id, status, text) => ({
  id, object: 'response', created_at: 1764400000, status, background: false, error: null, incomplete_details: null, instructions: null,
  model: 'gpt-5.4-nano', output: text === undefined ? [] : [{ id: 'msg_bench', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] }],
  parallel_tool_calls: true, temperature: 1, tool_choice: 'auto', tools: [], top_p: 1, usage: text === undefined ? null : { input_tokens: 12, output_tokens: 2000, total_tokens: 2012 },
});
const delta = (seq, text) => ({ type: 'response.output_text.delta', sequence_number: seq, item_id: 'msg_bench', output_index: 0, content_index: 0, delta: text, logprobs: [], obfuscation: 'x4Rb' });
const prelude = (id) => [
  { type: 'response.created', sequence_number: 0, response: responseObj(id, 'in_progress') },
  { type: 'response.in_progress', sequence_number: 1, response: responseObj(id, 'in_progress') },
  { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
  { type: 'response.content_part.added', sequence_number: 3, item_id: 'msg_bench', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
];
const tail = (id, n, text) => [
  { type: 'response.output_text.done', sequence_number: PRELUDE + n, item_id: 'msg_bench', output_index: 0, content_index: 0, text, logprobs: [] },
  { type: 'response.content_part.done', sequence_number: PRELUDE + n + 1, item_id: 'msg_bench', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } },
  { type: 'response.output_item.done', sequence_number: PRELUDE + n + 2, output_index: 0, item: { id: 'msg_bench', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] } },
  { type: 'response.completed', sequence_number: PRELUDE + n + 3, response: responseObj(id, 'completed', text) },
];

/** One chunk of a `transfer-encoding: chunked` body. */
const chunked = (text) => Buffer.from(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
const LAST_CHUNK = Buffer.from('0\r\n\r\n');

async function upstreamRole() {
  // Keep-alive connections, chunked bodies (as a real upstream answers), prebuilt bytes: the upstream is no bottleneck.
  const deltasOf = new Map(); // n → Buffer: n deltas (shared by every fast stream of n deltas)
  const textOf = (n) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length] + ' ').join('');
  const deltas = (n) => deltasOf.get(n) ?? deltasOf.set(n, Buffer.concat(Array.from({ length: n }, (_, i) => chunked(sse(delta(PRELUDE + i, WORDS[i % WORDS.length] + ' ')))))).get(n);
  const framed = (events) => Buffer.concat(events.map((e) => chunked(sse(e))));
  // A paced delta: the stamp (CLOCK_MONOTONIC ms, fixed width so the chunk size is known) between two prebuilt halves.
  const STAMP_WIDTH = 16;
  const stampedOf = [];
  const stamped = (k) => {
    let t = stampedOf[k];
    if (!t) {
      const text = sse(delta(PRELUDE + k, `~T${'0'.repeat(STAMP_WIDTH)}~ `));
      const at = text.indexOf('~T') + 2;
      t = stampedOf[k] = [`${Buffer.byteLength(text).toString(16)}\r\n${text.slice(0, at)}`, `${text.slice(at + STAMP_WIDTH)}\r\n`];
    }
    return t[0] + nowMs().toFixed(3).padStart(STAMP_WIDTH, '0') + t[1];
  };
  const held = new Map(); // run → [{ sock, id, n, done }]
  let ids = 0;
  let connections = 0; // TCP connections accepted: fewer than requests when the proxy reuses them
  const HEAD = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\nx-request-id: req_bench\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n');
  const write = async (sock, bufs) => {
    for (const b of bufs) {
      if (sock.destroyed) return false;
      if (!sock.write(b)) await drained(sock);
    }
    return !sock.destroyed;
  };
  /** Answers one request; resolves when its response has been written whole. */
  const handle = async (sock, head, body) => {
    const input = /"input"\s*:\s*"bench:([^:"]+):(fast|hold):(\d+)"/.exec(body);
    if (!/^POST \/v1\/responses /.test(head) || !input) {
      sock.write('HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      return;
    }
    const [, run, mode, nText] = input;
    const n = Number(nText);
    const id = `resp_${run}_${(++ids).toString(36)}`;
    if (mode === 'fast') {
      await write(sock, [Buffer.concat([HEAD, framed(prelude(id))]), deltas(n), Buffer.concat([framed(tail(id, n, textOf(n))), LAST_CHUNK])]);
      return;
    }
    await write(sock, [Buffer.concat([HEAD, framed(prelude(id))])]);
    await new Promise((done) => (held.get(run) ?? held.set(run, []).get(run)).push({ sock, id, n, done }));
  };
  const server = createNetServer((sock) => {
    connections++;
    sock.setNoDelay(true);
    sock.on('error', () => undefined);
    let buf = '';
    const onData = (c) => {
      buf += c.toString('latin1');
      const h = buf.indexOf('\r\n\r\n');
      if (h < 0) return;
      const head = buf.slice(0, h);
      let body;
      let end;
      if (/transfer-encoding:\s*chunked/i.test(head)) {
        const last = buf.indexOf('\r\n0\r\n\r\n', h);
        if (last < 0 && !buf.startsWith('0\r\n\r\n', h + 4)) return;
        body = '';
        for (let at = h + 4; ;) {
          const eol = buf.indexOf('\r\n', at);
          const len = parseInt(buf.slice(at, eol), 16);
          if (!len) { end = eol + 4; break; }
          body += buf.slice(eol + 2, eol + 2 + len);
          at = eol + 2 + len + 2;
        }
      } else {
        const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < h + 4 + len) return;
        body = buf.slice(h + 4, h + 4 + len);
        end = h + 4 + len;
      }
      sock.off('data', onData);
      const rest = buf.slice(end);
      buf = '';
      void handle(sock, head, body).then(() => {
        if (sock.destroyed) return;
        sock.on('data', onData); // the next request on this keep-alive connection
        if (rest) onData(Buffer.from(rest, 'latin1'));
      });
    };
    sock.on('data', onData);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', async (m) => {
    if (m.stats) return process.send({ stats: true, cpu: process.cpuUsage(), connections, requests: ids });
    if (m.exit) process.exit(0);
    const streams = held.get(m.run) ?? [];
    held.delete(m.run);
    if (m.finish) {
      // a paced stream (k set) has written its deltas: only its end is left
      await Promise.all(streams.map(async (s) => {
        await write(s.sock, [...(s.k === undefined ? [deltas(s.n)] : []), Buffer.concat([framed(tail(s.id, s.n, s.k === undefined ? textOf(s.n) : 'paced')), LAST_CHUNK])]);
        s.done();
      }));
      return process.send({ finished: m.run });
    }
    // {go}: stream i writes delta k at t0 + offset_i + k / rate, stamped as it is written. Every stream has the
    // same period, so in offset order the writes come round-robin: one cursor, no scan of the streams per tick.
    const period = 1000 / m.rate;
    const order = streams.map((s) => Object.assign(s, { at: Math.random() * period, k: 0 })).sort((a, b) => a.at - b.at);
    const n = Math.max(0, ...order.map((s) => s.n));
    const c0 = process.cpuUsage();
    const t0 = nowMs();
    let written = 0;
    for (let k = 0, i = 0; k < n;) {
      const elapsed = nowMs() - t0;
      for (; k < n && order[i].at + k * period <= elapsed; i === order.length - 1 ? ((i = 0), k++) : i++) {
        const s = order[i];
        if (s.k < s.n) {
          if (!s.sock.destroyed) s.sock.write(stamped(s.k), 'latin1');
          s.k++;
          written++;
        }
      }
      if (k < n) await sleep(1);
    }
    const cpu = process.cpuUsage(c0);
    held.set(m.run, order); // their ends wait for {finish}
    process.send({ paced: m.run, ms: nowMs() - t0, written, cpuUs: cpu.user + cpu.system });
  });
  process.send({ port: server.address().port });
}

// =====================================================================================================
// The proxies (child): `--role proxy --kind <kind> --upstream <url> [--redis <url>]`.
// =====================================================================================================
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

async function proxyRole() {
  const kind = opt('--kind');
  const upstream = opt('--upstream'); // http://127.0.0.1:port/v1
  let handler;
  let close = async () => undefined;
  if (kind === 'gateway-memory' || kind === 'gateway-redis') {
    const { createGateway } = await import(new URL('esm/gateway/index.js', distRoot()).href);
    const gateway = createGateway({ upstream: { baseURL: upstream }, log: kind === 'gateway-redis' ? opt('--redis') : 'memory' });
    handler = gateway;
    close = () => gateway.close();
  } else if (kind === 'byte') {
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const base = new URL(upstream);
    handler = (req, res) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
      if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
      const up = http.request({ host: base.hostname, port: base.port, path: req.url, method: req.method, headers, agent }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, Object.fromEntries(Object.entries(ur.headers).filter(([k]) => !HOP.has(k))));
        ur.pipe(res);
      });
      up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => { if (!res.writableFinished) up.destroy(); });
      req.pipe(up);
    };
  } else if (kind === 'events') {
    // A handwritten proxy that reads the events, no library: what any gateway that numbers or logs events must do
    // at least. Each upstream read's text cut into frames at their blank lines, each event's JSON parsed (its
    // sequence_number), all of the read's frames written again, `id:` first, in one write, the writes of a turn of
    // the event loop made together after its reads (as the gateway's, gateway/after-reads.ts: a client process is
    // woken once for several). No masking, no validation, no log, no backpressure: an indication of the floor, not
    // a contender that could replace one.
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const base = new URL(upstream);
    let queued = [];
    const writeQueued = () => {
      const list = queued;
      queued = [];
      for (let i = 0; i < list.length; i += 2) if (!list[i].writableEnded) list[i].write(list[i + 1]);
    };
    handler = (req, res) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
      if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
      const up = http.request({ host: base.hostname, port: base.port, path: req.url, method: req.method, headers, agent }, (ur) => {
        if (ur.statusCode !== 200) {
          res.writeHead(ur.statusCode ?? 502, Object.fromEntries(Object.entries(ur.headers).filter(([k]) => !HOP.has(k))));
          return void ur.pipe(res);
        }
        res.writeHead(200, SSE_HEADERS);
        ur.setEncoding('utf8');
        let rest = '';
        ur.on('data', (text) => {
          const all = rest === '' ? text : rest + text;
          let out = '';
          let at = 0;
          for (let end = all.indexOf('\n\n', at); end !== -1; at = end + 2, end = all.indexOf('\n\n', at)) {
            const d = all.indexOf('data: ', at);
            const seq = d !== -1 && d < end ? JSON.parse(all.slice(d + 6, end)).sequence_number : undefined;
            out += `${seq === undefined ? '' : `id: ${seq}\n`}${all.slice(at, end)}\n\n`;
          }
          rest = all.slice(at);
          if (out === '') return;
          if (queued.length === 0) setImmediate(writeQueued);
          queued.push(res, out);
        });
        // After the turn's writes (an end in the same turn would come before them).
        ur.on('end', () => setImmediate(() => res.end()));
        ur.on('error', () => res.destroy());
      });
      up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => { if (!res.writableFinished) up.destroy(); });
      req.pipe(up);
    };
  } else if (kind === 'sdk') {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ baseURL: upstream, apiKey: 'bench', maxRetries: 0 });
    handler = async (req, res) => {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const ac = new AbortController();
      res.on('close', () => { if (!res.writableFinished) ac.abort(); });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const stream = await client.responses.create({ ...body, stream: true }, { signal: ac.signal, headers: { authorization: req.headers.authorization } });
        res.writeHead(200, SSE_HEADERS);
        for await (const e of stream) {
          const seq = e.sequence_number;
          if (!res.write(`${seq === undefined ? '' : `id: ${seq}\n`}event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)) await drained(res);
        }
        res.end();
      } catch {
        if (res.headersSent) res.destroy();
        else res.writeHead(502).end();
      }
    };
  } else throw new Error(`unknown proxy kind ${kind}`);
  // What stalls the proxy between two stats calls: event-loop delay and GC pauses.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcMax = 0;
  let gcTotal = 0;
  // Each pause since the last stats call, as [start, end] on the clock the stamps use (CLOCK_MONOTONIC, ms): what
  // the paced tail is checked against. At most GC_KEPT pauses (a paced window has a few hundred).
  const GC_KEPT = 20_000;
  let pauses = [];
  const monoOffset = nowMs() - performance.now();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMax = Math.max(gcMax, e.duration);
      gcTotal += e.duration;
      if (pauses.length < 2 * GC_KEPT) pauses.push(e.startTime + monoOffset, e.startTime + monoOffset + e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  server.maxRequestsPerSocket = 0;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', async (m) => {
    if (m.stats) {
      if (m.gc && globalThis.gc) for (let i = 0; i < 3; i++) { globalThis.gc(); await sleep(20); }
      const mem = process.memoryUsage();
      const young = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.physical_space_size ?? 0;
      process.send({ stats: true, cpu: process.cpuUsage(), rss: mem.rss, heap: mem.heapUsed, young, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6, gcMax, gcTotal, pauses });
      loop.reset();
      gcMax = 0;
      gcTotal = 0;
      pauses = [];
      return;
    }
    if (m.snapshot) {
      for (let i = 0; i < 3; i++) { globalThis.gc?.(); await sleep(20); }
      const { writeHeapSnapshot } = await import('node:v8');
      return process.send({ snapshot: writeHeapSnapshot(m.snapshot) });
    }
    if (m.exit) {
      server.closeAllConnections?.();
      await close().catch(() => undefined);
      process.exit(0); // (a --cpu-prof child writes its profile here)
    }
  });
  process.send({ port: server.address().port });
}

// =====================================================================================================
// The bench (parent): the children, the clients, the tables.
// =====================================================================================================
function child(role, args = [], execArgv = []) {
  const proc = fork(SELF, ['--role', role, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--expose-gc', ...execArgv] });
  const waiting = [];
  proc.on('message', (m) => {
    const i = waiting.findIndex((w) => w.match(m));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
  });
  let exited;
  const dead = new Promise((_, reject) => proc.once('exit', (code) => { exited = code; reject(new Error(`${role} ${args[1] ?? ''} exited (${code})`)); }));
  dead.catch(() => undefined);
  const wait = (match) => Promise.race([new Promise((resolve) => waiting.push({ match, resolve })), dead]);
  return {
    proc, wait,
    ask: (msg, match) => { const p = wait(match); proc.send(msg); return p; },
    stats: (gc = false) => { const p = wait((m) => m.stats); proc.send({ stats: true, gc }); return p; },
    stop: async () => { if (exited === undefined && proc.exitCode === null) { proc.send({ exit: true }); await once(proc, 'exit'); } },
  };
}

async function freePort() {
  const s = createNetServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}
async function ping(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    let data = '';
    const done = (v) => { socket.destroy(); resolve(v); };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (c) => { data += c; if (data.includes('\r\n')) done(data.startsWith('+PONG')); });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
/** A redis-server on a free loopback port, persistence off; undefined (and why) when there is none. */
async function startRedis() {
  const port = await freePort();
  const bin = process.env.REDIS_SERVER ?? 'redis-server';
  const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning', '--maxclients', '10000'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const missing = await Promise.race([once(proc, 'error').then(([e]) => e.message), sleep(100).then(() => undefined)]);
  if (missing) return { missing: `${bin}: ${missing}` };
  const deadline = Date.now() + 20_000;
  while (!(await ping(port))) {
    if (proc.exitCode !== null) return { missing: `${bin} exited (${proc.exitCode})` };
    if (Date.now() > deadline) { proc.kill('SIGKILL'); return { missing: `${bin} did not answer on port ${port}` }; }
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async cpu() {
      const { Redis } = await import('ioredis');
      const c = new Redis(this.url);
      const info = await c.info('cpu');
      await c.quit();
      return Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
    },
    async stop() { if (proc.exitCode === null) { proc.kill('SIGTERM'); await once(proc, 'exit'); } },
  };
}

/**
 * One streamed POST /v1/responses to `port` over a raw socket (the clients of a run share this process: a lean
 * client keeps the measurement about the proxy, not about node:http's client machinery). Decodes the chunked body
 * as it comes, counts the SSE events (comments aside) and, with `lat`, pushes now − stamp for every stamped delta
 * (the stamp read where it sits in the bytes, without parsing the event). `onFirst` once the prelude has arrived.
 * Resolves with the event count at the body's end, which must follow a response.completed.
 */
function streamOnce(port, input, { lat, stamps, onFirst, onStamp } = {}) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'gpt-5.4-nano', input, stream: true });
    const sock = connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    sock.write(`POST /v1/responses HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
      + `authorization: Bearer sk-bench\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n${body}`);
    let head = null; // bytes of the response head until it is whole
    let chunkedBody = false;
    let left = 0; // bytes left in the current chunk (chunked) or -1 (the body runs to the socket's end)
    let sizeLine = ''; // a chunk-size line split across reads
    let trail = 0; // CRLF bytes after a chunk still to skip
    let pend = null; // an SSE event split across chunks or reads
    let events = 0;
    let completed = false; // the last event was response.completed
    let ended = false;
    const fail = (e) => { if (!ended) { ended = true; sock.destroy(); reject(e); } };
    const finish = () => {
      if (ended) return;
      ended = true;
      sock.end();
      if (completed) resolve(events);
      else reject(new Error(`stream ended after ${events} events, not with response.completed`));
    };
    /** SSE bytes: whole events are scanned in place; an unfinished one is kept for the next bytes. */
    const sseBytes = (b, t) => {
      const s = pend ? Buffer.concat([pend, b]) : b;
      let at = 0;
      for (let end; (end = s.indexOf(NLNL, at)) >= 0; at = end + 2) {
        if (s[at] === 58 /* : */) continue;
        events++;
        if (lat) {
          const k = s.indexOf(STAMP, at);
          if (k >= 0 && k < end) {
            const stamp = Number(s.toString('latin1', k + 2, s.indexOf(126 /* ~ */, k + 2)));
            lat.push(t - stamp);
            stamps?.push(stamp);
            onStamp?.();
          }
        }
        if (events === PRELUDE) onFirst?.();
        const c = s.indexOf(COMPLETED, at);
        completed = c >= 0 && c < Math.min(end, at + 64);
      }
      pend = at < s.length ? Buffer.from(s.subarray(at)) : null;
    };
    sock.on('data', (c) => {
      const t = lat ? nowMs() : 0;
      let b = c;
      if (head !== null || !chunkedBody && left === 0) {
        b = head ? Buffer.concat([head, c]) : c;
        const h = b.indexOf(CRLF2);
        if (h < 0) { head = b; return; }
        const text = b.toString('latin1', 0, h);
        head = null;
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
        if (status !== 200) return fail(new Error(`HTTP ${status}: ${b.toString('latin1', h + 4, h + 204)}`));
        chunkedBody = /\r\ntransfer-encoding:\s*chunked/i.test(text);
        left = chunkedBody ? 0 : -1;
        b = b.subarray(h + 4);
      }
      if (!chunkedBody) return sseBytes(b, t);
      let at = 0;
      while (at < b.length && !ended) {
        if (trail > 0) { const n = Math.min(trail, b.length - at); trail -= n; at += n; continue; }
        if (left > 0) {
          const n = Math.min(left, b.length - at);
          sseBytes(b.subarray(at, at + n), t);
          left -= n;
          at += n;
          if (left === 0) trail = 2;
          continue;
        }
        const eol = b.indexOf(10, at);
        if (eol < 0) { sizeLine += b.toString('latin1', at); break; }
        const size = parseInt(sizeLine + b.toString('latin1', at, eol), 16);
        sizeLine = '';
        at = eol + 1;
        if (Number.isNaN(size)) return fail(new Error('malformed chunked body'));
        if (size === 0) return finish();
        left = size;
      }
    });
    sock.on('end', () => (!chunkedBody && head === null && left === -1 ? finish() : fail(new Error(`connection closed after ${events} events`))));
    sock.on('error', fail);
    sock.on('close', () => fail(new Error(`connection closed after ${events} events`)));
  });
}
const NLNL = Buffer.from('\n\n');
const CRLF2 = Buffer.from('\r\n\r\n');
const STAMP = Buffer.from('~T');
const COMPLETED = Buffer.from('event: response.completed\n');

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const cpuSec = (a, b) => (b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system) / 1e6;
const load1 = () => loadavg()[0];
let runs = 0;
const runId = () => `r${(++runs).toString(36)}`;

async function withTimeout(p, ms, what) {
  let t;
  try {
    return await Promise.race([p, new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: no end within ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(t);
  }
}

/** Bulk: `streams` concurrent streams of `n` deltas, the upstream writing as fast as the sockets take it. */
async function bulk(ctx, c, streams, n) {
  const run = runId();
  const [s0, u0, r0] = await Promise.all([c.child.stats(), ctx.upstream.stats(), c.redis?.cpu()]);
  const l0 = load1();
  const t0 = nowMs();
  const got = await withTimeout(Promise.all(Array.from({ length: streams }, () => streamOnce(c.port, `bench:${run}:fast:${n}`))), 600_000, c.name);
  const ms = nowMs() - t0;
  const [s1, u1, r1] = await Promise.all([c.child.stats(), ctx.upstream.stats(), c.redis?.cpu()]);
  const events = streams * (n + PRELUDE + TAIL);
  if (got.reduce((a, b) => a + b, 0) !== events) throw new Error(`${c.name}: ${got.reduce((a, b) => a + b, 0)} of ${events} events`);
  const cpu = cpuSec(s0, s1);
  return { events, ms, cpu, perCore: events / cpu, wallPerSec: events / (ms / 1000), upstreamCpu: cpuSec(u0, u1), upstreamConnections: u1.connections - u0.connections, redisCpu: r1 === undefined ? undefined : r1 - r0, load: (l0 + load1()) / 2 };
}

/**
 * Paced: `streams` streams open, then each writes `n` stamped deltas at `rate`/s; the window measured runs from
 * the first delta written to the last one read (CPU of the proxy, the clients and the upstream over it), and the
 * streams' ends come after it: opening and closing 1,000 streams at once is not what a stream's events meet.
 */
async function paced(ctx, c, streams, rate, n) {
  const run = runId();
  const lat = [];
  const stamps = [];
  const total = streams * n;
  let first = 0;
  let allFirst;
  let allRead;
  const opened = new Promise((r) => (allFirst = r));
  const read = new Promise((r) => (allRead = r));
  const port = c.port ?? ctx.upstreamPort;
  const done = Promise.all(Array.from({ length: streams }, () => streamOnce(port, `bench:${run}:hold:${n}`,
    { lat, stamps, onFirst: () => ++first === streams && allFirst(), onStamp: () => lat.length === total && allRead() })));
  done.catch(() => undefined);
  await withTimeout(Promise.race([opened, done]), 300_000, `${c.name}: opening ${streams} streams`);
  await sleep(200);
  const s0 = c.child ? await c.child.stats(PACED_SETTLE) : undefined;
  const l0 = load1();
  const written = ctx.upstream.wait((m) => m.paced === run);
  const client0 = process.cpuUsage();
  ctx.upstream.proc.send({ go: true, run, rate });
  await withTimeout(Promise.race([read, done]), 600_000, c.name);
  const client = process.cpuUsage(client0);
  const s1 = c.child ? await c.child.stats() : undefined;
  const up = await written;
  await ctx.upstream.ask({ finish: true, run }, (m) => m.finished === run);
  const got = await withTimeout(done, 600_000, c.name);
  const events = streams * (n + PRELUDE + TAIL);
  if (got.reduce((a, b) => a + b, 0) !== events) throw new Error(`${c.name}: ${got.reduce((a, b) => a + b, 0)} of ${events} events`);
  if (lat.length !== total || up.written !== total) throw new Error(`${c.name}: ${lat.length} of ${total} stamps read, ${up.written} written`);
  const sorted = Float64Array.from(lat).sort();
  const p99 = pct(sorted, 0.99);
  if (PACED_BY_SECOND && streams > 1) process.stderr.write(`\n  ${c.name}: p99 ${p99.toFixed(2)} ms; by second of the window: ${p99BySecond(lat, stamps).join(', ')}\n`);
  const cpu = s0 ? cpuSec(s0, s1) : undefined;
  return { streams, rate, deltas: total, deltasPerSec: total / (up.ms / 1000), p50: pct(sorted, 0.5), p99, max: sorted[sorted.length - 1],
    tailInGc: s1 ? tailInPauses(lat, stamps, p99, s1.pauses) : undefined,
    cpuUsPerEvent: cpu === undefined ? undefined : (cpu * 1e6) / total,
    userUsPerEvent: s0 ? (s1.cpu.user - s0.cpu.user) / total : undefined, sysUsPerEvent: s0 ? (s1.cpu.system - s0.cpu.system) / total : undefined, clientUsPerDelta: (client.user + client.system) / total, upstreamUsPerDelta: up.cpuUs / total,
    loopP99: s1?.loopP99, loopMax: s1?.loopMax, gcMax: s1?.gcMax, gcTotal: s1?.gcTotal, load: (l0 + load1()) / 2 };
}

/** The p99 of the deltas written in each second of the window, in ms. */
function p99BySecond(lat, stamps) {
  let t0 = Infinity;
  for (const t of stamps) t0 = Math.min(t0, t);
  const seconds = [];
  for (let i = 0; i < lat.length; i++) (seconds[Math.floor((stamps[i] - t0) / 1000)] ??= []).push(lat[i]);
  return seconds.filter(Boolean).map((xs) => pct(Float64Array.from(xs).sort(), 0.99).toFixed(2));
}

/**
 * The share of the deltas at or above `p99` that were in flight (written, not yet read) while the proxy was paused
 * by its GC: how much of the paced tail the collector explains. `pauses`: [start, end] pairs on the stamps' clock,
 * in the order they ended.
 */
function tailInPauses(lat, stamps, p99, pauses) {
  const starts = [];
  for (let i = 0; i < pauses.length; i += 2) starts.push([pauses[i], pauses[i + 1]]);
  starts.sort((a, b) => a[0] - b[0]);
  let tail = 0;
  let hit = 0;
  for (let i = 0; i < lat.length; i++) {
    if (lat[i] < p99) continue;
    tail++;
    const from = stamps[i];
    const to = from + lat[i];
    // The last pause that started before the delta was read.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid][0] < to) lo = mid + 1;
      else hi = mid;
    }
    // Pauses follow one another: if the last one to start before the read ended before the write, so did the rest.
    if (lo > 0 && starts[lo - 1][1] > from) hit++;
  }
  return tail === 0 ? undefined : hit / tail;
}

/**
 * Memory: the proxy's RSS and heap (after a full GC) with `streams` streams open and idle, minus before they opened.
 * RSS is taken once the process has been idle IDLE_SETTLE_MS since a full GC, before the streams open and with them
 * open: V8 sizes the young generation by the allocation rate since the last GC (the opening of 1,000 streams grows
 * it, up to its 32 MB, empty after the GC) and gives it back on the first GC after ~5 s of little allocation. That
 * is the process's, not the streams': the idle steady state is what is compared (docs/performance.md, the gateway).
 * `rssEarlyKB` and `youngKB` are the figures 0.5 s after the last stream opened (as measured before 2026-12-02).
 */
async function idle(ctx, c, streams) {
  const run = runId();
  const snap = (when) => (HEAP_SNAPSHOTS ? c.child.ask({ snapshot: join(HEAP_SNAPSHOTS, `${c.kind}-${when}.heapsnapshot`) }, (m) => m.snapshot) : undefined);
  await snap('before');
  await c.child.stats(true);
  await sleep(IDLE_SETTLE_MS);
  const s0 = await c.child.stats(true);
  let first = 0;
  let allFirst;
  const opened = new Promise((r) => (allFirst = r));
  const done = Promise.all(Array.from({ length: streams }, () => streamOnce(c.port, `bench:${run}:hold:20`, { onFirst: () => ++first === streams && allFirst() })));
  done.catch(() => undefined);
  await withTimeout(Promise.race([opened, done]), 300_000, `${c.name}: opening ${streams} streams`);
  await sleep(500);
  const s1 = await c.child.stats(true);
  await sleep(IDLE_SETTLE_MS);
  const s2 = await c.child.stats(true);
  const l = load1();
  const written = await snap(`${streams}-idle`);
  if (written) process.stderr.write(`(heap snapshots: ${written} and its -before) `);
  await ctx.upstream.ask({ finish: true, run }, (m) => m.finished === run);
  await withTimeout(done, 300_000, c.name);
  const per = (after, before, key) => (after[key] - before[key]) / 1024 / streams;
  return { streams, rssKB: per(s2, s0, 'rss'), heapKB: per(s2, s0, 'heap'), rssEarlyKB: per(s1, s0, 'rss'), youngKB: per(s1, s0, 'young'), settleMs: IDLE_SETTLE_MS, load: l };
}

/** Each numeric field the median over the runs (and `runs`: how many). */
function medianRow(rows) {
  if (!rows.length) return undefined;
  const out = { ...rows[0], runs: rows.length };
  for (const key of Object.keys(rows[0])) if (typeof rows[0][key] === 'number') out[key] = median(rows.map((r) => r[key]).filter((v) => v !== undefined));
  return out;
}

function table(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => (i < 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w, i) => (i < 1 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const r of body) console.log(line(r));
}
const fmt = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
const k = (x) => (x === undefined || Number.isNaN(x) ? '—' : x >= 1000 ? `${(x / 1000).toFixed(1)}k` : x.toFixed(0));

async function main() {
  const STREAMS = Number(opt('--streams', 10));
  // Bulk is the full run's in --quick too (a few seconds in all: --quick's paced rounds are shorter): one
  // round of 500 deltas measured a proxy's first 7,000 events, the JIT still compiling (docs/performance.md, the
  // twenty-first round). The process's first round is kept and printed as such (not a target).
  const EVENTS = Number(opt('--events', 2000));
  const WARM_EVENTS = Math.min(EVENTS, 200); // per stream in the warm-up round (each proxy's first, printed as cold)
  // Five rounds: one of 10 × 2,000 deltas is 0.1 s of the gateway's CPU, and within a run they swung 153-253k events
  // per core (the SDK proxy's 55-87k); the median of three fell under the 2x line in 3 of 16 runs (the twenty-first
  // round). Rounds of 5,000 after the paced section were no steadier (the twenty-second).
  const ROUNDS = Number(opt('--rounds', 5));
  const MANY = Number(opt('--many', 1000));
  const RATE1 = Number(opt('--rate1', 200)); // deltas/s of the one paced stream
  const RATE = Number(opt('--rate', 10)); // deltas/s of each of the --many paced streams
  const SECONDS = Number(opt('--paced-seconds', QUICK ? 2 : 5)); // paced run length (longer: a window to profile)
  const PROFILE = opt('--profile');
  const ONLY = opt('--only')?.split(',');
  const SECTIONS = opt('--sections', 'bulk,paced,idle').split(',');
  // Three rounds in --quick too, each shorter: one 2 s round's CPU per delta swung ±25% run to run (the gateway
  // 46-59 µs, the byte proxy 28-39 in six runs), the median of three holds still (the twenty-first round).
  const PACED_ROUNDS = Number(opt('--paced-rounds', 3));
  const OUT = opt('--json', 'bench-gateway.json');
  const results = { date: new Date().toISOString(), machine: { cpu: cpus()[0]?.model ?? '?', cores: cpus().length, node: process.version }, quick: QUICK, proxyFlags: V8_FLAGS,
    params: { streams: STREAMS, events: EVENTS, rounds: ROUNDS, many: MANY, rate1: RATE1, rate: RATE, seconds: SECONDS }, load: { start: loadavg() }, contenders: [], targets: [] };

  const upstream = child('upstream');
  const { port: upstreamPort } = await upstream.wait((m) => m.port);
  const upstreamURL = `http://127.0.0.1:${upstreamPort}/v1`;
  const ctx = { upstream, upstreamPort };
  const redis = await startRedis();
  const defs = [
    { name: 'gateway, in-memory log', kind: 'gateway-memory' },
    { name: 'gateway, Redis log', kind: 'gateway-redis', skip: redis.missing && `skipped: no redis-server (${redis.missing}); set REDIS_SERVER` },
    { name: 'byte proxy (node:http pipe)', kind: 'byte' },
    { name: 'event proxy (handwritten: parse, re-frame)', kind: 'events' },
    { name: 'openai SDK proxy (re-encoded SSE)', kind: 'sdk' },
  ].filter((d) => !ONLY || ONLY.some((o) => d.kind.includes(o)));
  // --dists a=<dist>,b=<dist>: the in-memory gateway once per build, side by side in this run (an A/B; swap the
  // order between runs: the first one is the one the targets read)
  // (--dists-of gateway-redis: the Redis-log gateway instead, each build with its own keys in the one redis-server)
  if (opt('--dists')) {
    const kind = opt('--dists-of', 'gateway-memory');
    const at = defs.findIndex((d) => d.kind === kind);
    const label = kind === 'gateway-redis' ? 'Redis log' : 'in-memory log';
    const builds = opt('--dists').split(',').map((x) => x.split('='));
    defs.splice(at < 0 ? 0 : at, at < 0 ? 0 : 1, ...builds.map(([n, dir]) => ({ name: `gateway, ${label} (${n})`, kind, dist: dir })));
  }
  const contenders = [];
  const direct = { name: 'direct (no proxy)', rows: {} };
  try {
    for (const d of defs) {
      const c = { ...d, rows: { bulk: [] } };
      contenders.push(c);
      if (c.skip) continue;
      const profDir = PROFILE && d.kind.includes(PROFILE) ? mkdtempSync(join(tmpdir(), 'gateway-prof-')) : undefined;
      c.profDir = profDir;
      c.child = child('proxy', ['--kind', d.kind, '--upstream', upstreamURL, ...(d.kind === 'gateway-redis' ? ['--redis', redis.url] : []), ...(d.dist ? ['--dist', d.dist] : [])], [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir, ...(opt('--profile-interval') ? ['--cpu-prof-interval', opt('--profile-interval')] : [])] : []), ...V8_FLAGS, ...(opt('--proxy-flags')?.split(' ').filter(Boolean) ?? [])]);
      c.port = (await c.child.wait((m) => m.port)).port;
      if (d.kind === 'gateway-redis') c.redis = redis;
    }
    const live = () => contenders.filter((c) => !c.skip && !c.error);
    const attempt = async (c, f) => {
      try {
        return await f();
      } catch (e) {
        c.error = e.message;
        process.stderr.write(`\n  ${c.name}: FAILED: ${e.message}\n`);
        return undefined;
      }
    };
    // warm-up (and a check that every contender delivers every event), then bulk rounds, round-robin
    process.stderr.write(`bulk: ${STREAMS} streams × ${EVENTS} deltas, ${ROUNDS} round(s) `);
    for (const c of live()) c.rows.first = await attempt(c, () => bulk(ctx, c, STREAMS, WARM_EVENTS));
    for (let r = 0; r < (SECTIONS.includes('bulk') ? ROUNDS : 0); r++) {
      for (const c of live()) {
        const row = await attempt(c, () => bulk(ctx, c, STREAMS, EVENTS));
        if (row) c.rows.bulk.push(row);
      }
      process.stderr.write('.');
    }
    process.stderr.write('\n');
    // paced rounds, round-robin with the direct baseline (each figure the median over rounds), then idle memory
    const pacedRuns = new Map();
    for (let r = 0; r < (SECTIONS.includes('paced') ? PACED_ROUNDS : 0); r++) {
      for (const c of [direct, ...live()]) {
        process.stderr.write(`paced round ${r + 1}/${PACED_ROUNDS}: ${c.name}… `);
        const runsOf = pacedRuns.get(c) ?? pacedRuns.set(c, { one: [], many: [] }).get(c);
        const one = await attempt(c, () => paced(ctx, c, 1, RATE1, RATE1 * SECONDS));
        const many = await attempt(c, () => paced(ctx, c, MANY, RATE, RATE * SECONDS));
        if (one) runsOf.one.push(one);
        if (many) runsOf.many.push(many);
        process.stderr.write('done\n');
      }
    }
    for (const [c, { one, many }] of pacedRuns) {
      c.rows.one = medianRow(one);
      c.rows.many = medianRow(many);
    }
    for (const c of live()) {
      if (!SECTIONS.includes('idle')) break;
      process.stderr.write(`idle: ${c.name}… `);
      c.rows.idle = await attempt(c, () => idle(ctx, c, MANY));
      process.stderr.write('done\n');
    }
    contenders.unshift(direct);
  } finally {
    for (const c of contenders) await c.child?.stop().catch(() => undefined);
    await upstream.stop().catch(() => undefined);
    await redis.stop?.();
  }

  // ---- tables ----
  const mid = (c) => {
    const rows = c.rows?.bulk ?? [];
    if (!rows.length) return undefined;
    const pick = (key) => median(rows.map((r) => r[key]));
    return { upstreamConnections: pick('upstreamConnections'), perCore: pick('perCore'), wallPerSec: pick('wallPerSec'), cpu: pick('cpu'), upstreamCpu: pick('upstreamCpu'), redisCpu: rows[0].redisCpu === undefined ? undefined : pick('redisCpu'), load: pick('load'), events: rows[0].events };
  };
  const status = (c) => c.skip ?? (c.error ? `FAILED: ${c.error.slice(0, 100)}` : undefined);
  console.log(`\n# Gateway vs proxies — ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}; load average at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}; every proxy with ${V8_FLAGS.length ? V8_FLAGS.join(' ') : "Node's default young generation and memory reducer"}`);
  if (SECTIONS.includes('bulk')) console.log(`\n## Throughput — ${STREAMS} concurrent streams × ${EVENTS + PRELUDE + TAIL} events, upstream as fast as the sockets take it; median of ${ROUNDS} round(s)`);
  if (SECTIONS.includes('bulk')) table(['contender', 'events/s per core', 'x byte proxy', 'proxy CPU s', 'events/s (wall)', 'upstream CPU s', 'redis CPU s', `new upstream conns / ${STREAMS} streams`, 'load'],
    contenders.filter((c) => c.rows.bulk).map((c) => {
      const m = mid(c);
      const byte = mid(contenders.find((x) => x.kind === 'byte') ?? {});
      if (!m) return [c.name, status(c) ?? '—', '', '', '', '', '', '', ''];
      return [c.name, k(m.perCore), byte ? fmt(m.perCore / byte.perCore, 2) : '—', fmt(m.cpu, 2), k(m.wallPerSec), fmt(m.upstreamCpu, 2), fmt(m.redisCpu, 2), String(m.upstreamConnections), fmt(m.load, 1)];
    }));
  if (SECTIONS.includes('bulk')) {
    const byteFirst = contenders.find((x) => x.kind === 'byte')?.rows.first;
    const firsts = contenders.filter((c) => c.rows.first).map((c) => `${c.name} ${k(c.rows.first.perCore)}${byteFirst ? ` (${fmt(c.rows.first.perCore / byteFirst.perCore, 2)}x)` : ''}`);
    if (firsts.length) console.log(`\nEach proxy's first round, cold (its first ${STREAMS * (WARM_EVENTS + PRELUDE + TAIL)} events, the JIT compiling; not a target), events/s per core (x byte proxy): ${firsts.join('; ')}`);
  }
  if (SECTIONS.includes('paced')) console.log(`\n## Latency — upstream write → client read, per delta, ms; paced: 1 stream at ${RATE1}/s, ${MANY} streams at ${RATE}/s each, ${SECONDS} s; median of ${PACED_ROUNDS} round(s); added = contender − direct (indicative)`);
  const dr = { one: direct.rows.one, many: direct.rows.many };
  if (SECTIONS.includes('paced')) table(['contender', 'streams', 'deltas/s', 'p50', 'p99', 'max', 'added p50', 'added p99', 'proxy CPU µs/delta', 'user / sys', 'events/s per core', 'clients / upstream CPU µs/delta', 'proxy loop delay p99/max', 'longest GC / GC total ms', 'deltas ≥ p99 in a GC pause', 'load'],
    contenders.flatMap((c) => (c.skip ? [[c.name, c.skip, '', '', '', '', '', '', '', '', '', '', '', '', '', '']] : ['one', 'many'].map((key) => {
      const r = c.rows[key];
      if (!r) return [c.name, status(c) ?? '—', '', '', '', '', '', '', '', '', '', '', '', '', '', ''];
      const d = dr[key];
      const add = c === direct ? undefined : { p50: r.p50 - (d?.p50 ?? NaN), p99: r.p99 - (d?.p99 ?? NaN) };
      r.addedP50 = add?.p50;
      r.addedP99 = add?.p99;
      return [c.name, r.streams, k(r.deltasPerSec), fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.max, 1), fmt(add?.p50, 2), fmt(add?.p99, 2), fmt(r.cpuUsPerEvent, 1), r.userUsPerEvent === undefined ? '—' : `${fmt(r.userUsPerEvent, 1)} / ${fmt(r.sysUsPerEvent, 1)}`, r.cpuUsPerEvent ? k(1e6 / r.cpuUsPerEvent) : '—',
        `${fmt(r.clientUsPerDelta, 1)} / ${fmt(r.upstreamUsPerDelta, 1)}`,
        r.loopMax === undefined ? '—' : `${fmt(r.loopP99, 1)} / ${fmt(r.loopMax, 1)}`, r.gcMax === undefined ? '—' : `${fmt(r.gcMax, 1)} / ${fmt(r.gcTotal, 0)}`, r.tailInGc === undefined ? '—' : `${fmt(100 * r.tailInGc, 0)}%`, fmt(r.load, 1)];
    }))));
  if (SECTIONS.includes('idle')) console.log(`\n## Memory per open stream — ${MANY} streams open and idle (after the first events), proxy process after a full GC`);
  if (SECTIONS.includes('idle')) table(['contender', `RSS KB/stream (idle ${IDLE_SETTLE_MS / 1000} s)`, 'heap KB/stream', 'RSS KB/stream 0.5 s after opening', 'of which young generation', 'load'],
    contenders.filter((c) => c !== direct).map((c) => (c.rows.idle ? [c.name, fmt(c.rows.idle.rssKB), fmt(c.rows.idle.heapKB), fmt(c.rows.idle.rssEarlyKB), fmt(c.rows.idle.youngKB), fmt(c.rows.idle.load, 1)] : [c.name, status(c) ?? '—', '', '', '', ''])));

  // ---- targets (issue 28): ratios of contenders measured side by side in this run ----
  // The paced CPU targets name their log; the others are the in-memory log's. A target whose figures are missing
  // (a contender skipped or not selected, a section not run) or not measurable here is n/a: printed, not a miss.
  const gw = contenders.find((c) => c.kind === 'gateway-memory');
  const gwr = contenders.find((c) => c.kind === 'gateway-redis');
  const byte = contenders.find((c) => c.kind === 'byte');
  const sdk = contenders.find((c) => c.kind === 'sdk');
  const [g, b, s] = [gw, byte, sdk].map((c) => (c ? mid(c) : undefined));
  const add = (target, value, holds) => results.targets.push({ target, value, holds });
  // paced, --many streams × --rate deltas/s: the proxy's CPU per delta against the byte and SDK proxies'
  const us = (c) => c?.rows.many?.cpuUsPerEvent;
  const cpuRatio = (who, whoName, other, otherName, max) => {
    const [x, y] = [us(who), us(other)];
    add(`paced (${MANY} streams × ${RATE}/s): ${whoName} CPU per delta ≤ ${max}x the ${otherName}'s`,
      x && y ? `${fmt(x / y, 2)}x (${fmt(x, 1)} vs ${fmt(y, 1)} µs/delta)` : undefined, x && y ? x <= max * y : undefined);
  };
  cpuRatio(gw, 'gateway (in-memory log)', byte, 'byte proxy', 1.5);
  cpuRatio(gw, 'gateway (in-memory log)', sdk, 'SDK proxy', 0.6);
  cpuRatio(gwr, 'gateway (Redis log)', byte, 'byte proxy', 2);
  // The proxy's whole p99 (upstream write → client read: an upper bound of what it adds) against the direct path's
  // (same upstream and clients, no proxy); when the direct p99 alone is ≥ 5 ms the machine is starved: n/a.
  const gm = gw?.rows.many;
  const dm = direct.rows.many;
  const lat = gm && dm ? `${fmt(gm.p99, 2)} ms (direct ${fmt(dm.p99, 2)} ms; gateway loop delay max ${fmt(gm.loopMax, 0)} ms; load ${fmt(gm.load, 1)})` : undefined;
  add(`paced (${MANY} streams × ${RATE}/s): gateway (in-memory log) p99 ≤ 5 ms + the direct path's p99`,
    PACED_SETTLE ? `${lat} — n/a: --paced-settle (a lens)` : dm && dm.p99 >= 5 ? `${lat} — n/a: the direct path's p99 is ≥ 5 ms` : lat,
    gm && dm && dm.p99 < 5 && !PACED_SETTLE ? gm.p99 <= 5 + dm.p99 : undefined);
  // bulk: events per CPU-second of the proxy process
  add('bulk: gateway (in-memory log) ≥ 50% of the byte proxy\'s events per CPU-second', g && b ? `${fmt((100 * g.perCore) / b.perCore, 0)}% (${k(g.perCore)} vs ${k(b.perCore)})` : undefined, g && b ? g.perCore >= 0.5 * b.perCore : undefined);
  add('bulk: gateway (in-memory log) ≥ 2x the SDK proxy\'s events per CPU-second', g && s ? `${fmt(g.perCore / s.perCore, 2)}x (${k(g.perCore)} vs ${k(s.perCore)})` : undefined, g && s ? g.perCore >= 2 * s.perCore : undefined);
  // idle: RSS per open stream, --many streams open
  const gi = gw?.rows.idle;
  // Idle runs in the process that ran bulk and paced (a long-running proxy's state, as the issue's figures were
  // taken): the streams may fill pages those sections freed but the process kept, so RSS can grow less than the
  // heap (a full run: −19 KB of RSS per stream with +63 KB of heap). Then the heap's growth, resident too, is a
  // lower bound: over the limit, the target is missed; under it, n/a.
  // (A fresh process instead measured 169 KB, its young generation growing to its full size meanwhile.)
  const rssHeld = gi && gi.rssKB < gi.heapKB;
  add(`idle (${MANY} streams open): gateway (in-memory log) ≤ 35 KB RSS per open stream`,
    gi ? `${fmt(gi.rssKB)} KB (heap ${fmt(gi.heapKB)} KB; load ${fmt(gi.load, 1)})${rssHeld ? ` — RSS grew less than the heap: ≥ ${fmt(gi.heapKB)} KB` : ''}` : undefined,
    gi ? (rssHeld ? (gi.heapKB > 35 ? false : undefined) : gi.rssKB <= 35) : undefined);
  console.log('\n## Targets');
  table(['target', 'measured', 'holds'], results.targets.map((t) => [t.target, t.value ?? '—', t.holds === undefined ? 'n/a' : t.holds ? 'yes' : 'NO']));
  // Not a target: where the least a proxy that reads the events must do stands against the byte proxy, in this run.
  const events = contenders.find((c) => c.kind === 'events');
  const [fe, fb, fg] = [us(events), us(byte), us(gw)];
  if (fe && fb) {
    results.floor = { eventsVsByte: fe / fb, gatewayVsEvents: fg === undefined ? undefined : fg / fe };
    console.log(`\nThe handwritten event proxy's paced CPU per delta is ${fmt(fe / fb, 2)}x the byte proxy's (${fmt(fe, 1)} vs ${fmt(fb, 1)} µs)${fg ? `; the gateway's (in-memory log) is ${fmt(fg / fe, 2)}x the event proxy's` : ''}: an indication of the floor of any proxy that parses the events, not a target.`);
  }
  // The same in bulk, against the SDK proxy's line: where a proxy that parses every event and writes it again, and
  // nothing more, stands (the gateway does that and masks, records and checks ownership besides).
  const [be, bs, bg] = [mid(events ?? {}), mid(sdk ?? {}), mid(gw ?? {})].map((m) => m?.perCore);
  if (be && bs) {
    results.bulkFloor = { eventsVsSdk: be / bs, gatewayVsEvents: bg === undefined ? undefined : bg / be };
    console.log(`\nThe handwritten event proxy's bulk events per CPU-second are ${fmt(be / bs, 2)}x the SDK proxy's (${k(be)} vs ${k(bs)})${bg ? `; the gateway's (in-memory log) are ${fmt(bg / be, 2)}x the event proxy's` : ''}: the same indication for the bulk lines, not a target.`);
  }

  for (const c of contenders) {
    results.contenders.push({ name: c.name, kind: c.kind ?? 'direct', status: status(c) ?? 'ok', bulk: c.rows.bulk, bulkFirstRound: c.rows.first, bulkMedian: c.rows.bulk ? mid(c) : undefined, paced1: c.rows.one, pacedMany: c.rows.many, idle: c.rows.idle });
    if (c.profDir) {
      const files = readdirSync(c.profDir).filter((f) => f.endsWith('.cpuprofile'));
      for (const f of files) console.log(`\ncpu profile of ${c.name}: ${join(c.profDir, f)}  (node bench/profile.mjs ${join(c.profDir, f)} 30)`);
    }
  }
  results.load.end = loadavg();
  writeFileSync(OUT, JSON.stringify(results, null, 2));
  console.log(`\n(wrote ${OUT})`);
  const missed = results.targets.filter((t) => t.holds === false);
  const failedRuns = contenders.filter((c) => c.error);
  if (flag('--check')) {
    if (missed.length || failedRuns.length) {
      console.error(`\n--check: ${missed.length} gateway target(s) missed${failedRuns.length ? `, ${failedRuns.length} contender(s) failed` : ''}:\n  ${[...missed.map((t) => `${t.target}: ${t.value}`), ...failedRuns.map((c) => `${c.name}: ${c.error}`)].join('\n  ')}`);
      process.exit(1);
    }
    console.log(`--check: every measured gateway target holds (${results.targets.filter((t) => t.holds).length}; n/a: ${results.targets.filter((t) => t.holds === undefined).length})`);
  }
}

const role = opt('--role');
const run = role === 'upstream' ? upstreamRole : role === 'proxy' ? proxyRole : main;
run().catch((e) => {
  console.error(e);
  process.exit(1);
});
