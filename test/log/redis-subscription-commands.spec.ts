// The live subscriber's SSUBSCRIBEs and SUNSUBSCRIBEs of one turn, together (lib/log/redis-subscription-commands.ts),
// against a fake connection that records each command: one command per run of one kind on a single Redis, one per
// slot on a Cluster node, in the order asked; each subscribe told its own command's answer; nothing opened to
// unsubscribe. A single Redis and a Cluster with many readers: redis-subscribe.spec.ts, redis-cluster-tail.spec.ts.
import type { Redis } from 'ioredis';
import { subscriptionCommands, type SubscriptionCommandsOptions } from '../../lib/log/redis-subscription-commands';

type Sent = [string, ...string[]];

/** A connection recording each (un)subscribe; a subscribe naming `refuse` fails. */
function fakeRedis(refuse?: string): { redis: Redis; sent: Sent[] } {
  const sent: Sent[] = [];
  const redis = {
    // Corked while the turn's commands are written (so that they leave in one write): recorded as commands are.
    stream: { cork: () => sent.push(['cork']), uncork: () => sent.push(['uncork']) },
    ssubscribe: (...channels: string[]) => {
      sent.push(['ssubscribe', ...channels]);
      return channels.includes(refuse ?? '\0') ? Promise.reject(new Error(`MOVED 1 x:1 (${refuse})`)) : Promise.resolve(channels.length);
    },
    sunsubscribe: (...channels: string[]) => {
      sent.push(['sunsubscribe', ...channels]);
      return Promise.resolve(0);
    },
  } as unknown as Redis;
  return { redis, sent };
}

function commands(redis: Redis, more: Partial<SubscriptionCommandsOptions> = {}) {
  let opened = 0;
  let conn: Promise<Redis> | undefined;
  const c = subscriptionCommands({
    connection: () => (conn ??= (opened++, Promise.resolve(redis))),
    current: () => conn,
    timed: (p) => p,
    ...more,
  });
  return { c, opened: () => opened, open: () => (conn = Promise.resolve(redis)) };
}

const turn = () => new Promise((r) => setImmediate(r));
const settled = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof Error ? e.message : String(e)));

test('a turn of subscribes on a single Redis: one SSUBSCRIBE naming each channel, in order; each told', async () => {
  const { redis, sent } = fakeRedis();
  const { c, opened } = commands(redis);
  const answers = ['a:live', 'b:live', 'c:live'].map((ch) => c.subscribe(ch));
  await Promise.resolve();
  expect(sent).toEqual([]); // after the turn (its promise callbacks too), not before
  expect(await Promise.all(answers.map(settled))).toEqual(['ok', 'ok', 'ok']);
  expect(sent).toEqual([['cork'], ['ssubscribe', 'a:live', 'b:live', 'c:live'], ['uncork']]);
  expect(opened()).toBe(1);
});

test('subscribes and unsubscribes of one turn keep their order: a command per run of one kind', async () => {
  const { redis, sent } = fakeRedis();
  const { c, open } = commands(redis);
  open();
  const first = c.subscribe('a');
  c.unsubscribe('b');
  c.unsubscribe('c');
  const second = c.subscribe('b');
  await Promise.all([first, second]);
  expect(sent).toEqual([['cork'], ['ssubscribe', 'a'], ['sunsubscribe', 'b', 'c'], ['ssubscribe', 'b'], ['uncork']]);
});

test("the promise callbacks of a turn are in its commands; the next turn's get their own", async () => {
  const { redis, sent } = fakeRedis();
  const { c } = commands(redis);
  const chained = Promise.resolve().then(() => c.subscribe('b'));
  await c.subscribe('a');
  await chained;
  await c.subscribe('c');
  expect(sent).toEqual([['cork'], ['ssubscribe', 'a', 'b'], ['uncork'], ['cork'], ['ssubscribe', 'c'], ['uncork']]);
});

test('on a Cluster node: one command per slot, each in the order of its first channel', async () => {
  const { redis, sent } = fakeRedis();
  const slot: Record<string, number> = { a: 7, b: 3, c: 7, d: 3, e: 9 };
  const { c, open } = commands(redis, { slotOf: (ch) => slot[ch]! });
  open();
  await Promise.all(['a', 'b', 'c', 'd', 'e'].map((ch) => c.subscribe(ch)));
  ['e', 'a', 'c'].forEach((ch) => c.unsubscribe(ch));
  await turn();
  // Each turn's commands between a cork and an uncork: one write to the socket.
  expect(sent).toEqual([
    ['cork'], ['ssubscribe', 'a', 'c'], ['ssubscribe', 'b', 'd'], ['ssubscribe', 'e'], ['uncork'],
    ['cork'], ['sunsubscribe', 'e'], ['sunsubscribe', 'a', 'c'], ['uncork'],
  ]);
});

test("a refused command fails the subscribes it carried, and no other slot's", async () => {
  const { redis } = fakeRedis('c');
  const slot: Record<string, number> = { a: 1, b: 2, c: 1 };
  const { c } = commands(redis, { slotOf: (ch) => slot[ch]! });
  const got = await Promise.all(['a', 'b', 'c'].map((ch) => settled(c.subscribe(ch))));
  expect(got).toEqual(['MOVED 1 x:1 (c)', 'ok', 'MOVED 1 x:1 (c)']);
});

test('a connection that cannot be opened fails every subscribe of the turn', async () => {
  const c = subscriptionCommands({ connection: () => Promise.reject(new Error('ECONNREFUSED')), current: () => undefined, timed: (p) => p });
  expect(await Promise.all([settled(c.subscribe('a')), settled(c.subscribe('b'))])).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
});

test('an unsubscribe with no connection opens none and sends nothing', async () => {
  const { redis, sent } = fakeRedis();
  const { c, opened } = commands(redis);
  c.unsubscribe('a');
  await turn();
  expect(opened()).toBe(0);
  expect(sent).toEqual([]);
});

test("the subscribe's answer goes through `timed` (the log's command timeout)", async () => {
  const { redis } = fakeRedis();
  const { c } = commands(redis, { timed: () => Promise.reject(new Error('timed out')) });
  expect(await settled(c.subscribe('a'))).toBe('timed out');
});
