// redisEventLog on a real multi-node Redis Cluster (issue 25): 3 masters and 3 replicas, each a redis-server
// of this suite's own (redis-cluster-server.ts), through an ioredis Cluster client: the EventLog contract, keys
// spread over every master, and many live readers following many producers with no fault at all (before the
// fix, 110 of 120 live readers failed at once with 'Redis is already connecting/connected').
import { Cluster } from 'ioredis';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { RunScript } from '../../lib/log/redis-run-script';
import { stateOf } from '../../lib/log/redis-state';
import type { EventLog } from '../../lib/log/types';
import { created, completed, describeEventLogContract } from './contract';
import { lateReads, startLiveRun, summary, wrongOnes } from './live-streams';
import { askNode, redisClusterForSuite } from './redis-cluster-server';

jest.setTimeout(300_000);

const clients: Cluster[] = [];
// Declared before the cluster's hooks: jest runs afterAll hooks in their order, so the clients quit first.
afterAll(async () => {
  for (const c of clients) await c.quit().catch(() => c.disconnect());
});
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 1 });

/**
 * How an application makes its Cluster client: `new Cluster(nodes)` starts connecting at once (before the fix,
 * every live reader on one failed with 'Redis is already connecting/connected'); with `lazyConnect` it connects
 * on first use (here: before the log gets it).
 */
const CLIENTS = [
  ['new Cluster(nodes)', (): Cluster => new Cluster([...suite.cluster.startupNodes])],
  ['new Cluster(nodes, { lazyConnect: true })', (): Cluster => new Cluster([...suite.cluster.startupNodes], { lazyConnect: true })],
] as const;
type ClientKind = (typeof CLIENTS)[number][1];

/** A Cluster client on the suite's cluster, ready; quit after the suite. */
async function clusterClient(make: ClientKind = CLIENTS[1][1]): Promise<Cluster> {
  const c = make();
  clients.push(c);
  if (c.status === 'wait') await c.connect();
  else await new Promise<void>((resolve, reject) => (c.status === 'ready' ? resolve() : c.once('ready', resolve).once('error', reject)));
  return c;
}

let n = 0;
const uniq = (): string => `${process.pid}_${Date.now().toString(36)}_${++n}`;

describe.each(CLIENTS)('with %s', (_, make) => {
  describeEventLogContract('redisEventLog on a 3-master/3-replica Redis Cluster', async (limits) => {
    const log = redisEventLog({ client: await clusterClient(make), ...limits });
    return { log, cleanup: () => log.close() };
  });
});

