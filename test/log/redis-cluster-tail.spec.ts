// Live tails (follow and wait) of redisEventLog on a real 3-master/3-replica Redis Cluster (issue 25). Before:
// every reader took a blocking connection of its own made by `cluster.duplicate()` (a whole Cluster client)
// whose `connect()` then failed ("Redis is already connecting/connected"): 110 of 120 live readers failed at
// once. Now the tail multiplexer runs once per slot tailed (a Cluster refuses one XREAD across slots, even on
// one node: CROSSSLOT), on one plain connection to the master serving it; a killed blocking connection is
// ridden through with each reader's cursor. Counts come from CLIENT LIST, never from timing.
import { Cluster } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { slotOf } from '../../lib/log/redis-slot';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { askNode, redisClusterForSuite } from './redis-cluster-server';
import { collect, sleep } from './takeover-helpers';

jest.setTimeout(300_000);

const PREFIX = 'openai-rx:log:';
const clients: Cluster[] = [];
const logs: EventLog[] = [];
// Declared before the cluster's hooks (afterAll hooks run in their order): logs and clients go first.
afterEach(async () => {
  for (const l of logs.splice(0)) await l.close();
  for (const c of clients.splice(0)) await c.quit().catch(() => c.disconnect());
});
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 1 });

/** A log on a Cluster client of its own, as another process would have (connecting in its constructor, as most do). */
function clusterLog(options: { retryBudgetMs?: number } = {}): EventLog {
  const client = new Cluster([...suite.cluster.startupNodes]);
  clients.push(client);
  const log = redisEventLog({ client, ...options });
  logs.push(log);
  return log;
}

let n = 0;
const eventsKey = (id: string): string => redisStreamKeys(PREFIX, { responseId: id }).events;
const fresh = (): string => `resp_ctail_${process.pid}_${Date.now().toString(36)}_${++n}`;
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** `count` new stream ids whose keys are all in `slot`. */
function idsInSlot(slot: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const id = `resp_slot${slot}_${process.pid}_${++n}_${i}`;
    if (slotOf(eventsKey(id)) === slot) out.push(id);
  }
  return out;
}

/** The ports of the masters now. */
const masters = (): number[] => suite.cluster.nodes.filter((x) => x.role === 'master').map((x) => x.port);

/** Clients of the node on `port` blocked in an XREAD (CLIENT LIST: cmd=xread, flag b), with their ids. */
async function blockedXreads(port: number): Promise<string[]> {
  const list = String(await askNode(port, 'CLIENT', 'LIST'));
  return list
    .split('\n')
    .filter((l) => / cmd=xread/.test(l) && / flags=\w*b/.test(l))
    .map((l) => /^id=(\d+)/.exec(l)?.[1] ?? '');
}

/** Waits (bounded) until `check()` holds. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`not reached: ${what}`);
}

/** Writes stream `id` on `log`: created and deltas 1..`to` (in rounds of `step`), then, when `end`, completed. */
async function produce(log: EventLog, s: LogScope, token: number, from: number, to: number, end: boolean): Promise<void> {
  for (let i = from; i <= to; i += 5) {
    const batch = range(i, Math.min(to, i + 4)).map((k) => (k === 0 ? created(s.responseId) : delta(k)));
    await log.append(s, token, batch);
  }
  if (end) await log.append(s, token, [completed(s.responseId, to + 1)]);
}

