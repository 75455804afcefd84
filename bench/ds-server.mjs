// One Durable Streams server for bench/durable-streams.mjs, in its own process so that its CPU is its own:
//   node bench/ds-server.mjs reference            the protocol's reference server (@durable-streams/server, in memory)
//   node bench/ds-server.mjs memory               openai-rx's handler on a memoryEventLog
//   node bench/ds-server.mjs redis <redis-url>    openai-rx's handler on a redisEventLog
// Prints `listening <base url>`; answers the IPC message 'cpu' with its process.cpuUsage() (µs).
import { createServer } from 'node:http';

const kind = process.argv[2];
const distRoot = () => (process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url));

async function start() {
  if (kind === 'reference') {
    const { DurableStreamTestServer } = await import('@durable-streams/server');
    const server = new DurableStreamTestServer({ port: 0, host: '127.0.0.1' });
    return { url: await server.start(), stop: () => server.stop() };
  }
  const root = await import(new URL('esm/index.js', distRoot()).href);
  const { createDurableStreamsHandler } = await import(new URL('esm/lib/durable-streams/index.js', distRoot()).href);
  const log = kind === 'redis' ? root.redisEventLog({ url: process.argv[3] }) : root.memoryEventLog();
  const server = createServer(createDurableStreamsHandler({ log }));
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await log.close();
    },
  };
}

const { url, stop } = await start();
process.on('message', async (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  if (m === 'stop') {
    await stop();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0)); // never outlive the bench
process.on('SIGTERM', () => process.exit(0)); // an exit, not a kill: a --cpu-prof profile gets written
console.log(`listening ${url}`);
