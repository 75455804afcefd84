// A handler on a loopback socket for the handler's tests, and requests to it that keep no connection open.
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly text: string;
}

export interface Served {
  readonly url: string;
  send(method: string, path: string, headers?: Record<string, string>, body?: string | Uint8Array): Promise<Reply>;
  /** A request whose response is handed over as it starts (SSE, a long-poll to abandon). */
  open(path: string, headers?: Record<string, string>): Promise<IncomingMessage>;
  close(): Promise<void>;
}

export async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const open = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Uint8Array): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  return {
    url: `http://127.0.0.1:${port}`,
    async send(method, path, headers, body) {
      const res = await open(method, path, headers, body);
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const all = Buffer.concat(chunks as unknown as Uint8Array[]);
      return { status: res.statusCode ?? 0, headers: res.headers, body: all, text: all.toString('utf8') };
    },
    open: (path, headers) => open('GET', path, headers),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Reads a response until `until` appears in what came, or it ends; returns the text so far. */
export function readUntil(res: IncomingMessage, until?: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = (): void => {
      res.off('data', onData);
      resolve(text);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (until !== undefined && text.includes(until)) done();
    };
    res.on('data', onData);
    res.once('end', done);
    res.once('close', done);
  });
}
