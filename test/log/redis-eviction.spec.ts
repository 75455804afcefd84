// The log looks at Redis's maxmemory-policy at its first use (INFO memory) and warns once when the policy may
// evict its keys (every one has an expiry): against real redis-servers started with --maxmemory-policy.
import type { Redis } from 'ioredis';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { commandCalls } from './outcomes';
import { aclUser, refusedTo } from './redis-acl';
import { type ExtraRedis, startRedisWith } from './redis-server-args';

jest.setTimeout(60_000);

const servers: ExtraRedis[] = [];
const admins: Redis[] = [];
const logs: EventLog[] = [];
afterAll(async () => {
  for (const l of logs) await l.close();
  for (const a of admins) await a.quit();
  for (const s of servers) await s.stop();
});

async function server(policy: string): Promise<{ url: string; port: number; admin: Redis }> {
  const s = await startRedisWith(['--maxmemory-policy', policy]);
  servers.push(s);
  const { Redis } = await import('ioredis');
  const admin = new Redis(s.url, { lazyConnect: true });
  await admin.connect();
  admins.push(admin);
  return { url: s.url, port: s.port, admin };
}

const s: LogScope = { responseId: 'resp_eviction' };
const infoCalls = (admin: Redis): Promise<number> => commandCalls(admin, 'info');

/** A log on `url` used a few times; resolves with what it warned once its INFO was answered (or never sent). */
async function warnings(url: string, admin: Redis, expectInfo: boolean): Promise<string[]> {
  const said: string[] = [];
  const log = redisEventLog({ url, warn: (m) => said.push(m) });
  logs.push(log);
  const before = await infoCalls(admin);
  const { token } = await log.acquire(s, 60_000);
  await log.renew(s, token, 60_000);
  if (expectInfo) {
    // The j-th look counts the admin's own INFOs before it (j of them) besides the log's.
    for (let j = 1; (await infoCalls(admin)) - before - j < 1; j++) {
      if (j > 500) throw new Error('the log sent no INFO');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  // Its reply is read before the replies of the calls after it (one connection).
  await log.state(s);
  await log.release(s, token);
  await log.state(s);
  return said;
}

test('volatile-lru: one warning naming the policy and noeviction', async () => {
  const { url, admin } = await server('volatile-lru');
  const said = await warnings(url, admin, true);
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/maxmemory-policy volatile-lru/);
  expect(said[0]).toMatch(/noeviction/);
});

test('allkeys-lfu warns too; noeviction does not', async () => {
  const lfu = await server('allkeys-lfu');
  expect(await warnings(lfu.url, lfu.admin, true)).toEqual([expect.stringMatching(/allkeys-lfu/)]);
  const none = await server('noeviction');
  expect(await warnings(none.url, none.admin, true)).toEqual([]);
});

test('a named ACL user (no INFO in the documented line) is not made to send one: nothing refused, nothing said', async () => {
  const { url: plain, port, admin } = await server('volatile-lru');
  const url = await aclUser(admin, port, 'eviction');
  expect(url).not.toBe(plain);
  expect(await warnings(url, admin, false)).toEqual([]);
  expect(await refusedTo(admin, 'eviction')).toEqual([]);
});
