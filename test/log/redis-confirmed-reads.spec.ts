// With `replicas: n`, readers hand over only events a replica confirmed (issue 25: "readers deliver only events
// that survive a master's death"), against a real master and replica (--replicaof). While the replica hangs
// (SIGSTOP), an append is stored on the master but not confirmed: a follower (synced past its storing) and
// `read` do not have it and `wait` does not wake for it; once the replica is back and the append confirmed,
// they do. Without `replicas` nothing changes: no confirmation marks on the stream.
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { replicaPairForSuite } from './redis-server-args';

jest.setTimeout(120_000);

const PREFIX = 'confirmed:';
const logs: ReturnType<typeof redisEventLog>[] = [];
const pair = replicaPairForSuite(async () => {
  for (const l of logs) await l.close();
});

let n = 0;
const scope = (): LogScope => ({ responseId: `resp_confirmed_${++n}` });
// A generous retry budget: the append paused below keeps trying until the replica is back.
const newLog = (replicas: number) => {
  const log = redisEventLog({ url: pair.master.url, keyPrefix: PREFIX, replicas, replicaTimeoutMs: 200, retryBudgetMs: 60_000 });
  logs.push(log);
  return log;
};
const until = async (what: string, ok: () => boolean | Promise<boolean>): Promise<void> => {
  for (let i = 0; !(await ok()); i++) {
    if (i > 1200) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
};
const seqs = (events: readonly ResponseStreamEvent[]): (number | undefined)[] => events.map((e) => e.sequence_number);
const lastStored = async (s: LogScope): Promise<number | undefined> => {
  const v = await pair.admin.hget(redisStreamKeys(PREFIX, s).meta, 'last');
  return v === null ? undefined : Number(v);
};
/** A follower of `s` from the start (or after `after`): what it was handed, whether it ended, and when it was last synced. */
const follower = (log: ReturnType<typeof redisEventLog>, s: LogScope, after?: number) => {
  const got: ResponseStreamEvent[] = [];
  const f = { got, ended: false, syncedAt: 0, errors: [] as Error[], stop: () => undefined as void };
  f.stop = log.follow(s, after, {
    events: (batch) => void got.push(...batch),
    end: () => void (f.ended = true),
    error: (e) => void f.errors.push(e),
    synced: (at) => void (f.syncedAt = Math.max(f.syncedAt, at)),
  });
  return f;
};

test('replicas: 1: an append stored on the master but not confirmed is not handed to a follower, read or woken for; confirmed, it is', async () => {
  const log = newLog(1);
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId)]);
  const f = follower(log, s);
  await until('the first event', () => f.got.length === 1);

  pair.replica.child.kill('SIGSTOP');
  let appended: Promise<void>;
  try {
    appended = log.append(s, token, [delta(1), delta(2)]);
    appended.catch(() => undefined);
    await until('the master to store the append', async () => (await lastStored(s)) === 2);
    const storedAt = Date.now();
    // The follower has had every entry stored before a sync after that: it holds them, handing none over.
    await until('the follower to sync past the append', () => f.syncedAt > storedAt);
    expect(seqs(f.got)).toEqual([0]);
    expect(seqs(await log.read(s, undefined))).toEqual([0]);
    expect(seqs(await log.read(s, 0, 10))).toEqual([]);
    expect(await log.wait(s, 0, 300)).toBe(false);
    expect((await log.state(s))?.lastSequenceNumber).toBe(2); // the stored last, for the 'lost' checks
  } finally {
    pair.replica.child.kill('SIGCONT');
  }
  await appended;
  await until('the confirmed events', () => f.got.length === 3);
  expect(seqs(f.got)).toEqual([0, 1, 2]);
  expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2]);
  expect(await log.wait(s, 0, 30_000)).toBe(true);

  await log.append(s, token, [completed(s.responseId, 3)]);
  await until('the end', () => f.got.length === 4);
  expect(seqs(f.got)).toEqual([0, 1, 2, 3]);
  expect(f.errors).toEqual([]);
  f.stop();
  // One mark per confirmed append: <seq>-3, after the event it covers.
  const ids = (await pair.admin.xrange(redisStreamKeys(PREFIX, s).events, '-', '+')).map(([id]) => id);
  expect(ids).toEqual(['0-1', '0-3', '1-1', '2-1', '2-3', '3-1', '3-3']);
  expect(await pair.admin.hget(redisStreamKeys(PREFIX, s).meta, 'durable')).toBe('3');
});

test('replicas: 1: a cancel after a confirmation mark ends the stream for a follower (its entry goes after the mark)', async () => {
  const log = newLog(1);
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId), delta(1)]);
  const f = follower(log, s);
  await until('the events', () => f.got.length === 2);
  await log.cancel(s);
  await until('the end', () => f.ended);
  expect(seqs(f.got)).toEqual([0, 1]);
  expect(f.errors).toEqual([]);
  f.stop();
  expect((await log.state(s))?.end).toBe('cancelled');
});

test('replicas: 0: nothing changes, no confirmation marks', async () => {
  const log = newLog(0);
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  const f = follower(log, s);
  await log.append(s, token, [created(s.responseId), delta(1)]);
  await log.append(s, token, [completed(s.responseId, 2)]);
  await until('the events', () => f.got.length === 3);
  f.stop();
  expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2]);
  const ids = (await pair.admin.xrange(redisStreamKeys(PREFIX, s).events, '-', '+')).map(([id]) => id);
  expect(ids).toEqual(['0-1', '1-1', '2-1']);
  expect(await pair.admin.hget(redisStreamKeys(PREFIX, s).meta, 'durable')).toBeNull();
});

test('replicas: 1: an append of several events (its first alone, the others one entry): read and follow from every cursor give the events after it, confirmed', async () => {
  const log = newLog(1);
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  const all = [created(s.responseId), delta(1), delta(2), delta(4), delta(5), delta(6), completed(s.responseId, 8)];
  await log.append(s, token, all.slice(0, 4));
  await log.append(s, token, all.slice(4));
  const ids = (await pair.admin.xrange(redisStreamKeys(PREFIX, s).events, '-', '+')).map(([id, f]) => `${id} ${f[0]}`);
  expect(ids).toEqual(['0-1 e', '4-1 e', '4-3 c', '5-1 e', '8-1 e', '8-3 c']);
  for (let after = 0; after <= 8; after++) {
    const want = seqs(all.filter((e) => e.sequence_number! > after));
    expect(seqs(await log.read(s, after))).toEqual(want);
    const f = follower(log, s, after);
    await until(`the events after ${after}`, () => f.got.length >= want.length);
    f.stop();
    expect(seqs(f.got)).toEqual(want);
    expect(f.errors).toEqual([]);
  }
});
