// Live tails (follow and wait) of redisEventLog on a real 3-master/3-replica Redis Cluster (issue 25). Before:
// every reader took a blocking connection of its own made by `cluster.duplicate()` (a whole Cluster client)
// whose `connect()` then failed ("Redis is already connecting/connected"): 110 of 120 live readers failed at
// once; then a blocking XREAD per slot tailed (a Cluster refuses one XREAD across slots: CROSSSLOT), about
// one connection per stream with many streams. Now appends publish their entries on the stream's live channel
// (SPUBLISH) and a process reads each master through ONE subscriber connection (SSUBSCRIBE per stream); a
// killed subscriber connection is ridden through with each reader's cursor. Counts come from CLIENT LIST,
// never from timing.
import { lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { FollowableEventLog } from '../../lib/log/follow';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { askNode, clusterLogs, redisClusterForSuite } from './redis-cluster-server';
import { collect, sleep } from './takeover-helpers';

jest.setTimeout(300_000);

const PREFIX = 'openai-rx:log:';
// Declared before the cluster's hooks: the logs and their clients go first.
const clusterLog = clusterLogs(() => suite.cluster.startupNodes, 'each');
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 1 });


let n = 0;
const eventsKey = (id: string): string => redisStreamKeys(PREFIX, { responseId: id }).events;
const fresh = (): string => `resp_ctail_${process.pid}_${Date.now().toString(36)}_${++n}`;
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

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

/** The log's subscriber connections on the node on `port` (CLIENT LIST: ssub > 0): id and channels subscribed. */
async function subscribers(port: number): Promise<{ id: string; ssub: number }[]> {
  const list = String(await askNode(port, 'CLIENT', 'LIST'));
  return list
    .split('\n')
    .map((l) => ({ id: /^id=(\d+)/.exec(l)?.[1] ?? '', ssub: Number(/ ssub=(\d+)/.exec(l)?.[1] ?? 0) }))
    .filter((c) => c.ssub > 0);
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

test('120 followed streams over all 3 masters: one subscriber connection per master (no blocked XREAD); each stream exact', async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  const ids = Array.from({ length: 120 }, fresh);
  const ports = masters();
  const onNode = new Map<number, number>(ports.map((p) => [p, 0]));
  for (const id of ids) {
    const port = await suite.cluster.masterOf(eventsKey(id));
    onNode.set(port, (onNode.get(port) ?? 0) + 1);
  }
  for (const port of ports) expect(onNode.get(port)).toBeGreaterThan(0); // spread over every master
  const tokens = new Map<string, number>();
  for (const id of ids) {
    const s = { responseId: id };
    const { token } = await writer.acquire(s, 60_000);
    tokens.set(id, token);
    await produce(writer, s, token, 0, 4, false);
  }
  const reading = ids.map((id) => lastValueFrom(fromEventLog(reader, id, { pollMs: 60_000 }).pipe(toArray())));
  // Every reader subscribed: each master has one subscriber connection of the log, subscribed to its streams' channels.
  const subscribedAll = async (): Promise<boolean> =>
    (await Promise.all(ports.map(async (p) => ({ p, subs: await subscribers(p) })))).every(({ p, subs }) => subs.length === 1 && subs[0]!.ssub === onNode.get(p));
  await until(subscribedAll, 'one subscriber per master, on every channel');
  for (const port of ports) {
    const subs = await subscribers(port);
    expect({ port, connections: subs.length, channels: subs[0]?.ssub, blockedXreads: (await blockedXreads(port)).length }).toEqual({ port, connections: 1, channels: onNode.get(port), blockedXreads: 0 });
  }
  await Promise.all(ids.map((id) => produce(writer, { responseId: id }, tokens.get(id)!, 5, 12, true)));
  const got = await Promise.all(reading);
  got.forEach((events, i) => expect({ id: ids[i], seqs: seqs(events) }).toEqual({ id: ids[i], seqs: range(0, 13) }));
  // Every reader done: its channels unsubscribed (the connection itself closes after a while idle).
  await until(async () => (await Promise.all(ports.map(subscribers))).every((subs) => subs.length === 0), 'every channel unsubscribed');
});

