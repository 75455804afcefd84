// `openai-rx streams`: a Durable Streams server (createDurableStreamsHandler) on a port, until SIGINT / SIGTERM,
// its streams in an in-memory log or in Redis (a single server or a Cluster), so that any number of instances on
// the same Redis serve the same streams.
import { createServer } from 'node:http';
import type { Cluster } from 'ioredis';
import { createDurableStreamsHandler } from '../lib/durable-streams/index.js';
import { memoryEventLog } from '../lib/log/memory.js';
import { redisEventLog } from '../lib/log/redis.js';
import type { EventLog } from '../lib/log/types.js';
import { loadPeer } from '../lib/peer.js';
import { CLIError, parse, usage } from './args.js';
import { explainIfStillRunning, untilInterrupted } from './interrupted.js';
import { hostUrl, listenOrExplain } from './listen.js';
import type { IO } from './run.js';
import { outFor, paint } from './style.js';

/** The protocol's default port. */
export const STREAMS_PORT = 4437;

/** A Cluster client whose first node is `url` (the others are discovered), with the URL's user, password and TLS. */
async function clusterClient(url: string): Promise<Cluster> {
  const mod = (await loadPeer('ioredis', 'openai-rx streams --cluster')) as { Cluster?: typeof Cluster; default?: { Cluster?: typeof Cluster } };
  const ClusterClass = mod.Cluster ?? mod.default?.Cluster;
  if (ClusterClass === undefined) throw new CLIError('--cluster: the installed ioredis has no Cluster');
  const u = new URL(url);
  const redisOptions = {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  return new ClusterClass([{ host: u.hostname, port: u.port ? Number(u.port) : 6379 }], { redisOptions });
}

const masked = (url: string): string => url.replace(/\/\/[^@/]*@/, '//[credentials]@');

export async function runStreams(argv: readonly string[], io: IO): Promise<number> {
  const a = parse(argv, { port: 'string', host: 'string', redis: 'string', cluster: 'boolean', 'long-poll-ms': 'string' }, 0);
  const port = a.flags.port === undefined ? STREAMS_PORT : a.int('port', { max: 65535, what: '0 picks a free port' });
  const host = typeof a.flags.host === 'string' ? a.flags.host : '127.0.0.1';
  const redis = typeof a.flags.redis === 'string' ? a.flags.redis : undefined;
  if (redis !== undefined && !/^rediss?:\/\//.test(redis)) throw usage('--redis takes a redis:// or rediss:// URL');
  if (a.flags.cluster === true && redis === undefined) throw usage('--cluster needs --redis URL (one node of the Cluster)');
  const longPollTimeoutMs = a.flags['long-poll-ms'] === undefined ? undefined : a.int('long-poll-ms', { min: 100, max: 600_000, what: 'milliseconds' });

  const out = outFor(io.stdout, io.env);
  const say = (t: string): void => void io.stdout.write(`${t}\n`);
  let cluster: Cluster | undefined;
  let log: EventLog;
  if (redis === undefined) log = memoryEventLog();
  else if (a.flags.cluster === true) log = redisEventLog({ client: (cluster = await clusterClient(redis)) });
  else log = redisEventLog({ url: redis });
  const closeLog = async (): Promise<void> => {
    await log.close();
    await cluster?.quit().catch(() => cluster?.disconnect());
  };

  const server = createServer(createDurableStreamsHandler({ log, ...(longPollTimeoutMs !== undefined ? { longPollTimeoutMs } : {}) }));
  const listening = await listenOrExplain(server, port, host, closeLog);
  const interrupted = untilInterrupted(io); // before the ready lines: a signal sent on reading them must be handled
  const base = `${hostUrl(host, listening.port)}/v1/stream/`;
  say(`${paint(out, 'bold', 'openai-rx streams')} at ${paint(out, 'cyan', base)} (Durable Streams)`);
  say(`log: ${redis === undefined ? 'memory (this process only)' : `${a.flags.cluster === true ? 'Redis Cluster at ' : ''}${masked(redis)}`}`);
  say(paint(out, 'dim', `try: curl -X PUT ${base}hello -H 'content-type: text/plain' -d 'hi' && curl '${base}hello?offset=-1'`));
  say(paint(out, 'dim', `     curl -N '${base}hello?offset=now&live=sse'   (Ctrl-C stops)`));

  await interrupted;
  await listening.stop(); // live readers (SSE, long-poll) would hold the server open: their connections end now
  await closeLog();
  say('stopped');
  explainIfStillRunning(io);
  return 0;
}
