// The tail multiplexer (lib/log/redis-tail.ts) on a real redis-server, with the XREAD replies of its blocking
// connection held back by the test: which entries of a reply a follower is handed depends on the id the
// XREAD read after, not only on the follower's own cursor.
import Redis from 'ioredis';
import { redisTail, type RedisTail, type StreamEntry } from '../../lib/log/redis-tail';
import { redisForSuite, xreadBlocked } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
let n = 0;

/** A deferred promise. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A tail whose blocking connection's XREAD replies wait for `release()` once `hold()` was called; `held`
 * resolves when a reply with entries is being held.
 */
function controlledTail(
  opened: Redis[],
  count?: number,
  blockMs?: number,
  hooks: { beforeXread?: () => Promise<void>; wake?: (wakeKey: string) => Promise<unknown>; isRefusal?: (e: unknown) => boolean } = {},
): { tail: RedisTail; hold: () => Promise<void>; release: () => void } {
  const wakeKey = `tail-wake${++n}:${process.pid}`;
  let gate: ReturnType<typeof deferred> | undefined;
  let held: ReturnType<typeof deferred> | undefined;
  const tail = redisTail({
    connect: async () => {
      const c = new Redis(redis.server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      await c.connect();
      opened.push(c);
      const xread = c.xread.bind(c) as (...args: unknown[]) => Promise<unknown>;
      (c as unknown as { xread: (...args: unknown[]) => Promise<unknown> }).xread = async (...args: unknown[]) => {
        await hooks.beforeXread?.();
        const got = await xread(...args);
        if (gate !== undefined && got !== null) {
          held?.resolve();
          await gate.promise;
        }
        return got;
      };
      return c;
    },
    wakeKey,
    wake: () => (hooks.wake ?? ((k: string) => redis.admin.xadd(k, 'MAXLEN', '1', '*', 'w', '1')))(wakeKey),
    isRefusal: hooks.isRefusal,
    timed: (p) => p,
    failure: (e) => (e instanceof Error ? e : new Error(String(e))),
    timeoutMs: 10_000,
    count,
    blockMs,
  });
  return {
    tail,
    hold: () => {
      gate = deferred();
      held = deferred();
      return held.promise;
    },
    release: () => {
      const g = gate;
      gate = undefined;
      g?.resolve();
    },
  };
}

const ids = (entries: readonly StreamEntry[]) => entries.map(([id]) => id);
const add = (key: string, i: number) => redis.admin.xadd(key, `${i}-1`, 'i', String(i)) as Promise<string>;

test('a follower that joins with an older cursor while a reply read after a later id is on its way gets the entries in between too', async () => {
  const key = `tail${++n}:${process.pid}`;
  for (let i = 1; i <= 5; i++) await add(key, i);
  const opened: Redis[] = [];
  const { tail, hold, release } = controlledTail(opened);
  try {
    const a: string[] = [];
    const b: string[] = [];
    const fail = jest.fn();
    tail.follow(key, '5-1', (e) => a.push(...ids(e)), fail);
    // A's XREAD reads after 5-1; its reply (6-1) is held while B joins at 2-1.
    const isHeld = hold();
    await new Promise((r) => setTimeout(r, 50)); // the XREAD is issued and blocks
    await add(key, 6);
    await isHeld;
    tail.follow(key, '2-1', (e) => b.push(...ids(e)), fail);
    await new Promise((r) => setTimeout(r, 50)); // B's interrupt finds no XREAD blocked in Redis
    release();
    await add(key, 7);
    for (let i = 0; i < 200 && (a.length < 2 || b.length < 5); i++) await new Promise((r) => setTimeout(r, 10));
    expect(a).toEqual(['6-1', '7-1']);
    expect(b).toEqual(['3-1', '4-1', '5-1', '6-1', '7-1']);
    expect(fail).not.toHaveBeenCalled();
  } finally {
    tail.close();
    for (const c of opened) c.disconnect();
  }
});

test('followers at many cursors joining while entries are appended in batches each get every entry after their cursor once, in order', async () => {
  const key = `tail${++n}:${process.pid}`;
  const opened: Redis[] = [];
  const { tail } = controlledTail(opened);
  const total = 600;
  const got = new Map<number, string[]>();
  const fail = jest.fn();
  try {
    let appended = 0;
    for (let batch = 0; appended < total; batch++) {
      const size = 1 + ((batch * 7) % 13);
      const m = redis.admin.multi();
      for (let i = 0; i < size && appended < total; i++) m.xadd(key, `${++appended}-1`, 'i', String(appended));
      await m.exec();
      // a follower from a cursor somewhere behind, some at once, some after a turn of the event loop
      const from = Math.max(0, appended - ((batch * 11) % 40));
      const mine: string[] = [];
      got.set(from, mine);
      const join = () => tail.follow(key, `${from}-1`, (e) => mine.push(...ids(e)), fail);
      if (batch % 3 === 0) join();
      else setTimeout(join, batch % 5);
      if (batch % 2 === 0) await new Promise((r) => setImmediate(r));
    }
    const done = () => [...got].every(([from, mine]) => mine.length === total - from);
    for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    for (const [from, mine] of got) expect({ from, ids: mine }).toEqual({ from, ids: Array.from({ length: total - from }, (_, i) => `${from + i + 1}-1`) });
    expect(fail).not.toHaveBeenCalled();
  } finally {
    tail.close();
    for (const c of opened) c.disconnect();
  }
});

test('a follower is told it is synced after a read that handed it every entry stored before it was sent (not after one cut short by COUNT)', async () => {
  const streams = 50;
  const each = 10;
  const keys = Array.from({ length: streams }, (_, i) => `tail${++n}:${process.pid}:${i}`);
  const m = redis.admin.pipeline();
  keys.forEach((key, k) => {
    for (let i = 1; i <= each + k; i++) m.xadd(key, `${i}-1`, 'i', String(i));
  });
  await m.exec();
  const opened: Redis[] = [];
  const { tail } = controlledTail(opened, 4);
  const fail = jest.fn();
  const got = keys.map(() => [] as string[]);
  const whenSynced = keys.map(() => [] as number[]);
  const start = Date.now();
  try {
    keys.forEach((key, k) =>
      tail.follow(key, '0-0', (e) => got[k]!.push(...ids(e)), fail, (at) => {
        if (at < start) fail(new Error(`synced at ${at}, before the follow began`));
        whenSynced[k]!.push(got[k]!.length);
      }),
    );
    const done = () => whenSynced.every((w) => w.length > 0);
    for (let i = 0; i < 3000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    // all were stored before any XREAD, which reads 4 of each: a follower told it is synced has them all
    keys.forEach((_, k) => expect({ k, synced: whenSynced[k]![0] }).toEqual({ k, synced: each + k }));
    keys.forEach((_, k) => expect(got[k]).toEqual(Array.from({ length: each + k }, (_, i) => `${i + 1}-1`)));
    expect(fail).not.toHaveBeenCalled();
  } finally {
    tail.close();
    for (const c of opened) c.disconnect();
  }
});

test('a quiet follower is told it is synced at the end of a block that timed out, not at its sending', async () => {
  const key = `tail${++n}:${process.pid}`;
  const opened: Redis[] = [];
  const blockMs = 300;
  const { tail } = controlledTail(opened, undefined, blockMs);
  const fail = jest.fn();
  const syncs: { at: number; told: number }[] = [];
  const start = Date.now();
  try {
    tail.follow(key, '0-0', () => undefined, fail, (at) => void syncs.push({ at, told: Date.now() }));
    await until(() => syncs.length >= 2);
    // Every XREAD was sent after the follow began and blocked blockMs with nothing to read: what it covers reaches
    // at least blockMs past the start, never past the moment it is told.
    expect(syncs[0]!.at).toBeGreaterThanOrEqual(start + blockMs);
    for (const s of syncs) expect(s.at).toBeLessThanOrEqual(s.told);
    expect(syncs[1]!.at).toBeGreaterThanOrEqual(syncs[0]!.at + blockMs);
    expect(fail).not.toHaveBeenCalled();
  } finally {
    tail.close();
    for (const c of opened) c.disconnect();
  }
});

/** Waits (at most 30 s: well under the tests' 60 s block) until `done()`. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('a consumer that joins while the XREAD blocks (block 60 s: only a wake returns it in time)', () => {
  test('is read at once: the tail wakes its own XREAD with an entry in its wake stream (no CLIENT UNBLOCK)', async () => {
    const [idle, busy] = [`tail${++n}:${process.pid}`, `tail${++n}:${process.pid}`];
    for (let i = 1; i <= 3; i++) await add(busy, i);
    const opened: Redis[] = [];
    const { tail } = controlledTail(opened, undefined, 60_000);
    const fail = jest.fn();
    try {
      tail.follow(idle, '0-0', () => undefined, fail);
      await xreadBlocked(redis.admin);
      const got: string[] = [];
      tail.follow(busy, '0-0', (e) => got.push(...ids(e)), fail);
      await until(() => got.length === 3);
      expect(got).toEqual(['1-1', '2-1', '3-1']);
      expect(fail).not.toHaveBeenCalled();
    } finally {
      tail.close();
      for (const c of opened) c.disconnect();
    }
  });

  test('a wake that reaches Redis before the XREAD it is for still returns it (read after the last wake seen, not "$")', async () => {
    const [idle, busy] = [`tail${++n}:${process.pid}`, `tail${++n}:${process.pid}`];
    for (let i = 1; i <= 3; i++) await add(busy, i);
    let woken!: () => void;
    const wakeDone = new Promise<void>((r) => (woken = r));
    let first = true;
    const opened: Redis[] = [];
    const { tail } = controlledTail(opened, undefined, 60_000, {
      // The first XREAD (for `idle` only) is sent only after the wake for `busy` has landed.
      beforeXread: async () => {
        if (!first) return;
        first = false;
        joined();
        await wakeDone;
      },
      wake: async (k) => {
        await redis.admin.xadd(k, 'MAXLEN', '1', '*', 'w', '1');
        woken();
      },
    });
    const fail = jest.fn();
    const got: string[] = [];
    const joined = (): void => void tail.follow(busy, '0-0', (e) => got.push(...ids(e)), fail);
    try {
      tail.follow(idle, '0-0', () => undefined, fail);
      await until(() => got.length === 3);
      expect(got).toEqual(['1-1', '2-1', '3-1']);
      expect(fail).not.toHaveBeenCalled();
    } finally {
      tail.close();
      for (const c of opened) c.disconnect();
    }
  });

  test('a wake Redis refuses (an ACL without it) fails the consumers with that error at once, not a stall per new consumer', async () => {
    const [idle, busy] = [`tail${++n}:${process.pid}`, `tail${++n}:${process.pid}`];
    await add(busy, 1);
    const refused = new Error("NOPERM this user has no permissions to run the 'xadd' command");
    const opened: Redis[] = [];
    const { tail } = controlledTail(opened, undefined, 60_000, { wake: () => Promise.reject(refused), isRefusal: (e) => e === refused });
    const errors: Error[] = [];
    try {
      tail.follow(idle, '0-0', () => undefined, (e) => errors.push(e));
      await xreadBlocked(redis.admin);
      tail.follow(busy, '0-0', () => undefined, (e) => errors.push(e));
      await until(() => errors.length === 2);
      expect(errors).toEqual([refused, refused]);
    } finally {
      tail.close();
      for (const c of opened) c.disconnect();
    }
  });
});
