// A peer that completes the opening handshake and then never answers the closing one (a frozen proxy, say):
// close() must still end the connection after `closeTimeoutMs`, or the process would be kept alive.
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { connectResponsesSocket } from '../../lib/ws/socket';

/** Accepts the WebSocket upgrade, then reads and ignores everything (close frames included). */
async function silentPeer(): Promise<{ server: Server; port: number; closed: Promise<void> }> {
  let onClosed!: () => void;
  const closed = new Promise<void>((r) => (onClosed = r));
  const server = createServer((socket: Socket) => {
    socket.once('data', (head) => {
      const key = /sec-websocket-key: *(\S+)/i.exec(head.toString('latin1'))?.[1] ?? '';
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      socket.on('data', () => undefined);
    });
    socket.on('close', onClosed);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port, closed };
}

test('close() against a peer that never answers the closing handshake ends the connection after closeTimeoutMs', async () => {
  const peer = await silentPeer();
  try {
    const socket = connectResponsesSocket({ url: `ws://127.0.0.1:${peer.port}/v1/responses`, apiKey: 'k', closeTimeoutMs: 150, heartbeatMs: 0 });
    const seen = lastValueFrom(socket.state$.pipe(toArray()));
    const events = lastValueFrom(socket.events$.pipe(toArray()));
    await firstValueFrom(socket.state$.pipe(filter((s) => s === 'open')));
    const t0 = Date.now();
    socket.close();
    await firstValueFrom(socket.state$.pipe(filter((s) => s === 'closed')));
    const waited = Date.now() - t0;
    // not before the timeout (the peer never answered), and the TCP connection is really gone
    expect(waited).toBeGreaterThanOrEqual(140);
    await peer.closed;
    expect(await events).toEqual([]);
    expect(await seen).toEqual(expect.arrayContaining(['open', 'closing', 'closed']));
  } finally {
    await new Promise<void>((r) => peer.server.close(() => r()));
  }
});
