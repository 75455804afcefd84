// The write path on a real 3-master Redis Cluster (with a replica each; redis-cluster-server.ts): the appends
// and lease calls of one turn go as one script call per hash slot (every key in KEYS) and the calls of one node
// as one pipeline; one stream's tampered keys fail it alone, the others of its slot's call stored exactly once;
// with `replicas: 1` an append is confirmed by WAIT on its own master, and one whose replica hangs fails as
// 'unavailable' past the retry budget while the other masters' streams complete.
import { Cluster } from 'ioredis';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { slotOf } from '../../lib/log/redis-slot';
import type { EventLog, LogScope } from '../../lib/log/types';
import { created, delta } from './contract';
import { outcome } from './outcomes';
import { askNode, redisClusterForSuite } from './redis-cluster-server';

jest.setTimeout(300_000);

const clients: Cluster[] = [];
const logs: EventLog[] = [];
// Declared before the cluster's hooks (afterAll hooks run in their order): logs and clients go first.
afterAll(async () => {
  for (const l of logs) await l.close().catch(() => undefined);
  for (const c of clients) await c.quit().catch(() => c.disconnect());
});
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 1 });

const PREFIX = `wc${process.pid}:`;
const metaOf = (s: LogScope): string => redisStreamKeys(PREFIX, s).meta;
const seqs = (events: readonly { sequence_number?: number }[]): (number | undefined)[] => events.map((e) => e.sequence_number);

/** `count` streams whose keys are in `slot` (ids tried until their hash tag falls there). */
function streamsIn(slot: number, count: number, name: string): LogScope[] {
  const out: LogScope[] = [];
  for (let i = 0; out.length < count; i++) {
    const s = { responseId: `resp_${name}_${i}` };
    if (slotOf(metaOf(s)) === slot) out.push(s);
  }
  return out;
}

/** Two slots served by each master (the slot ranges redis-cli --cluster create gives 3 masters), three streams each. */
const SLOTS = [100, 4000, 6000, 9000, 12000, 15000];

async function newLog(options: { replicas?: number; retryBudgetMs?: number; replicaTimeoutMs?: number } = {}): Promise<{ log: EventLog; client: Cluster }> {
  const client = new Cluster([...suite.cluster.startupNodes], { lazyConnect: true });
  clients.push(client);
  await client.connect();
  const log = redisEventLog({ client, keyPrefix: PREFIX, ...options });
  logs.push(log);
  return { log, client };
}

/** Script calls (EVAL and EVALSHA) every master has run so far. */
async function scriptCalls(): Promise<number> {
  let calls = 0;
  for (const node of suite.cluster.nodes.filter((x) => x.role === 'master')) {
    const info = (await askNode(node.port, 'INFO', 'commandstats')) as string;
    for (const [, , c] of info.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)) calls += Number(c);
  }
  return calls;
}


test("a turn's acquires, appends and renewals: one script call per hash slot, one pipeline per master; every stream exact", async () => {
  const { log, client } = await newLog();
  const streams = SLOTS.flatMap((slot, k) => streamsIn(slot, 3, `turn${k}`));
  const masters = new Set(await Promise.all(streams.map((s) => suite.cluster.masterOf(metaOf(s)))));
  expect(masters.size).toBe(3);
  await log.state({ responseId: 'connect' });
  // Pipelines the log makes on the client (the application's own makes none here).
  let pipelines = 0;
  const pipeline = client.pipeline.bind(client);
  client.pipeline = ((...args: Parameters<Cluster['pipeline']>) => {
    pipelines++;
    return pipeline(...args);
  }) as Cluster['pipeline'];

  let before = await scriptCalls();
  pipelines = 0;
  const leases = await Promise.all(streams.map((s) => log.acquire(s, 60_000)));
  expect((await scriptCalls()) - before).toBe(SLOTS.length);
  expect(pipelines).toBe(3);

  for (let round = 0; round < 3; round++) {
    before = await scriptCalls();
    pipelines = 0;
    await Promise.all(streams.map((s, k) => log.append(s, leases[k]!.token, round === 0 ? [created(s.responseId)] : [delta(2 * round - 1), delta(2 * round)])));
    expect((await scriptCalls()) - before).toBe(SLOTS.length);
    expect(pipelines).toBe(3);
  }
  before = await scriptCalls();
  await Promise.all(streams.map((s, k) => log.renew(s, leases[k]!.token, 60_000)));
  expect((await scriptCalls()) - before).toBe(SLOTS.length);
  for (const s of streams) expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3, 4]);
  client.pipeline = pipeline;
});