test('120 live readers (fromEventLog, before their streams start) and 40 waits: each exact, none fails', async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  const ids = Array.from({ length: 120 }, fresh);
  const outcomes = ids.map((id) => collect(fromEventLog(reader, id, { notFoundTimeoutMs: 120_000, pollMs: 60_000 })));
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

test('the subscriber connection of a master killed (CLIENT KILL) three times mid-follow: every reader continues exactly, nothing twice or skipped', async () => {
  const writer = clusterLog();
  const reader = clusterLog();
  const ids = Array.from({ length: 24 }, fresh);
  const port = await suite.cluster.masterOf(eventsKey(ids[0]!));
  const tokens: number[] = [];
  for (const id of ids) {
    const { token } = await writer.acquire({ responseId: id }, 60_000);
    tokens.push(token);
    await produce(writer, { responseId: id }, token, 0, 9, false);
  }
  const outcomes = ids.map((id) => collect(fromEventLog(reader, id, { pollMs: 60_000 })));
  let mine = 0;
  for (const id of ids) if ((await suite.cluster.masterOf(eventsKey(id))) === port) mine++;
  const subscribedAll = async (): Promise<boolean> => {
    const subs = await subscribers(port);
    return subs.length === 1 && subs[0]!.ssub === mine;
  };
  await until(subscribedAll, 'the subscriber on every channel');
  for (let k = 0; k < 3; k++) {
    const victim = (await subscribers(port))[0]!.id;
    // Killed while the producers write: some entries are published to nobody, read back by the catch-up.
    const writing = Promise.all(ids.map((id, i) => produce(writer, { responseId: id }, tokens[i]!, 10 + k * 10, 19 + k * 10, false)));
    await askNode(port, 'CLIENT', 'KILL', 'ID', victim);
    await writing;
    await until(async () => (await subscribedAll()) && (await subscribers(port))[0]!.id !== victim, 'subscribed again on a new connection');
  }
  await Promise.all(ids.map((id, i) => produce(writer, { responseId: id }, tokens[i]!, 40, 44, true)));
  const results = await Promise.all(outcomes);
  results.forEach((o, i) => expect({ id: ids[i], error: o.error, seqs: seqs(o.events) }).toEqual({ id: ids[i], error: undefined, seqs: range(0, 45) }));
});

test('a quiet followed stream is told synced again and again (a PING round trip on the subscriber), and a cancel ends its follow', async () => {
  const writer = clusterLog();
  const reader = clusterLog() as EventLog & FollowableEventLog;
  const s = { responseId: fresh() };
  const { token } = await writer.acquire(s, 60_000);
  await produce(writer, s, token, 0, 2, false);
  const syncs: number[] = [];
  const got: number[] = [];
  let ended = false;
  let failed: Error | undefined;
  const stop = reader.follow(s, undefined, {
    events: (batch) => void got.push(...seqs(batch).map(Number)),
    end: () => void (ended = true),
    error: (e) => void (failed = e),
    synced: (at) => void syncs.push(at),
  });
  try {
    // The catch-up's, then the PINGs': three, each later than the one before.
    await until(() => syncs.length >= 3 || failed !== undefined, 'synced three times');
    expect(failed).toBeUndefined();
    expect(got).toEqual([0, 1, 2]);
    expect(syncs.every((at, i) => i === 0 || at > syncs[i - 1]!)).toBe(true);
    await writer.cancel(s);
    await until(() => ended || failed !== undefined, 'the follow ended');
    expect({ ended, failed, got }).toEqual({ ended: true, failed: undefined, got: [0, 1, 2] });
  } finally {
    stop();
  }
});
