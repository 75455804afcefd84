// The write path of redisEventLog against a real redis-server: the events travel packed (sequence numbers
// joined by ',', JSON joined by '\n') and several streams' appends of one turn share one script call that
// answers only for the ones that failed; the keys' expiry is pushed back on the first events and then only
// once it has come nearer than liveTtlMs less its slack.
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const PREFIX = `append-${process.pid}:`;
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_append_${++n}` });

let log: EventLog;
beforeEach(() => {
  log = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000, ttlMs: 30_000 });
});
afterEach(() => log.close());

test('text with newlines, commas, a "t", quotes, U+2028 and astral characters is stored and read back as it was', async () => {
  const s = scope();
  const texts = ['line one\nline two\r\n', '4,5,6t', '"quoted" \\ back', 'sep\u2028arator\u2029', 'emoji 🦀 and ünïcödé', '\n', ''];
  const events: ResponseStreamEvent[] = [created(s.responseId), ...texts.map((t, i) => delta(i + 1, t)), completed(s.responseId, texts.length + 1)];
  const { token } = await log.acquire(s, 10_000);
  await log.append(s, token, events.slice(0, 3));
  await log.append(s, token, events.slice(3));
  expect(await log.read(s, undefined)).toEqual(events);
  expect((await log.state(s))?.end).toBe('completed');
});

test('a batch that replays stored events stores only the new ones; a terminal event among the replayed ones does not end the stream', async () => {
  const s = scope();
  const { token } = await log.acquire(s, 10_000);
  await log.append(s, token, [created(s.responseId), delta(1), delta(2)]);
  await log.append(s, token, [delta(1), delta(2), delta(3), delta(4)]);
  expect((await log.read(s, undefined)).map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4]);
  // A terminal event at 3 (stored already as 3 is) is skipped with the rest of the replay; 5 is stored after it.
  await log.append(s, token, [completed(s.responseId, 3), delta(5)]);
  expect((await log.state(s))?.end).toBeUndefined();
  await log.append(s, token, [completed(s.responseId, 6), delta(7)]);
  expect((await log.read(s, undefined)).map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect((await log.state(s))?.end).toBe('completed');
});

test('in one turn, a fenced append and a limit fail on their own streams while the others of the same call are stored', async () => {
  const tight = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, maxEvents: 3 });
  try {
    const [a, b, c, d] = [scope(), scope(), scope(), scope()];
    const leases = await Promise.all([a, b, c, d].map((s) => tight.acquire(s, 10_000)));
    const results = await Promise.allSettled([
      tight.append(a, leases[0]!.token, [created(a.responseId), delta(1)]),
      tight.append(b, leases[1]!.token + 1, [created(b.responseId)]), // not the holder's token
      tight.append(c, leases[2]!.token, [created(c.responseId), delta(1), delta(2), delta(3)]), // past maxEvents
      tight.append(d, leases[3]!.token, [created(d.responseId)]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    const reason = (r: PromiseSettledResult<void>) => (r as PromiseRejectedResult).reason as EventLogError;
    expect(reason(results[1]!)).toBeInstanceOf(EventLogError);
    expect([reason(results[1]!).reason, reason(results[1]!).responseId]).toEqual(['fenced', b.responseId]);
    expect([reason(results[2]!).reason, reason(results[2]!).responseId]).toEqual(['limit', c.responseId]);
    expect((await tight.read(a, undefined)).map((e) => e.sequence_number)).toEqual([0, 1]);
    expect(await tight.read(b, undefined)).toEqual([]);
    expect(await tight.read(c, undefined)).toEqual([]);
    expect((await tight.read(d, undefined)).map((e) => e.sequence_number)).toEqual([0]);
  } finally {
    await tight.close();
  }
});

test('the first events give the events key the live expiry; later appends push it back only once it came nearer than liveTtlMs less its slack', async () => {
  const s = scope(); // liveTtlMs 60 s: slack 600 ms
  const keys = redisStreamKeys(PREFIX, s);
  const { token } = await log.acquire(s, 500); // sets the meta key's expiry (the events key does not exist yet)
  await log.append(s, token, [created(s.responseId)]);
  const first = await redis.admin.pttl(keys.events);
  expect(first).toBeGreaterThan(50_000);
  expect(first).toBeLessThanOrEqual(60_000);
  // Recorded as pushed back far ahead (as just now): an append leaves the expiry where it is.
  const [seconds] = await redis.admin.time();
  const now = Number(seconds) * 1000;
  await redis.admin.hset(keys.meta, 'exp', String(now + 60_000 + 3_600_000));
  await redis.admin.pexpire(keys.meta, 40_000);
  await redis.admin.pexpire(keys.events, 40_000);
  await log.append(s, token, [delta(1)]);
  for (const k of [keys.meta, keys.events]) expect(await redis.admin.pttl(k)).toBeLessThanOrEqual(40_000);
  // Recorded as pushed back long ago: the next append pushes both keys back to liveTtlMs.
  await redis.admin.hset(keys.meta, 'exp', String(now));
  await log.append(s, token, [delta(2)]);
  for (const k of [keys.meta, keys.events]) expect(await redis.admin.pttl(k)).toBeGreaterThan(50_000);
  expect(await redis.admin.exists(keys.end)).toBe(0);
  // The terminal event: every key gets ttlMs (30 s here).
  await redis.admin.pexpire(keys.meta, 10_000);
  await log.append(s, token, [completed(s.responseId, 3)]);
  for (const k of [keys.meta, keys.events, keys.end]) {
    const ttl = await redis.admin.pttl(k);
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  }
  expect((await log.read(s, undefined)).map((e) => e.sequence_number)).toEqual([0, 1, 2, 3]);
});

test('an append of one event and one of several store the same meta (digits) and entries, and publish the same lines; an empty append leaves the JSON of the others of its call where they are', async () => {
  const live = redisEventLog({ url: redis.server.url, keyPrefix: PREFIX, liveTtlMs: 60_000, ttlMs: 30_000, liveReads: 'subscribe' });
  const sub = redis.admin.duplicate();
  try {
    for (const l of [log, live]) {
      const [one, many, empty, after] = [scope(), scope(), scope(), scope()];
      const channel = (s: LogScope): string => redisStreamKeys(PREFIX, s).meta.replace(/:meta$/, ':live');
      const heard: string[] = [];
      if (l === live) {
        await sub.ssubscribe(channel(one), channel(many));
        sub.on('smessage', (ch: string, m: string) => heard.push(`${ch === channel(one) ? 'one' : 'many'} ${m}`));
      }
      const t = await Promise.all([one, many, empty, after].map((s) => l.acquire(s, 10_000).then((x) => x.token)));
      // One turn: one call, the empty append between two others.
      await Promise.all([l.append(one, t[0]!, [created(one.responseId)]), l.append(many, t[1]!, [created(many.responseId), delta(1, 'a,b\nc')]), l.append(empty, t[2]!, []), l.append(after, t[3]!, [created(after.responseId)])]);
      await Promise.all([l.append(one, t[0]!, [delta(1, 'a,b\nc')]), l.append(after, t[3]!, [delta(1, 'x')])]);
      await Promise.all([l.append(one, t[0]!, [completed(one.responseId, 2)]), l.append(many, t[1]!, [completed(many.responseId, 2)])]);
      for (const s of [one, many]) expect(await l.read(s, undefined)).toEqual([created(s.responseId), delta(1, 'a,b\nc'), completed(s.responseId, 2)]);
      expect(await l.read(after, undefined)).toEqual([created(after.responseId), delta(1, 'x')]);
      expect(await l.read(empty, undefined)).toEqual([]);
      const meta = async (s: LogScope): Promise<Record<string, string>> => {
        const { holder, until, fence, exp, claim, ...rest } = await redis.admin.hgetall(redisStreamKeys(PREFIX, s).meta);
        for (const v of [holder, until, fence, exp]) expect(v ?? '0').toMatch(/^\d+$/);
        expect(typeof claim).toBe('string');
        return rest;
      };
      const bytes = (events: ResponseStreamEvent[]): string => String(events.reduce((k, e) => k + JSON.stringify(e).length, 0));
      for (const s of [one, many]) expect(await meta(s)).toEqual({ last: '2', count: '3', end: 'completed', bytes: bytes([created(s.responseId), delta(1, 'a,b\nc'), completed(s.responseId, 2)]) });
      expect(await meta(after)).toEqual({ last: '1', count: '2', bytes: bytes([created(after.responseId), delta(1, 'x')]) });
      if (l === live) {
        for (let i = 0; i < 100 && heard.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
        const lines = (who: string): string[] => heard.filter((h) => h.startsWith(`${who} `)).flatMap((h) => h.slice(who.length + 1).split('\n'));
        const expected = (s: LogScope): string[] => [created(s.responseId), delta(1, 'a,b\nc'), completed(s.responseId, 2)].map((e, i) => `${i}-1 e ${JSON.stringify(e)}`);
        expect(lines('one')).toEqual(expected(one));
        expect(lines('many')).toEqual(expected(many));
        await sub.sunsubscribe();
      }
    }
  } finally {
    sub.disconnect();
    await live.close();
  }
});
