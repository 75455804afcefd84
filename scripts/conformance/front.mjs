// A front for several servers: each request goes to the next one in turn, streamed both ways (SSE and long-polls
// included), so that a conformance run checks that any instance serves any stream (a write through one, the read
// through another, a long-poll woken by an append through the other).
import http from 'node:http';

/** Listens on a free loopback port: `{ url, stop }`; `targets` are base URLs (`http://127.0.0.1:PORT`). */
export async function startFront(targets) {
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]);
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that went away (an SSE reader done) ends its request upstream too.
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
