// redisEventLog as the least-privilege Redis ACL user of docs/durable-log.md (the line read from that page):
// the EventLog contract suite and the follow suite pass with it, on a single Redis and (the contract) on a
// one-node Cluster, and Redis refuses that user nothing (ACL LOG, checked after every test: a refused INFO of
// ioredis's ready check would show there too). Then, for every command of the line, a user without it gets
// EventLogError('forbidden') naming it, promptly (a timeout could not come before the test's end).
import { Cluster } from 'ioredis';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLogError } from '../../lib/errors';
import type { FollowableEventLog } from '../../lib/log/follow';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { created, delta, describeEventLogContract } from './contract';
import { aclPassword, aclUser, documentedCommands, refusedTo } from './redis-acl';
import { describeRedisFollow } from './redis-follow-suite';
import { type RedisServer, redisForSuite, startRedisServer, xreadBlocked } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const USER = 'openai-rx';
const PREFIX = 'openai-rx:log:'; // the default keyPrefix, which the documented line's key pattern covers
let url: string;
beforeAll(async () => {
  url = await aclUser(redis.admin, redis.server.port, USER);
});

/** Fails the test that just ran if Redis refused the documented user anything (then forgets it). */
async function nothingRefused(name: string): Promise<void> {
  const refused = await refusedTo(redis.admin, name);
  await redis.admin.call('ACL', 'LOG', 'RESET');
  expect(refused).toEqual([]);
}

describe('as the documented user', () => {
  afterEach(() => nothingRefused(USER));

  describeEventLogContract('redisEventLog as the ACL user of docs/durable-log.md', async (limits) => {
    const log = redisEventLog({ url, ...limits });
    return { log, cleanup: () => log.close() };
  });

  describeRedisFollow('the ACL user of docs/durable-log.md', () => ({ url, admin: redis.admin, keyPrefix: PREFIX }));

  test('scripts go by the SHA-1 the log computes: Redis never answered NOSCRIPT', async () => {
    const errors = (await redis.admin.info('errorstats')) as string;
    expect(errors).not.toMatch(/NOSCRIPT/);
    expect(errors).not.toMatch(/NOPERM/);
  });
});

describe('as the documented user, with an ioredis Cluster client (one node owning every slot)', () => {
  let dir: string;
  let node: RedisServer;
  let cluster: Cluster;
  // The Cluster client's own topology refresh, ready check and connection names, and the live reads' sharded
  // pub/sub, as the page says.
  const extra = ['+cluster|slots', '+cluster|info', '+client|setname', '+spublish', '+ssubscribe', '+sunsubscribe', '+ping', `&${PREFIX}*`];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openai-rx-acl-cluster-'));
    node = await startRedisServer({ clusterDir: dir });
    const { Redis } = await import('ioredis');
    const admin = new Redis(node.url);
    try {
      await aclUser(admin, node.port, USER, { extra });
    } finally {
      await admin.quit();
    }
    const redisOptions = { username: USER, password: aclPassword(USER), enableReadyCheck: false };
    cluster = new Cluster([{ host: '127.0.0.1', port: node.port }], { lazyConnect: true, redisOptions });
    await cluster.connect();
  });
  afterAll(async () => {
    await cluster?.quit();
    const { Redis } = await import('ioredis');
    const admin = node && new Redis(node.url);
    try {
      if (admin) expect(await refusedTo(admin, USER)).toEqual([]);
    } finally {
      await admin?.quit();
      await node?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describeEventLogContract('redisEventLog with a Cluster client as the ACL user', async (limits) => {
    const log = redisEventLog({ client: cluster, ...limits });
    return { log, cleanup: () => log.close() };
  });
});

let n = 0;
const scope = (): LogScope => ({ responseId: `resp_acl_${process.pid}_${++n}` });

/** `follow` until its first events or its error. */
function followed(log: EventLog, s: LogScope): { done: Promise<void>; stop: () => void } {
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    stop = (log as FollowableEventLog).follow(s, undefined, { events: () => resolve(), end: () => resolve(), error: reject });
  });
  return { done, stop: () => stop() };
}

