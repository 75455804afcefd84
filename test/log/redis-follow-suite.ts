// redisEventLog's fast paths on a real redis-server: appends of many streams asked for in one turn go as one
// script call (each append keeping its own result), and fromEventLog takes live events straight from the
// shared XREAD's reply (follow) instead of a read per wake-up; a cancel reaches a following reader through
// the events key itself. Counts come from the server's INFO commandstats, never from timing. Run as the
// default user (redis-follow.spec.ts) and as a least-privilege ACL user (redis-acl.spec.ts).
import type { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { canFollow, type FollowableEventLog, type FollowHandlers } from '../../lib/log/follow';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta, reasonOf } from './contract';

/** Where the suite's logs connect: `url` (its user), an admin client on the same server, and a key prefix to put before its own. */
export interface FollowSuiteTarget {
  readonly url: string;
  readonly admin: Redis;
  readonly keyPrefix: string;
}

let n = 0;
const scope = (): LogScope => ({ responseId: `resp_follow_${process.pid}_${++n}` });
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Registers the follow suite under `name`, its logs connecting to `target()` (read in hooks and tests). */
export function describeRedisFollow(name: string, target: () => FollowSuiteTarget): void {
  describe(`redisEventLog follow and batching: ${name}`, () => {
    let log: EventLog;
    let prefix: string;
    let url: string;
    let admin: Redis;
    beforeEach(() => {
      ({ url, admin } = target());
      prefix = `${target().keyPrefix}follow${++n}:`;
      log = redisEventLog({ url, keyPrefix: prefix });
    });
    afterEach(() => log.close());

    /** Calls of each command so far (INFO commandstats). */
    async function calls(): Promise<Map<string, number>> {
      const info = await admin.info('commandstats');
      return new Map([...info.matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)].map(([, cmd, c]) => [cmd!, Number(c)]));
    }
    const delta_ = (a: Map<string, number>, b: Map<string, number>, ...cmds: string[]) => cmds.reduce((sum, c) => sum + (b.get(c) ?? 0) - (a.get(c) ?? 0), 0);

    test('the appends of several streams asked for in one turn go as one script call, each with its own result', async () => {
      const [a, b, c] = [scope(), scope(), scope()];
      const la = await log.acquire(a, 60_000);
      const lb = await log.acquire(b, 60_000);
      const lc = await log.acquire(c, 60_000);
      await log.append(a, la.token, [created(a.responseId)]); // the scripts are loaded from here on
      const before = await calls();
      const results = await Promise.allSettled([
        log.append(a, la.token, [delta(1), delta(2)]),
        log.append(b, lb.token + 1, [created(b.responseId)]), // not b's token: fenced, alone
        log.append(c, lc.token, [created(c.responseId), delta(1), completed(c.responseId, 2)]),
      ]);
      const after = await calls();
      expect(delta_(before, after, 'evalsha', 'eval')).toBe(1);
      expect(results[0].status).toBe('fulfilled');
      expect(await reasonOf(Promise.reject((results[1] as PromiseRejectedResult).reason))).toBe('fenced');
      expect(((results[1] as PromiseRejectedResult).reason as EventLogError).responseId).toBe(b.responseId);
      expect(results[2].status).toBe('fulfilled');
      expect(seqs(await log.read(a, undefined))).toEqual([0, 1, 2]);
      expect(await log.read(b, undefined)).toEqual([]);
      expect(await log.state(c)).toMatchObject({ lastSequenceNumber: 2, end: 'completed' });
      // Each stream's keys got their own expiry: the ended one its ttl, the live ones theirs.
      for (const k of Object.values(redisStreamKeys(prefix, c))) expect(await admin.pttl(k)).toBeGreaterThan(0);
    });

    test('a limit in one stream of a batch leaves the others of the batch written', async () => {
      await log.close();
      log = redisEventLog({ url: url, keyPrefix: prefix, maxEvents: 2 });
      const [a, b] = [scope(), scope()];
      const la = await log.acquire(a, 60_000);
      const lb = await log.acquire(b, 60_000);
      const [ra, rb] = await Promise.allSettled([log.append(a, la.token, [created(a.responseId), delta(1), delta(2)]), log.append(b, lb.token, [created(b.responseId), delta(1)])]);
      expect(ra.status).toBe('rejected');
      expect(((ra as PromiseRejectedResult).reason as EventLogError).reason).toBe('limit');
      expect(rb.status).toBe('fulfilled');
      expect(await log.read(a, undefined)).toEqual([]);
      expect(seqs(await log.read(b, undefined))).toEqual([0, 1]);
    });

    test('a live stream is tailed from the XREAD replies: every event once, in order, without a read per event', async () => {
      expect(canFollow(log)).toBe(true);
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(s.responseId)]);
      const got = lastValueFrom(fromEventLog(log, s.responseId).pipe(toArray()));
      await sleep(100);
      const before = await calls();
      for (let i = 1; i <= 100; i += 5) {
        await log.append(s, token, [delta(i), delta(i + 1), delta(i + 2), delta(i + 3), delta(i + 4)]);
        await sleep(5);
      }
      await log.append(s, token, [completed(s.responseId, 101)]);
      const events = await got;
      const after = await calls();
      expect(seqs(events)).toEqual(Array.from({ length: 102 }, (_, i) => i));
      // 21 appends; the reader may look at the stream's state and range a few times (a quiet poll), never per event.
      expect(delta_(before, after, 'xrange')).toBeLessThan(5);
    });

    test('two readers of one stream at different cursors, on one instance, each get their events exactly once', async () => {
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(s.responseId), delta(1), delta(2), delta(3)]);
      const all = lastValueFrom(fromEventLog(log, s.responseId).pipe(toArray()));
      const late = lastValueFrom(fromEventLog(log, s.responseId, { startingAfter: 2 }).pipe(toArray()));
      for (let i = 4; i < 40; i++) {
        await log.append(s, token, [delta(i)]);
        if (i % 7 === 0) await sleep(3);
      }
      await log.append(s, token, [completed(s.responseId, 40)]);
      expect(seqs(await all)).toEqual(Array.from({ length: 41 }, (_, i) => i));
      expect(seqs(await late)).toEqual(Array.from({ length: 38 }, (_, i) => i + 3));
    });

    test('a cancel ends a following reader through the events key, long before its next poll', async () => {
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(s.responseId), delta(1)]);
      const got = lastValueFrom(fromEventLog(log, s.responseId, { pollMs: 50_000 }).pipe(toArray()));
      await sleep(100);
      const start = Date.now();
      await log.cancel(s);
      expect(seqs(await got)).toEqual([0, 1]);
      expect(Date.now() - start).toBeLessThan(25_000); // not the 50 s poll
      // The cancel's entry in the events key is not an event: reads skip it.
      expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
      expect(await log.state(s)).toMatchObject({ end: 'cancelled', lastSequenceNumber: 1 });
    });

    test('a reader unsubscribed while following leaves nothing behind (close() right after)', async () => {
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(s.responseId)]);
      const got: ResponseStreamEvent[] = [];
      const sub = fromEventLog(log, s.responseId, { pollMs: 60_000 }).subscribe((e) => got.push(e));
      await sleep(100);
      await log.append(s, token, [delta(1)]);
      for (let i = 0; i < 100 && got.length < 2; i++) await sleep(20);
      sub.unsubscribe();
      await log.append(s, token, [delta(2)]);
      await sleep(50);
      expect(seqs(got)).toEqual([0, 1]);
      // jest's open-handle detection fails the suite if the reader's 60 s timer or the tail were still pending.
    });

    test('a reader started before its stream exists follows it from its first event, without a read per event', async () => {
      const s = scope();
      const got = lastValueFrom(fromEventLog(log, s.responseId, { notFoundTimeoutMs: 30_000 }).pipe(toArray()));
      await sleep(100);
      const before = await calls();
      const { token } = await log.acquire(s, 60_000);
      for (let i = 0; i < 50; i++) {
        await log.append(s, token, [i === 0 ? created(s.responseId) : delta(i)]);
        if (i % 10 === 0) await sleep(5);
      }
      await log.append(s, token, [completed(s.responseId, 50)]);
      expect(seqs(await got)).toEqual(Array.from({ length: 51 }, (_, i) => i));
      expect(delta_(before, await calls(), 'xrange')).toBeLessThan(5);
    });

    test('a followed stream that never starts fails with not_found after notFoundTimeoutMs', async () => {
      const s = scope();
      const start = Date.now();
      const e = await lastValueFrom(fromEventLog(log, s.responseId, { notFoundTimeoutMs: 300, pollMs: 100 })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(EventLogError);
      expect((e as EventLogError).reason).toBe('not_found');
      expect(Date.now() - start).toBeGreaterThanOrEqual(290);
    });

    test('a follow that said it was synced and then stalls is still caught by the reader: every event once, in order, and completion', async () => {
      expect(canFollow(log)).toBe(true);
      const s = scope();
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created(s.responseId)]);
      // The log's own follow, except that after its first news it says "synced" and delivers nothing more.
      const real = log as FollowableEventLog;
      const stalling: FollowableEventLog = Object.assign(Object.create(real) as FollowableEventLog, {
        follow: (sc: LogScope, after: number | undefined, h: FollowHandlers) => {
          let stalled = false;
          return real.follow(sc, after, {
            events: (batch) => {
              if (stalled) return;
              stalled = true;
              h.events(batch);
              h.synced?.(Date.now());
            },
            end: () => undefined,
            error: h.error,
          });
        },
      });
      const got = lastValueFrom(fromEventLog(stalling, s.responseId, { pollMs: 50 }).pipe(toArray()));
      await sleep(100);
      for (let i = 1; i <= 20; i++) await log.append(s, token, [delta(i)]);
      await log.append(s, token, [completed(s.responseId, 21)]);
      expect(seqs(await got)).toEqual(Array.from({ length: 22 }, (_, i) => i));
    });
  });
}
