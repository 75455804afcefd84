// The protocol authors' conformance suite against createDurableStreamsHandler, run by vitest (the suite is
// written for it): npx vitest run --config test/durable-streams/handler-conformance.vitest.config.mts
// DS_STORE=test uses the handler tests' minimal store instead of the memory event log; DS_REDIS_URL a Redis log.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runConformanceTests } from '@durable-streams/server-conformance-tests';
import { afterAll, beforeAll } from 'vitest';
import { createDurableStreamsHandler } from '../../lib/durable-streams/handler.js';
import { memoryEventLog } from '../../lib/log/memory.js';
import { redisEventLog } from '../../lib/log/redis.js';
import { testStore } from './handler-test-store.js';

const LONG_POLL_MS = 2000;
const options = { baseUrl: '', longPollTimeoutMs: LONG_POLL_MS };
let server: Server;

beforeAll(async () => {
  const redisUrl = process.env['DS_REDIS_URL'];
  const where = process.env['DS_STORE'] === 'test' ? { store: testStore() } : { log: redisUrl !== undefined ? redisEventLog({ url: redisUrl }) : memoryEventLog() };
  server = createServer(createDurableStreamsHandler({ ...where, longPollTimeoutMs: LONG_POLL_MS }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  options.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

runConformanceTests(options);
