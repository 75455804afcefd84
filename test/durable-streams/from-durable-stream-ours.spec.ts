import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDurableStreamsHandler } from '../../lib/durable-streams/handler';
import { memoryEventLog } from '../../lib/log/memory';
import type { StreamServer } from './from-durable-stream-helpers';
import { describeFromDurableStream } from './from-durable-stream-suite';

const SSE_CLOSE_MS = 300;

/** Our handler on the memory log, with a small catch-up budget and short SSE connections, so both show. */
async function oursServer(): Promise<StreamServer> {
  const log = memoryEventLog();
  const server = createServer(createDurableStreamsHandler({ log, maxReadBytes: 128, sseMaxDurationMs: SSE_CLOSE_MS, longPollTimeoutMs: 1000 }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    name: 'ours',
    base: `http://127.0.0.1:${port}/v1/stream`,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await log.close();
    },
  };
}

// The same behaviours as against the reference server, on createDurableStreamsHandler({ log: memoryEventLog() }).
describe('fromDurableStream against ours (createDurableStreamsHandler on the memory log)', () => {
  describeFromDurableStream(oursServer, { chunked: true, sseClosesAfterMs: SSE_CLOSE_MS });
});
