// A streamed answer's pieces written as chunks of the gateway's own, straight to the socket: only where that is
// safe (a chunked HTTP/1.1 answer whose head went out, on its own socket, nothing of it waiting, `res.write` Node's
// or the access log's count), else through `res.write`. Real servers and sockets: what the client reads is checked.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { writeChunk, countsWrites } from '../../gateway/chunk-write';
import { closeServer, listen } from './helpers';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The gateway tests' server (helpers.ts `listen`, `closeServer`), by its port. */
async function serve(handler: Handler): Promise<{ port: number; close: () => Promise<void> }> {
  const server = await listen(handler);
  return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

/** What a client reads of one GET, its body de-chunked by Node's own parser. */
function get(port: number, path = '/'): Promise<{ headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (body += c));
      r.on('end', () => resolve({ headers: r.headers, body }));
      r.on('error', reject);
    }).on('error', reject);
  });
}

/** Everything the server sends back to `request`, byte for byte (latin1), until it closes the connection. */
async function rawExchange(port: number, request: string): Promise<string> {
  const sock = connect(port, '127.0.0.1');
  sock.write(request);
  let raw = '';
  sock.setEncoding('latin1');
  sock.on('data', (c: string) => (raw += c));
  await once(sock, 'end');
  return raw;
}

const TEXT = ['id: 1\nevent: a\ndata: {"x":"é"}\n\n', 'id: 2\nevent: b\ndata: {"y":"✓ 𝄞"}\n\n', 'x'.repeat(70_000)];

test('after the head went out, each piece is one chunk on the socket; the client reads the text exactly', async () => {
  const seen: string[] = [];
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    for (const t of TEXT) seen.push(writeChunk(res, t).drainOn === res.socket ? 'socket' : 'res');
    res.end();
  });
  try {
    const { headers, body } = await get(s.port);
    expect(headers['transfer-encoding']).toBe('chunked');
    expect(body).toBe(TEXT.join(''));
    expect(seen).toEqual(['socket', 'socket', 'socket']);
  } finally {
    await s.close();
  }
});

test('the bytes on the wire are well-formed chunks (size in hex of the UTF-8 bytes), ended by the last chunk', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200);
    res.flushHeaders();
    writeChunk(res, 'é✓');
    writeChunk(res, '');
    res.end();
  });
  try {
    const raw = await rawExchange(s.port, 'GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    expect(body).toBe(`5\r\n${Buffer.from('é✓').toString('latin1')}\r\n0\r\n\r\n`);
  } finally {
    await s.close();
  }
});

test('res.write takes the piece while the head has not gone out, or when res.write transforms (a compression middleware)', async () => {
  const seen: string[] = [];
  const s = await serve((req, res) => {
    res.writeHead(200);
    if (req.url === '/wrapped') {
      const write = res.write;
      res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
        return (write as (...a: unknown[]) => boolean).call(this, Buffer.from(String(chunk).toUpperCase()), ...rest);
      } as ServerResponse['write'];
      res.flushHeaders();
    }
    seen.push(writeChunk(res, 'abc').drainOn === res ? 'res' : 'socket');
    seen.push(writeChunk(res, 'def').drainOn === res ? 'res' : 'socket');
    res.end();
  });
  try {
    expect((await get(s.port)).body).toBe('abcdef');
    expect(seen).toEqual(['res', 'socket']);
    seen.length = 0;
    expect((await get(s.port, '/wrapped')).body).toBe('ABCDEF');
    expect(seen).toEqual(['res', 'res']);
  } finally {
    await s.close();
  }
});

test("an answer with a content-length is not chunked: res.write; the access log's count sees direct writes", async () => {
  let counted = 0;
  const s = await serve((req, res) => {
    if (req.url === '/length') {
      res.writeHead(200, { 'content-length': '6' });
      res.flushHeaders();
      expect(writeChunk(res, 'abc').drainOn).toBe(res);
      expect(writeChunk(res, 'def').drainOn).toBe(res);
      res.end();
      return;
    }
    res.writeHead(200);
    const write = res.write;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      counted += (chunk as Uint8Array).byteLength;
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    countsWrites(res, res.write, (n) => (counted += n));
    res.flushHeaders();
    expect(writeChunk(res, 'é').drainOn).toBe(res.socket);
    res.end();
  });
  try {
    expect((await get(s.port, '/length')).body).toBe('abcdef');
    expect((await get(s.port)).body).toBe('é');
    expect(counted).toBe(2);
  } finally {
    await s.close();
  }
});

