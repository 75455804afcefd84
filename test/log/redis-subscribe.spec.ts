// redisEventLog on a single Redis with liveReads 'subscribe' (live reads through the streams' live channels, one
// subscriber connection per log instance, as on a Cluster): the EventLog contract suite; a reader of another
// instance through catch-up and live hand-over, a cancel and a stream not there yet; a restart of Redis ridden
// through; the option refused when it is neither; and, as an ACL user with the documented line plus the pub/sub
// rights docs/durable-log.md names, nothing refused, while a user without them gets 'forbidden' naming SPUBLISH;
// 100 followers started and ended together, each exact, subscribed and unsubscribed in a few commands.
import { InvalidOptionError } from '../../lib/errors';
import type { FollowableEventLog } from '../../lib/log/follow';
import { redisEventLog } from '../../lib/log/redis';
import type { LogScope } from '../../lib/log/types';
import { completed, created, delta, describeEventLogContract, reasonOf } from './contract';
import { commandCalls } from './outcomes';
import { aclUser, refusedTo } from './redis-acl';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const SUBSCRIBE = { liveReads: 'subscribe' } as const;

describeEventLogContract("redisEventLog with liveReads 'subscribe'", async (limits) => {
  const log = redisEventLog({ url: redis.server.url, ...SUBSCRIBE, ...limits });
  return { log, cleanup: () => log.close() };
});

let n = 0;
const scope = (): LogScope => ({ responseId: `resp_sub_${process.pid}_${++n}` });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Follows `s` on `log` from the start, collecting sequence numbers; `done` once `last` came (a terminal event: follow's `end` is for a cancel), or a while after the end. */
function collect(log: FollowableEventLog, s: LogScope, last = -1): { seqs: number[]; done: Promise<void> } {
  const seqs: number[] = [];
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    stop = log.follow(s, undefined, {
      events: (events) => {
        seqs.push(...events.map((e) => e.sequence_number ?? -1));
        if (seqs.includes(last)) resolve();
      },
      end: () => void sleep(200).then(resolve),
      error: reject,
    });
  });
  done.finally(() => stop()).catch(() => undefined);
  return { seqs, done };
}

test("liveReads other than 'xread' or 'subscribe': InvalidOptionError", () => {
  expect(() => redisEventLog({ url: redis.server.url, liveReads: 'pubsub' as 'xread' })).toThrow(InvalidOptionError);
});

