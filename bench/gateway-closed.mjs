// The gateway's CPU per paced delta, closed loop, builds side by side (an A/B that the machine's load cannot tilt).
// Each variant is a proxy child with its own streams open; rounds drive each variant in turn for K deltas per stream,
// one delta in flight per stream (the upstream writes a stream's next delta when its client has read the previous
// one), so that every socket read holds one delta however starved the process is (a paced run's starved proxy reads
// several at once and its CPU per delta falls). Prints each child's user and system CPU per delta over its windows.
//   node --expose-gc bench/gateway-closed.mjs <rounds> <streams> <K> <variant>...
//     variant: a dist directory (its esm/gateway, in-memory log), `redis:<dist directory>` (the same gateway with a
//     Redis log: a redis-server of the run's own, REDIS_SERVER=/path/to/redis-server, shared by the Redis variants;
//     its CPU is not counted) or `byte` (node:http piping the upstream body)
//     PROF=<dir>: each child writes a CPU profile there (100 µs sampling; summarise with bench/profile.mjs)
//     PROF_WINDOWS=<dir>: the same, of the measured rounds only (no start-up, no warm-up)
import { fork, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import http from 'node:http';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
if (process.argv[2] === '--child') {
  const [, , , up, variant, redisURL] = process.argv;
  const d = variant.replace(/^redis:/, '');
  let handler;
  if (d === 'byte') {
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const base = new URL(up);
    const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);
    handler = (req, res) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
      if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
      const u = http.request({ host: base.hostname, port: base.port, path: req.url, method: req.method, headers, agent }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, Object.fromEntries(Object.entries(ur.headers).filter(([k]) => !HOP.has(k))));
        ur.pipe(res);
      });
      req.pipe(u);
    };
  } else {
    const { createGateway } = await import(pathToFileURL(resolve(d, 'esm/gateway/index.js')).href);
    handler = createGateway({ upstream: { baseURL: up }, log: variant.startsWith('redis:') ? redisURL : 'memory' });
  }
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // PROF_WINDOWS: profiled from the first measured round on, through the inspector (start-up left out).
  let session;
  const profDir = process.env.PROF_WINDOWS;
  const post = (method, params) => new Promise((ok, no) => session.post(method, params, (e, r) => (e ? no(e) : ok(r))));
  process.on('message', async (m) => {
    if (m === 'cpu') {
      if (profDir && session === undefined) {
        const { Session } = await import('node:inspector');
        session = new Session();
        session.connect();
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 100 });
        await post('Profiler.start');
      }
      process.send({ cpu: process.cpuUsage() });
    }
    if (m === 'exit') {
      if (session !== undefined) {
        const { profile } = await post('Profiler.stop');
        const { writeFileSync } = await import('node:fs');
        writeFileSync(resolve(profDir, `windows.${variant.replace(/[^a-z0-9]+/gi, '_')}.${process.pid}.cpuprofile`), JSON.stringify(profile));
      }
      process.exit(0);
    }
  });
  process.send({ port: server.address().port });
} else {
  const [R, S, K, ...variants] = process.argv.slice(2);
  const rounds = Number(R), streams = Number(S), per = Number(K);
  const sse = (e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  const chunk = (t) => `${Buffer.byteLength(t).toString(16)}\r\n${t}\r\n`;
  const resp = (id, status) => ({ id, object: 'response', created_at: 1764400000, status, background: false, error: null, model: 'gpt-5.4-nano', output: [], usage: null });
  const prelude = (id) => [
    { type: 'response.created', sequence_number: 0, response: resp(id, 'in_progress') },
    { type: 'response.in_progress', sequence_number: 1, response: resp(id, 'in_progress') },
    { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', sequence_number: 3, item_id: 'msg_bench', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
  ];
  const delta = (seq) => ({ type: 'response.output_text.delta', sequence_number: seq, item_id: 'msg_bench', output_index: 0, content_index: 0, delta: `~T${String(seq).padStart(16, '0')}~ `, logprobs: [], obfuscation: 'x4Rb' });
  const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n';
  const up = new Map(); // "v:i" -> upstream socket
  const server = createServer((sock) => {
    sock.setNoDelay(true);
    let buf = '';
    sock.on('data', (c) => {
      buf += c.toString('latin1');
      const m = /"input"\s*:\s*"closed:(\d+):(\d+)"/.exec(buf);
      if (!m || !buf.includes('}')) return;
      buf = '';
      up.set(`${m[1]}:${m[2]}`, sock);
      sock.write(HEAD + prelude(`resp_${m[1]}_${m[2]}`).map((e) => chunk(sse(e))).join(''));
    });
    sock.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const upURL = `http://127.0.0.1:${server.address().port}/v1`;
  let redis;
  if (variants.some((d) => d.startsWith('redis:'))) {
    const free = createServer().listen(0, '127.0.0.1');
    await once(free, 'listening');
    const port = free.address().port;
    free.close();
    redis = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--maxclients', '10000'], { stdio: ['ignore', 'ignore', 'inherit'] });
    for (let up = false; !up; ) {
      await new Promise((r) => setTimeout(r, 50));
      up = await new Promise((r) => connect(port, '127.0.0.1').on('connect', function () { this.destroy(); r(true); }).on('error', () => r(false)));
    }
    redis.url = `redis://127.0.0.1:${port}`;
  }
  const V = [];
  for (const [v, d] of variants.entries()) {
    const g = fork(new URL(import.meta.url).pathname, ['--child', upURL, d, ...(redis ? [redis.url] : [])], { execArgv: ['--expose-gc', ...(process.env.CHILD_FLAGS ? process.env.CHILD_FLAGS.split(' ') : []), ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF, '--cpu-prof-interval', '100'] : [])] });
    const [{ port }] = await once(g, 'message');
    const x = { v, name: d === 'byte' ? 'byte' : `${d.startsWith('redis:') ? 'redis:' : ''}${d.replace(/^redis:/, '').split('/').filter((p) => p && p !== 'dist').pop()}`, g, port, clients: [], user: 0, sys: 0, n: 0, runs: [] };
    x.cpu = async () => { g.send('cpu'); const [m] = await once(g, 'message'); return m.cpu; };
    V.push(x);
    let opened = 0, resolveOpen;
    const allOpen = new Promise((r) => (resolveOpen = r));
    for (let i = 0; i < streams; i++) {
      const body = JSON.stringify({ model: 'gpt-5.4-nano', input: `closed:${v}:${i}`, stream: true });
      const sock = connect(port, '127.0.0.1');
      sock.setNoDelay(true);
      const st = { key: `${v}:${i}`, sock, seen: 0, k: 0, left: 0, carry: '' };
      x.clients.push(st);
      sock.write(`POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nauthorization: Bearer sk-bench\r\nconnection: close\r\n\r\n${body}`);
      sock.on('data', (c) => {
        const t = st.carry + c.toString('latin1');
        let n = 0;
        for (let at = t.indexOf('data: '); at >= 0; at = t.indexOf('data: ', at + 6)) n++;
        st.carry = t.slice(-5);
        if (st.carry.includes('data')) st.carry = '';
        const before = st.seen;
        st.seen += n;
        if (before < 4 && st.seen >= 4) { if (++opened === streams) resolveOpen(); }
        if (before >= 4 && n > 0) { x.got += n; st.left -= n; if (st.left > 0) x.send(st); else if (--x.active === 0) x.resolve(); }
      });
      sock.on('error', () => undefined);
      await new Promise((r) => setTimeout(r, 1));
    }
    await allOpen;
    x.send = (st) => up.get(st.key).write(chunk(sse(delta(4 + st.k++))));
    x.drive = (k) => new Promise((resolve) => { x.got = 0; x.active = streams; x.resolve = resolve; for (const st of x.clients) { st.left = k; x.send(st); } });
  }
  for (const x of V) await x.drive(Math.max(5, per / 2)); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const x of (r % 2 ? [...V].reverse() : V)) {
      const c0 = await x.cpu();
      await x.drive(per);
      const c1 = await x.cpu();
      const u = c1.user - c0.user, s = c1.system - c0.system;
      x.user += u; x.sys += s; x.n += x.got; x.runs.push((u + s) / x.got);
    }
  }
  for (const x of V) {
    const runs = x.runs.map((v) => v.toFixed(1)).join(' ');
    console.log(`${x.name.padEnd(12)} user ${(x.user / x.n).toFixed(1)} sys ${(x.sys / x.n).toFixed(1)} total ${((x.user + x.sys) / x.n).toFixed(1)} µs/delta (${x.n} deltas; windows: ${runs})`);
  }
  await Promise.all(V.map((x) => { const e = once(x.g, 'exit'); x.g.send('exit'); return e; }));
  redis?.kill('SIGTERM');
  process.exit(0);
}