test('30 followers of 3 slots (one per master) share one blocked XREAD per node; each gets its stream exactly', async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  await writer.state({ responseId: 'resp_warm' }); // the writer's client knows the slot map
  const ports = masters();
  const slotsOf = new Map<number, number>();
  for (let slot = 0; slotsOf.size < 3; slot += 997) {
    const port = await suite.cluster.masterOf(eventsKey(idsInSlot(slot, 1)[0]!));
    if (![...slotsOf.values()].includes(port)) slotsOf.set(slot, port);
  }
  const ids = [...slotsOf.keys()].flatMap((slot) => idsInSlot(slot, 10));
  const tokens = new Map<string, number>();
  for (const id of ids) {
    const s = { responseId: id };
    const { token } = await writer.acquire(s, 60_000);
    tokens.set(id, token);
    await produce(writer, s, token, 0, 4, false);
  }
  const reading = ids.map((id) => lastValueFrom(fromEventLog(reader, id, { pollMs: 60_000 }).pipe(toArray())));
  // Every reader is caught up (reading live) once each master has its one blocked XREAD.
  await until(async () => (await Promise.all(ports.map(blockedXreads))).every((b) => b.length === 1), 'one blocked XREAD per master');
  await sleep(200);
  for (const port of ports) expect({ port, blocked: (await blockedXreads(port)).length }).toEqual({ port, blocked: 1 });
  for (const id of ids) await produce(writer, { responseId: id }, tokens.get(id)!, 5, 12, true);
  const got = await Promise.all(reading);
  got.forEach((events, i) => expect({ id: ids[i], seqs: seqs(events) }).toEqual({ id: ids[i], seqs: range(0, 13) }));
});

test('120 live readers (fromEventLog, before their streams start) and 40 waits: each exact, none fails', async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  const ids = Array.from({ length: 120 }, fresh);
  const outcomes = ids.map((id) => collect(fromEventLog(reader, id, { notFoundTimeout: 120_000, pollMs: 60_000 })));
  const waits = ids.slice(0, 40).map((id) => reader.wait({ responseId: id }, 3, 120_000));
  await sleep(500);
  const tokens: number[] = [];
  for (const id of ids) tokens.push((await writer.acquire({ responseId: id }, 60_000)).token);
  for (let round = 0; round < 4; round++) {
    await Promise.all(ids.map((id, i) => produce(writer, { responseId: id }, tokens[i]!, round * 5, round * 5 + 4, round === 3)));
  }
  expect(await Promise.all(waits)).toEqual(ids.slice(0, 40).map(() => true));
  const results = await Promise.all(outcomes);
  results.forEach((o, i) => expect({ id: ids[i], error: o.error, seqs: seqs(o.events) }).toEqual({ id: ids[i], error: undefined, seqs: range(0, 20) }));
});

test("a slot tail's blocking connection killed (CLIENT KILL) mid-follow: its readers continue exactly, nothing twice or skipped", async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  const ids = idsInSlot(slotOf(eventsKey(fresh())), 5);
  const port = await suite.cluster.masterOf(eventsKey(ids[0]!));
  const tokens: number[] = [];
  for (const id of ids) {
    const { token } = await writer.acquire({ responseId: id }, 60_000);
    tokens.push(token);
    await produce(writer, { responseId: id }, token, 0, 9, false);
  }
  const outcomes = ids.map((id) => collect(fromEventLog(reader, id, { pollMs: 60_000 })));
  await until(async () => (await blockedXreads(port)).length === 1, 'the slot tail blocked');
  for (let k = 0; k < 3; k++) {
    let victim: string | undefined;
    await until(async () => (victim = (await blockedXreads(port))[0]) !== undefined, 'an XREAD blocked');
    await askNode(port, 'CLIENT', 'KILL', 'ID', victim!);
    await Promise.all(ids.map((id, i) => produce(writer, { responseId: id }, tokens[i]!, 10 + k * 10, 19 + k * 10, false)));
    await until(async () => (await blockedXreads(port)).length === 1, 'the slot tail blocked again');
  }
  await Promise.all(ids.map((id, i) => produce(writer, { responseId: id }, tokens[i]!, 40, 44, true)));
  const results = await Promise.all(outcomes);
  results.forEach((o, i) => expect({ id: ids[i], error: o.error, seqs: seqs(o.events) }).toEqual({ id: ids[i], error: undefined, seqs: range(0, 45) }));
});
