// A gateway in front of the fake provider, both on real loopback sockets, for the gateway suites.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createGateway, type Gateway, type GatewayOptions } from '../../gateway/index';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../testing/index';

export interface Harness {
  readonly provider: FakeProvider;
  readonly gateway: Gateway;
  readonly server: Server;
  /** `http://127.0.0.1:<port>/v1`: the SDK's baseURL. */
  readonly baseURL: string;
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts the fake provider and a gateway in front of it (options override the defaults). */
export async function startHarness(options: { provider?: FakeProviderOptions; gateway?: GatewayOptions } = {}): Promise<Harness> {
  const provider = await startFakeProvider(options.provider);
  const gateway = createGateway({ upstream: { baseURL: provider.baseURL }, ...options.gateway });
  const server = await listen(gateway);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    provider, gateway, server, origin, baseURL: `${origin}/v1`,
    close: async () => {
      await closeServer(server);
      await gateway.close();
      await provider.close();
    },
  };
}

/** A node:http server on a free loopback port. */
export async function listen(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  (server as Server & { sockets?: Set<Socket> }).sockets = sockets;
  // A deep accept queue: a test opens a thousand connections at once.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  return server;
}

export async function closeServer(server: Server): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  for (const s of (server as Server & { sockets?: Set<Socket> }).sockets ?? []) s.destroy();
  await stopped;
}

/** Words enough for a long answer: `n` of them. */
export const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/** The sequence numbers of events. */
export const seqs = (events: ReadonlyArray<{ sequence_number?: unknown }>): number[] => events.map((e) => e.sequence_number as number);

/**
 * The events a reader got before the terminal `response.cancelled` its stream ended with, after checking that
 * terminal: the response's id, `cancelled`, numbered one past the last event before it (0 when none).
 */
export function beforeCancel<E extends Record<string, unknown>>(events: readonly E[], id: string): E[] {
  const terminal = events[events.length - 1];
  const before = events.slice(0, -1);
  const last = before[before.length - 1]?.['sequence_number'];
  expect(terminal).toMatchObject({ type: 'response.cancelled', sequence_number: typeof last === 'number' ? last + 1 : 0, response: { id, status: 'cancelled' } });
  return before;
}