/** Every key under `prefix` on the node at `port` (SCAN, not KEYS). */
async function keysOn(port: number, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = (await askNode(port, 'SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)) as [string, string[]];
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

test("the streams' keys land on every master, each stream's three keys on the master that serves their slot", async () => {
  const prefix = `spread${uniq()}:`;
  const log = redisEventLog({ client: await clusterClient(), keyPrefix: prefix });
  const ids = Array.from({ length: 60 }, (_, i) => `resp_spread_${i}`);
  try {
    for (const id of ids) {
      const s = { responseId: id };
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(id), completed(id, 1)]);
      await log.release(s, token);
    }
  } finally {
    await log.close();
  }
  const masters = suite.cluster.nodes.filter((x) => x.role === 'master').map((x) => x.port);
  expect(masters).toHaveLength(3);
  const onMaster = new Map<number, string[]>();
  for (const port of masters) onMaster.set(port, (await keysOn(port, prefix)).filter((k) => !k.startsWith(`${prefix}tail:`)));
  // Every master holds some streams; all the keys are there, each once, where the cluster says its slot is.
  for (const port of masters) expect(onMaster.get(port)!.length).toBeGreaterThan(0);
  const all = [...onMaster.values()].flat().sort();
  const expected = ids.flatMap((id) => Object.values(redisStreamKeys(prefix, { responseId: id }))).sort();
  expect(all).toEqual(expected);
  for (const [port, keys] of onMaster) for (const k of keys) expect(await suite.cluster.masterOf(k)).toBe(port);
});

test('the state calls of one turn, over streams on every master, are each answered as their lone call is, by plain reads (no script)', async () => {
  const prefix = `states${uniq()}:`;
  const client = await clusterClient();
  const log = redisEventLog({ client, keyPrefix: prefix });
  const scopes = Array.from({ length: 40 }, (_, i) => ({ responseId: `resp_states_${i}` }));
  // What the STATE script answers (as a lone call did before, and does when a plain read fails).
  const script: RunScript = async (text, scope, args) => (await client.eval(text, 1, redisStreamKeys(prefix, scope).meta, ...args)) as string[];
  /** Script calls and HMGETs so far, summed over the masters. */
  const calls = async (): Promise<{ scripts: number; hmget: number }> => {
    let scripts = 0;
    let hmget = 0;
    for (const node of suite.cluster.nodes.filter((x) => x.role === 'master')) {
      const info = String(await askNode(node.port, 'INFO', 'commandstats'));
      for (const [, cmd, c] of info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) {
        if (cmd === 'evalsha' || cmd === 'eval') scripts += Number(c);
        if (cmd === 'hmget') hmget += Number(c);
      }
    }
    return { scripts, hmget };
  };
  try {
    for (const [i, s] of scopes.entries()) {
      if (i % 8 === 4) await log.cancel(s); // a meta with only its end
      if (i % 4 === 0) continue; // none
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, i % 4 === 1 ? [created(s.responseId)] : [created(s.responseId), completed(s.responseId, 1)]);
      if (i % 4 === 3) await log.release(s, token);
    }
    const alone = [];
    for (const s of scopes) alone.push(await stateOf(script, s));
    const before = await calls();
    const together = await Promise.all(scopes.map((s) => log.state(s)));
    const after = await calls();
    expect(together).toEqual(alone);
    expect(together.filter((st) => st === undefined)).toHaveLength(5);
    expect(together.filter((st) => st?.end === 'cancelled')).toHaveLength(5);
    expect(together.filter((st) => st?.end === 'completed')).toHaveLength(20);
    expect(together.filter((st) => st?.lease !== undefined)).toHaveLength(20); // held (not released) by 1 and 2 of every 4
    expect(after.scripts - before.scripts).toBe(0);
    expect(after.hmget - before.hmget).toBe(40);
    // A meta key of another type: its read fails, and it goes as a lone STATE call (failing as that does); the others are answered.
    const broken = { responseId: 'resp_states_broken' };
    await client.set(redisStreamKeys(prefix, broken).meta, 'overwritten');
    const mixed = await Promise.allSettled([...scopes.slice(0, 5), broken].map((s) => log.state(s)));
    expect(mixed.slice(0, 5)).toEqual(alone.slice(0, 5).map((value) => ({ status: 'fulfilled', value })));
    expect(mixed[5]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/WRONGTYPE/) } });
  } finally {
    await log.close();
  }
});

test.each(CLIENTS)('120 live readers (fromEventLog, another log instance) follow 120 persistTo producers, with %s: every reader, live or late, gets exactly what its producer sent', async (_, make) => {
  const producerLog: EventLog = redisEventLog({ client: await clusterClient(make) });
  const readerLog: EventLog = redisEventLog({ client: await clusterClient(make) });
  try {
    const tag = uniq();
    const ids = Array.from({ length: 120 }, (_, i) => `resp_tail_${tag}_${i}`);
    // The streams on every master (the check is of the whole cluster, not of one node).
    const served = new Set(await Promise.all(ids.map((id) => suite.cluster.masterOf(redisStreamKeys('openai-rx:log:', { responseId: id }).meta))));
    expect(served.size).toBe(3);
    const run = startLiveRun({ producerLog, readerLog, ids, paceMs: 5, deltas: 60 });
    const producers = await Promise.all(run.streams.map((s) => s.producer));
    const live = await Promise.all(run.streams.map((s) => s.live));
    const late = await lateReads(readerLog, run.streams);
    expect(summary([...wrongOnes('producer', run.streams, producers), ...wrongOnes('live reader', run.streams, live), ...wrongOnes('late reader', run.streams, late)])).toEqual([]);
  } finally {
    await producerLog.close();
    await readerLog.close();
  }
});
