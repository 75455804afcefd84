import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDurableStreamsHandler } from '../../lib/durable-streams/handler';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { redisForSuite } from '../log/redis-server';
import type { StreamServer } from './from-durable-stream-helpers';
import { describeFromDurableStream } from './from-durable-stream-suite';

const SSE_CLOSE_MS = 300;

/** One instance of our handler on `log`, with a small catch-up budget and short SSE connections, so both show. */
async function instance(log: EventLog): Promise<{ origin: string; stop(): Promise<void> }> {
  const server: Server = createServer(createDurableStreamsHandler({ log, maxReadBytes: 128, sseMaxDurationMs: SSE_CLOSE_MS, longPollTimeoutMs: 1000 }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await log.close();
    },
  };
}

const traits = { chunked: true, sseClosesAfterMs: SSE_CLOSE_MS };

// The same behaviours as against the reference server, on createDurableStreamsHandler.
describe('fromDurableStream against ours on the memory log', () => {
  describeFromDurableStream(async (): Promise<StreamServer> => {
    const one = await instance(memoryEventLog());
    return { name: 'ours (memory)', base: `${one.origin}/v1/stream`, stop: () => one.stop() };
  }, traits);
});

// Two instances, each with its own redisEventLog on one redis-server: the tests write through one and read through the other.
describe('fromDurableStream against ours on Redis, two instances', () => {
  jest.setTimeout(60_000);
  const redis = redisForSuite();
  describeFromDurableStream(async (): Promise<StreamServer> => {
    const reader = await instance(redisEventLog({ url: redis.server.url }));
    const writer = await instance(redisEventLog({ url: redis.server.url }));
    return {
      name: 'ours (redis)',
      base: `${reader.origin}/v1/stream`,
      writeOrigin: writer.origin,
      stop: async () => void (await Promise.all([reader.stop(), writer.stop()])),
    };
  }, traits);
});
