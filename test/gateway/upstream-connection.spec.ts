// The gateway's own HTTP/1.1 client (gateway/upstream-connection.ts, behind nodeUpstream): TLS verified as node:https
// verifies, connections kept alive and reused, never kept past the upstream's close or in a process's way, and
// answers that are not HTTP/1.1 failing the request or its body instead of reaching the client.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { nodeUpstream } from '../../gateway/upstream-http';

const TLS = join(__dirname, '..', 'fixtures', 'tls');
const cert = readFileSync(join(TLS, 'localhost-cert.pem'));
const key = readFileSync(join(TLS, 'localhost-key.pem'));

const portOf = (s: Server): number => (s.address() as AddressInfo).port;
const listening = <S extends Server>(s: S): Promise<S> => new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
const closed = (s: Server): Promise<void> => new Promise((resolve) => s.close(() => resolve()));

interface RawServer {
  readonly server: Server;
  readonly connections: Socket[];
  readonly requests: string[];
  /** Closes every connection it took, then itself. */
  close(): Promise<void>;
}

/** A server that answers each request (its head read up to the blank line) with `answer(n)`, raw bytes. */
async function rawServer(answer: (n: number, socket: Socket) => string | undefined): Promise<RawServer> {
  const connections: Socket[] = [];
  const requests: string[] = [];
  const server = createNetServer((socket) => {
    connections.push(socket);
    let pending = '';
    socket.on('data', (b) => {
      pending += b.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        requests.push(pending.slice(0, end + 4 + length));
        pending = pending.slice(end + 4 + length);
        const out = answer(requests.length, socket);
        if (out !== undefined) socket.write(out, 'latin1');
      }
    });
    socket.on('error', () => undefined);
  });
  await listening(server);
  return {
    server,
    connections,
    requests,
    close: async () => {
      for (const c of connections) c.destroy();
      await closed(server);
    },
  };
}

const text = async (r: Response): Promise<string> => {
  const chunks: Uint8Array[] = [];
  const reader = r.body!.getReader();
  for (let x = await reader.read(); !x.done; x = await reader.read()) chunks.push(x.value);
  return Buffer.concat(chunks).toString('utf8');
};

describe('the gateway\'s upstream connections', () => {
  it('speaks TLS, verifying the upstream\'s certificate, and keeps the connection for the next request', async () => {
    let secured = 0;
    const server = createHttpsServer({ cert, key }, (req, res) => {
      req.resume();
      req.on('end', () => res.end(`hello ${req.method} ${req.url}`));
    });
    server.on('secureConnection', () => secured++);
    await listening(server);
    const trusting = nodeUpstream({ tls: { ca: cert } });
    const other = nodeUpstream();
    try {
      for (const path of ['/v1/a', '/v1/b?x=1']) {
        const answer = await trusting.request(`https://localhost:${portOf(server)}${path}`, { method: 'POST', body: '{}' }, []);
        expect(answer.status).toBe(200);
        expect(await text(answer)).toBe(`hello POST ${path}`);
      }
      expect(secured).toBe(1);
      // The same server, not trusted: refused before any request is sent.
      const refused = await other.request(`https://localhost:${portOf(server)}/v1/a`, { method: 'GET' }, []).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TypeError);
      expect((refused as Error).message).toBe('fetch failed');
      expect(((refused as Error).cause as { code?: string }).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
    } finally {
      trusting.close();
      other.close();
      server.closeAllConnections();
      await closed(server);
    }
  });

  it('sends each header once, reads an answer after a 100 Continue, with chunk extensions and trailers, then reuses the connection', async () => {
    const up = await rawServer((n) =>
      n === 1
        ? 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Done: yes\r\n\r\n'
        : 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond',
    );
    const upstream = nodeUpstream();
    try {
      // A length or an encoding given in another case is one header still: the body's length, identity.
      const headers = { 'x-k': 'v', 'Content-Length': '999', 'ACCEPT-ENCODING': 'gzip' };
      const first = await upstream.request(`http://127.0.0.1:${portOf(up.server)}/one`, { method: 'POST', body: 'abc', headers }, []);
      expect(await text(first)).toBe('hello world');
      const second = await upstream.request(`http://127.0.0.1:${portOf(up.server)}/two`, { method: 'GET' }, []);
      expect(await text(second)).toBe('second');
      expect(up.connections).toHaveLength(1);
      expect(up.requests[0]).toBe(`POST /one HTTP/1.1\r\nx-k: v\r\ncontent-length: 3\r\naccept-encoding: identity\r\nHost: 127.0.0.1:${portOf(up.server)}\r\n\r\nabc`);
    } finally {
      upstream.close();
      await up.close();
    }
  });

  it('opens a new connection when the kept one was closed by the upstream, and keeps none open for the process', async () => {
    // (Node's own count of what keeps it alive: in Node since 17.3, not in the typings this project pins.)
    const active = (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo.bind(process);
    const sockets = (): number => active().filter((r) => r === 'TCPSocketWrap').length;
    let during = -1;
    const up = await rawServer((_n, socket) => {
      // While the request waits for its answer, its connection keeps the process alive.
      during = sockets();
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), 10);
      return undefined;
    });
    const upstream = nodeUpstream();
    try {
      expect(await text(await upstream.request(`http://127.0.0.1:${portOf(up.server)}/a`, { method: 'GET' }, []))).toBe('ok');
      // Kept for the next request, but unreferenced: an idle connection keeps no process alive.
      expect(sockets()).toBe(during - 1);
      up.connections[0]!.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(await text(await upstream.request(`http://127.0.0.1:${portOf(up.server)}/b`, { method: 'GET' }, []))).toBe('ok');
      expect(up.connections).toHaveLength(2);
    } finally {
      upstream.close();
      await up.close();
    }
  });

  it('fails a request whose answer is not HTTP/1.1, and a body that breaks off or turns to garbage', async () => {
    const up = await rawServer((n, socket) => {
      if (n === 1) return 'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n';
      if (n === 2) return 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nnot a size\r\n';
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut short');
      return undefined;
    });
    const upstream = nodeUpstream();
    const url = `http://127.0.0.1:${portOf(up.server)}/x`;
    try {
      const refused = await upstream.request(url, { method: 'GET' }, []).catch((e: unknown) => e);
      expect((refused as Error).message).toBe('fetch failed');
      expect(String(((refused as Error).cause as Error).message)).toMatch(/invalid upstream response: a header line/);
      for (const expected of [/invalid upstream response: a chunk size/, /closed before the body ended/]) {
        const answer = await upstream.request(url, { method: 'GET' }, []);
        const failed = await text(answer).catch((e: unknown) => e);
        expect(failed).toBeInstanceOf(Error);
        expect(`${(failed as Error).message} ${String(((failed as Error).cause as Error | undefined)?.message)}`).toMatch(expected);
      }
      expect(up.connections).toHaveLength(3);
    } finally {
      upstream.close();
      await up.close();
    }
  });

  it('refuses a header that would write a request of its own, before connecting', async () => {
    const up = await rawServer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    const upstream = nodeUpstream();
    try {
      const refused = await upstream.request(`http://127.0.0.1:${portOf(up.server)}/x`, { method: 'GET', headers: { 'x-a': 'v\r\nGET /admin HTTP/1.1' } }, []).catch((e: unknown) => e);
      expect((refused as Error).name).toBe('TypeError');
      expect((refused as { code?: string }).code).toBe('ERR_INVALID_CHAR');
      await new Promise((r) => setTimeout(r, 20));
      expect(up.connections).toHaveLength(0);
    } finally {
      upstream.close();
      await up.close();
    }
  });
});