/**
 * Every call the log makes, in an order that reaches each command (every script twice: EVAL, then EVALSHA);
 * rejects with the first failure. `writer` leases, writes, reads, waits and cancels; `reader` (another
 * instance: its own tail) follows a quiet stream, then one with events (its tail wakes its own XREAD).
 */
async function everyCall(writer: EventLog, reader: EventLog): Promise<void> {
  const [s, quiet] = [scope(), scope()];
  const { token } = await writer.acquire(s, 60_000);
  await writer.renew(s, token, 60_000);
  await writer.append(s, token, [created(s.responseId)]);
  await writer.append(s, token, [delta(1)]);
  await writer.read(s, undefined);
  await writer.wait(s, 0, 100);
  await writer.state(s);
  const idle = followed(reader, quiet);
  let refused: { e: unknown } | undefined;
  idle.done.catch((e: unknown) => (refused = { e }));
  try {
    await xreadBlocked(redis.admin, () => {
      if (refused) throw refused.e;
    });
    const busy = followed(reader, s);
    try {
      await Promise.race([busy.done, idle.done]);
    } finally {
      busy.stop();
    }
  } finally {
    idle.stop();
  }
  await writer.release(s, token);
  await writer.cancel(s);
  await writer.cancel(scope());
}

/** The EventLogError `p` rejects with (fails when it resolves). */
async function failure(p: Promise<unknown>): Promise<EventLogError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof EventLogError)) throw new Error(`expected an EventLogError, got ${String(e)}`);
  return e;
}

describe('a user the ACL refuses something', () => {
  // Long: a refusal that came as a timeout could not come before the test's own end.
  const slow = { commandTimeoutMs: 120_000 };

  test('the documented user makes every call with nothing refused', async () => {
    const [writer, reader] = [redisEventLog({ url, ...slow }), redisEventLog({ url, ...slow })];
    try {
      await everyCall(writer, reader);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
    await nothingRefused(USER);
  });

  test.each(documentedCommands())('without +%s: EventLogError forbidden naming it, not a timeout', async (command) => {
    const name = `no-${command.replace('|', '-')}`;
    const without = await aclUser(redis.admin, redis.server.port, name, { without: [command] });
    const [writer, reader] = [redisEventLog({ url: without, ...slow }), redisEventLog({ url: without, ...slow })];
    try {
      const e = await failure(everyCall(writer, reader));
      expect(e.reason).toBe('forbidden');
      expect(e.retryable).toBe(false);
      expect(e.message).toContain(`Redis refused ${command.toUpperCase()}`);
      expect(e.message).toContain(`+${command}`);
      expect(e.message).not.toContain(aclPassword(name));
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  test("key patterns that leave out the tail's wake stream: forbidden at the tail's first XREAD (which names it), naming the keys", async () => {
    const name = 'streams-only';
    const narrow = await aclUser(redis.admin, redis.server.port, name, { keys: [`~${PREFIX}{*`] });
    const [writer, reader] = [redisEventLog({ url: narrow, ...slow }), redisEventLog({ url: narrow, ...slow })];
    try {
      const e = await failure(everyCall(writer, reader));
      expect(e.reason).toBe('forbidden');
      expect(e.message).toContain('a key of the log');
      expect(await refusedTo(redis.admin, name)).toContainEqual(expect.stringMatching(/^key openai-rx:log:tail:/));
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  test('a keyPrefix outside the user\'s key patterns: forbidden at the first call, naming the keys', async () => {
    const e = await failure(
      (async () => {
        const log = redisEventLog({ url, keyPrefix: 'elsewhere:', ...slow });
        try {
          await log.acquire(scope(), 60_000);
        } finally {
          await log.close();
        }
      })(),
    );
    expect(e.reason).toBe('forbidden');
    expect(e.message).toContain('~<keyPrefix>*');
    await redis.admin.call('ACL', 'LOG', 'RESET');
  });
});