test('a stream whose meta key is a string fails alone; the streams of the same slot and call are stored exactly once', async () => {
  const { log, client } = await newLog();
  const [a, b, c] = streamsIn(SLOTS[2]!, 3, 'tamper');
  const elsewhere = streamsIn(SLOTS[5]!, 2, 'tamper_else');
  const streams = [a!, b!, c!, ...elsewhere];
  const leases = await Promise.all(streams.map((s) => log.acquire(s, 60_000)));
  await Promise.all(streams.map((s, k) => log.append(s, leases[k]!.token, [created(s.responseId)])));
  await client.set(metaOf(b!), 'overwritten');
  const got = await Promise.all(streams.map((s, k) => outcome(log.append(s, leases[k]!.token, [delta(1), delta(2)]))));
  expect(got).toEqual(['ok', `corrupt ${b!.responseId}`, 'ok', 'ok', 'ok']);
  for (const s of [a!, c!, ...elsewhere]) expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2]);
  // Acquires of the same slot: the broken stream alone fails.
  const more = await Promise.all([a!, b!, c!].map((s) => outcome(log.acquire(s, 60_000))));
  expect(more).toEqual([`lease_held ${a!.responseId}`, `corrupt ${b!.responseId}`, `lease_held ${c!.responseId}`]);
});

test('replicas: 1: appends confirmed by WAIT on their own master; a master whose replica hangs fails its streams past the budget, the others complete', async () => {
  const { log } = await newLog({ replicas: 1, replicaTimeoutMs: 200, retryBudgetMs: 2000 });
  const streams = SLOTS.flatMap((slot, k) => streamsIn(slot, 2, `wait${k}`));
  const leases = await Promise.all(streams.map((s) => log.acquire(s, 60_000)));
  await Promise.all(streams.map((s, k) => log.append(s, leases[k]!.token, [created(s.responseId)])));

  const stalled = await suite.cluster.masterOf(metaOf(streams[0]!));
  const [replica] = await suite.cluster.replicasOf(stalled);
  expect(replica).toBeDefined();
  suite.cluster.pause(replica!);
  try {
    const owners = await Promise.all(streams.map((s) => suite.cluster.masterOf(metaOf(s))));
    const got = await Promise.all(streams.map((s, k) => outcome(log.append(s, leases[k]!.token, [delta(1)]))));
    expect(got).toEqual(streams.map((s, k) => (owners[k] === stalled ? `unavailable ${s.responseId}` : 'ok')));
    const e = await log.append(streams[0]!, leases[0]!.token, [delta(1)]).catch((x: unknown) => x);
    expect(String(e)).toMatch(/replicas confirmed/);
  } finally {
    suite.cluster.resume(replica!);
  }
  await suite.cluster.refresh(); // its link to the master up again
  // The replica back: the same appends (stored on the master already) are confirmed now.
  await Promise.all(streams.map((s, k) => log.append(s, leases[k]!.token, [delta(1)])));
  for (const s of streams) expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
});

test("each master's maxmemory-policy is looked at: one warning, naming the node whose policy can evict the log's keys", async () => {
  const masters = suite.cluster.nodes.filter((x) => x.role === 'master').map((x) => x.port);
  await askNode(masters[1]!, 'CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
  try {
    const said: string[] = [];
    const client = new Cluster([...suite.cluster.startupNodes], { lazyConnect: true });
    clients.push(client);
    await client.connect();
    const log = redisEventLog({ client, keyPrefix: PREFIX, warn: (m) => said.push(m) });
    logs.push(log);
    const s = streamsIn(SLOTS[0]!, 1, 'evict')[0]!;
    const { token } = await log.acquire(s, 60_000);
    for (let i = 0; said.length === 0; i++) {
      if (i > 1000) throw new Error('no warning');
      await log.renew(s, token, 60_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    await log.renew(s, token, 60_000);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`:${masters[1]} has maxmemory-policy allkeys-lru`);
    for (const port of [masters[0], masters[2]]) expect(said[0]).not.toContain(`:${port} `);
  } finally {
    await askNode(masters[1]!, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
  }
});
