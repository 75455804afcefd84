// The protocol authors' conformance suite against TWO createDurableStreamsHandler instances, each on its own
// redisEventLog client, behind a front that sends each request to the next one in turn: every stream is created,
// written, read and deleted through both, so the suite checks that any instance serves any stream.
//   npx vitest run --config test/durable-streams/log-store-conformance.vitest.config.mts
// DS_LOG=cluster runs it on a 3-master Redis Cluster (test/log/redis-cluster-server.ts) instead of one redis-server.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runConformanceTests } from '@durable-streams/server-conformance-tests';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createDurableStreamsHandler } from '../../lib/durable-streams/handler.js';
import { redisEventLog } from '../../lib/log/redis.js';
import type { EventLog } from '../../lib/log/types.js';
import { startRedisCluster } from '../log/redis-cluster-server.js';
import { startRedisServer } from '../log/redis-server.js';

const LONG_POLL_MS = 2000;
const options = { baseUrl: '', longPollTimeoutMs: LONG_POLL_MS };
const servers: Server[] = [];
const logs: EventLog[] = [];
const clients: Cluster[] = [];
let stopRedis: () => Promise<void> = async () => undefined;

async function listen(s: Server): Promise<number> {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  servers.push(s);
  return (s.address() as AddressInfo).port;
}

/** A log on the suite's Redis: its own connections, as another process would have. */
let newLog: () => EventLog;

beforeAll(async () => {
  if (process.env['DS_LOG'] === 'cluster') {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
    stopRedis = () => cluster.stop();
    newLog = () => {
      const client = new Cluster([...cluster.startupNodes]);
      clients.push(client);
      return redisEventLog({ client });
    };
  } else {
    const redis = await startRedisServer();
    stopRedis = () => redis.stop();
    newLog = () => redisEventLog({ url: redis.url });
  }
  const ports: number[] = [];
  for (let i = 0; i < 2; i++) {
    const log = newLog();
    logs.push(log);
    ports.push(await listen(createServer(createDurableStreamsHandler({ log, longPollTimeoutMs: LONG_POLL_MS }))));
  }
  let n = 0;
  const front = createServer((req, res) => {
    const up = request({ host: '127.0.0.1', port: ports[n++ % ports.length], method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  options.baseUrl = `http://127.0.0.1:${await listen(front)}`;
}, 180_000);

afterAll(async () => {
  for (const s of servers.reverse()) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  for (const l of logs) await l.close();
  for (const c of clients) await c.quit().catch(() => c.disconnect());
  await stopRedis();
}, 60_000);

runConformanceTests(options);