test('another instance follows: what was stored before, then live, each once and in order, to the end', async () => {
  const [writer, reader] = [redisEventLog({ url: redis.server.url, ...SUBSCRIBE }), redisEventLog({ url: redis.server.url, ...SUBSCRIBE })];
  try {
    const s = scope();
    const { token } = await writer.acquire(s, 60_000);
    await writer.append(s, token, [created(s.responseId), delta(1)]);
    const got = collect(reader as FollowableEventLog, s, 40);
    for (let i = 2; i < 40; i++) {
      await writer.append(s, token, [delta(i)]);
      if (i % 7 === 0) await sleep(5);
    }
    await writer.append(s, token, [completed(s.responseId, 40)]);
    await got.done;
    expect(got.seqs).toEqual(Array.from({ length: 41 }, (_, i) => i));
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
});

test('a stream not there yet: wait wakes on its first append; a cancel ends a follower', async () => {
  const [writer, reader] = [redisEventLog({ url: redis.server.url, ...SUBSCRIBE }), redisEventLog({ url: redis.server.url, ...SUBSCRIBE })];
  try {
    const s = scope();
    const woke = reader.wait(s, undefined, 10_000);
    await sleep(50);
    const { token } = await writer.acquire(s, 60_000);
    await writer.append(s, token, [created(s.responseId)]);
    await expect(woke).resolves.toBe(true);
    const got = collect(reader as FollowableEventLog, s);
    await writer.append(s, token, [delta(1)]);
    await writer.cancel(s);
    await got.done;
    expect((await reader.state(s))?.end).toBe('cancelled');
    expect(got.seqs).toEqual([0, 1]);
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
});

test("as the documented ACL user plus the Cluster's pub/sub rights: nothing refused; without them: forbidden naming SPUBLISH", async () => {
  const rights = ['+spublish', '+ssubscribe', '+sunsubscribe', '+ping', '&openai-rx:log:*'];
  const url = await aclUser(redis.admin, redis.server.port, 'sub-ok', { extra: rights });
  const [writer, reader] = [redisEventLog({ url, ...SUBSCRIBE }), redisEventLog({ url, ...SUBSCRIBE })];
  try {
    const s = scope();
    const { token } = await writer.acquire(s, 60_000);
    await writer.append(s, token, [created(s.responseId)]);
    const got = collect(reader as FollowableEventLog, s, 2);
    await writer.append(s, token, [delta(1), completed(s.responseId, 2)]);
    await got.done;
    expect(got.seqs).toEqual([0, 1, 2]);
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
  expect(await refusedTo(redis.admin, 'sub-ok')).toEqual([]);

  const bare = await aclUser(redis.admin, redis.server.port, 'sub-bare');
  const log = redisEventLog({ url: bare, ...SUBSCRIBE });
  try {
    const s = scope();
    const { token } = await log.acquire(s, 60_000);
    const appended = log.append(s, token, [created(s.responseId)]);
    await expect(appended).rejects.toThrow(/SPUBLISH/);
    expect(await reasonOf(appended)).toBe('forbidden');
  } finally {
    await log.close();
  }
});

test('the subscriber connection killed (CLIENT KILL TYPE pubsub) mid-follow, three times: every reader continues exactly', async () => {
  const [writer, reader] = [redisEventLog({ url: redis.server.url, ...SUBSCRIBE }), redisEventLog({ url: redis.server.url, ...SUBSCRIBE })];
  try {
    const streams: { s: LogScope; token: number; got: ReturnType<typeof collect> }[] = [];
    for (let i = 0; i < 10; i++) {
      const s = scope();
      const { token } = await writer.acquire(s, 60_000);
      await writer.append(s, token, [created(s.responseId), ...Array.from({ length: 9 }, (_, k) => delta(k + 1))]);
      streams.push({ s, token, got: collect(reader as FollowableEventLog, s, 40) });
    }
    const subscribed = async (): Promise<boolean> => / ssub=[1-9]/.test(String(await redis.admin.client('LIST')));
    for (let k = 1; k <= 3; k++) {
      for (let i = 0; i < 500 && !(await subscribed()); i++) await sleep(10);
      await redis.admin.client('KILL', 'TYPE', 'pubsub');
      for (const { s, token } of streams) await writer.append(s, token, Array.from({ length: 10 }, (_, j) => delta(k * 10 + j)));
    }
    for (const { s, token } of streams) await writer.append(s, token, [completed(s.responseId, 40)]);
    for (const { got } of streams) {
      await got.done;
      expect(got.seqs).toEqual(Array.from({ length: 41 }, (_, i) => i));
    }
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
});

const calls = (cmd: string): Promise<number> => commandCalls(redis.admin, cmd);

test('100 followers started and ended together: each exact, their SSUBSCRIBEs and SUNSUBSCRIBEs a few commands, not one each', async () => {
  const [writer, reader] = [redisEventLog({ url: redis.server.url, ...SUBSCRIBE }), redisEventLog({ url: redis.server.url, ...SUBSCRIBE })];
  try {
    const streams = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const s = scope();
        const { token } = await writer.acquire(s, 60_000);
        await writer.append(s, token, [created(s.responseId)]);
        return { s, token };
      }),
    );
    const [sub0, unsub0] = [await calls('ssubscribe'), await calls('sunsubscribe')];
    const followed = streams.map(({ s }) => collect(reader as FollowableEventLog, s, 5));
    await Promise.all(streams.map(({ s, token }) => writer.append(s, token, [1, 2, 3, 4].map((k) => delta(k)))));
    // Every append of one turn in one script call: the ends reach the reader together.
    await Promise.all(streams.map(({ s, token }) => writer.append(s, token, [completed(s.responseId, 5)])));
    for (const got of followed) {
      await got.done;
      expect(got.seqs).toEqual([0, 1, 2, 3, 4, 5]);
    }
    for (let i = 0; i < 100 && (await calls('sunsubscribe')) === unsub0; i++) await sleep(10);
    await sleep(100);
    const [subscribes, unsubscribes] = [(await calls('ssubscribe')) - sub0, (await calls('sunsubscribe')) - unsub0];
    expect(subscribes).toBeGreaterThanOrEqual(1);
    expect(subscribes).toBeLessThanOrEqual(10);
    expect(unsubscribes).toBeGreaterThanOrEqual(1);
    expect(unsubscribes).toBeLessThanOrEqual(10);
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
});
