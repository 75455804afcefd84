// Loopback SSE server for the benchmark, run as a child process so that serving the bytes does not
// share the measured process's CPU. Paths: /w/<workload>/<generator args, comma-separated>/v1/{responses,chat/completions}.
// Prints `listening <port>` when ready. The bytes are those of bench/workloads.mjs, same seeds.
import { createServer } from 'node:http';
import { chunk, workload } from './workloads.mjs';

const cache = new Map();
function chunksOf(name, args) {
  const key = `${name}/${args}`;
  let c = cache.get(key);
  if (c === undefined) {
    const w = workload(name, args.split(',').filter(Boolean).map(Number));
    c = chunk(w.bytes, 7);
    cache.set(key, c);
  }
  return c;
}

const server = createServer(async (req, res) => {
  req.resume();
  const m = /^\/w\/([^/]+)\/([\d,]*)\/v1\/(responses|chat\/completions)$/.exec(req.url ?? '');
  if (req.method === 'GET' && req.url?.startsWith('/prepare')) {
    // /prepare?w=name/args;name/args  or  /prepare?load=1000
    const q = new URL(req.url, 'http://x').searchParams;
    const n = Number(q.get('load') ?? 0);
    for (let i = 0; i < n; i++) chunksOf(`load-${i}`, '');
    for (const s of (q.get('w') ?? '').split(';').filter(Boolean)) {
      const [name, args] = s.split('/');
      chunksOf(name, args);
    }
    res.end('ok');
    return;
  }
  if (req.method !== 'POST' || m === null) {
    res.writeHead(404).end();
    return;
  }
  const chunks = chunksOf(m[1], m[2]);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': 'req_bench' });
  for (const c of chunks) {
    if (!res.write(c)) await new Promise((resolve) => res.once('drain', resolve));
    if (res.destroyed) return;
  }
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