test('a pipelined answer, queued behind the one on the socket, goes through res.write and arrives in order', async () => {
  const ways: string[] = [];
  let firstRes: ServerResponse | undefined;
  const s = await serve((req, res) => {
    res.writeHead(200);
    res.flushHeaders();
    if (req.url === '/first') {
      firstRes = res;
      writeChunk(res, 'one;');
      return;
    }
    // The second answer while the first still holds the socket: it has none of its own yet.
    ways.push(writeChunk(res, 'two;').drainOn === res ? 'res' : 'socket');
    res.end();
    ways.push(writeChunk(firstRes!, 'one-more;').drainOn === firstRes!.socket ? 'socket' : 'res');
    firstRes!.end();
  });
  try {
    const raw = await rawExchange(s.port, 'GET /first HTTP/1.1\r\nhost: x\r\n\r\nGET /second HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    const bodies = raw.split('HTTP/1.1 200 OK').slice(1).map((r) => r.slice(r.indexOf('\r\n\r\n') + 4));
    expect(bodies).toEqual(['4\r\none;\r\n9\r\none-more;\r\n0\r\n\r\n', '4\r\ntwo;\r\n0\r\n\r\n']);
    expect(ways).toEqual(['res', 'socket']);
  } finally {
    await s.close();
  }
});

test('a client that does not read: what waits in the socket is never overwritten by the next chunks; it reads every byte in order', async () => {
  // Pieces of distinct text, small enough to be encoded in the shared buffer, many more than the socket takes.
  const pieces = Array.from({ length: 240 }, (_, i) => `${String(i).padStart(4, '0')}${String.fromCharCode(97 + (i % 26)).repeat(20_000)}é\n`);
  let backedUp = false;
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    for (const p of pieces) if (!writeChunk(res, p).ok) backedUp = true;
    res.end();
  });
  try {
    const sock = connect(s.port, '127.0.0.1');
    sock.pause(); // nothing read until every piece was written
    sock.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    const parts: Buffer[] = [];
    sock.on('data', (c: Buffer) => parts.push(c));
    sock.resume();
    await once(sock, 'end');
    expect(backedUp).toBe(true);
    // De-chunked by hand: every chunk's size line is right, and the text is the pieces in order.
    const text = dechunk(Buffer.concat(parts as unknown as Uint8Array[]).toString('latin1'));
    expect(Buffer.from(text, 'latin1').toString('utf8')).toBe(pieces.join(''));
  } finally {
    await s.close();
  }
});

test('two answers, one to a client that does not read: what waits in its socket is never overwritten by chunks to the other', async () => {
  const pieces = (tag: string): string[] => Array.from({ length: 500 }, (_, i) => `${tag}${String(i).padStart(4, '0')}${String.fromCharCode(97 + (i % 26)).repeat(20_000)}\n`);
  const slow = pieces('S');
  const fast = pieces('F');
  const answers = new Map<string, ServerResponse>();
  let backedUp = false;
  const s = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    answers.set(req.url ?? '', res);
    if (answers.size < 2) return;
    // Both heads out: a piece to each in turn, the slow client's socket backing up while the fast one's drains.
    const [a, b] = [answers.get('/slow')!, answers.get('/fast')!];
    let i = 0;
    const next = (): void => {
      for (; i < slow.length; i++) {
        if (!writeChunk(a, slow[i]!).ok) backedUp = true;
        if (!writeChunk(b, fast[i]!).ok) {
          i++;
          b.socket!.once('drain', next);
          return;
        }
      }
      a.end();
      b.end();
    };
    next();
  });
  const read = async (paused: boolean): Promise<string> => {
    const sock = connect(s.port, '127.0.0.1');
    if (paused) sock.pause();
    sock.write(`GET /${paused ? 'slow' : 'fast'} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
    if (paused) await new Promise((r) => setTimeout(r, 600));
    const parts: Buffer[] = [];
    sock.on('data', (c: Buffer) => parts.push(c));
    sock.resume();
    await once(sock, 'end');
    return Buffer.concat(parts as unknown as Uint8Array[]).toString('latin1');
  };
  try {
    const slowText = read(true);
    await new Promise((r) => setTimeout(r, 50));
    const [rawSlow, rawFast] = await Promise.all([slowText, read(false)]);
    expect(backedUp).toBe(true);
    expect(dechunk(rawSlow)).toBe(slow.join(''));
    expect(dechunk(rawFast)).toBe(fast.join(''));
  } finally {
    await s.close();
  }
});

/** The body of a raw chunked answer, each chunk's size line and CRLF checked. */
function dechunk(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let text = '';
  for (let at = 0; ; ) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) break;
    text += body.slice(eol + 2, eol + 2 + size);
    expect(body.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    at = eol + 4 + size;
  }
  return text;
}
