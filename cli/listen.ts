// A command's HTTP server: listening (a refused port said as the user can act on it), and stopped with every
// connection ended (live readers would otherwise hold it open).
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CLIError } from './args.js';

export interface Listening {
  /** The port bound (the one asked for, or the free one for 0). */
  readonly port: number;
  /** Stops accepting, ends every connection, resolves once the server closed. `beforeEnd` runs first (e.g. ending streams cleanly). */
  stop(beforeEnd?: () => Promise<void>): Promise<void>;
}

/** Listens on `host:port`; on failure runs `cleanup` and throws a CLIError naming what to do. */
export async function listenOrExplain(server: Server, port: number, host: string, cleanup: () => Promise<void>): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await cleanup();
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new CLIError(`port ${port} on ${host} is in use (pick another with --port)`);
    if (code === 'EACCES') throw new CLIError(`not allowed to listen on ${host}:${port}`);
    throw new CLIError(`cannot listen on ${host}:${port}${code ? ` (${code})` : ''}`);
  }
  return {
    port: (server.address() as AddressInfo).port,
    async stop(beforeEnd) {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await beforeEnd?.();
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await stopped;
    },
  };
}

/** The URL a client uses for `host:port` (IPv6 in brackets). */
export const hostUrl = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
