// An append's events after its first are stored as one entry under the last one's id, their JSON joined by '\r'
// (lib/log/redis-entries.ts): what each reader makes of such entries, from every cursor, on a real redis-server,
// live reads by XREAD and by SSUBSCRIBE; and the parsing of entries on its own.
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { FollowableEventLog } from '../../lib/log/follow';
import { parseEntries } from '../../lib/log/redis-entries';
import { redisEventLog, redisStreamKeys } from '../../lib/log/redis';
import { MAX_JOINED } from '../../lib/log/redis-scripts';
import type { LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const PREFIX = `entries-${process.pid}:`;
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_entries_${++n}` });
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const json = (seq: number) => JSON.stringify(delta(seq));

describe('parseEntries', () => {
  test('a one-event entry is taken whole; a joined one gives its events after the cursor; entries without e are skipped', () => {
    const entries: [string, string[]][] = [
      ['3-1', ['e', json(3)]],
      ['7-1', ['e', [4, 5, 7].map(json).join('\r')]],
      ['7-3', ['c', '7']],
      ['9-1', ['e', [8, 9].map(json).join('\r')]],
      ['9-2', ['end', 'cancelled']],
    ];
    expect(seqs(parseEntries(entries))).toEqual([3, 4, 5, 7, 8, 9]);
    expect(seqs(parseEntries(entries.slice(1), 4))).toEqual([5, 7, 8, 9]);
    expect(seqs(parseEntries(entries.slice(1), 6))).toEqual([7, 8, 9]);
    expect(seqs(parseEntries(entries.slice(3), 8))).toEqual([9]);
    // At most `max`, the rest not parsed (a line past them is not JSON here).
    const long: [string, string[]][] = [['9-1', ['e', `${[4, 5, 7].map(json).join('\r')}\rnot json`]]];
    expect(seqs(parseEntries(long, 4, 2))).toEqual([5, 7]);
    expect(seqs(parseEntries(entries, -1, 4))).toEqual([3, 4, 5, 7]);
  });

  test('a joined value is not JSON (a reader of an earlier version fails on it, never skips it)', () => {
    expect(() => JSON.parse([4, 5].map(json).join('\r'))).toThrow(SyntaxError);
  });

  test('a line that is not JSON fails the parse (a corrupt entry is never skipped)', () => {
    expect(() => parseEntries([['5-1', ['e', `${json(4)}\rnot json`]]])).toThrow(SyntaxError);
  });
});

describe.each(['xread', 'subscribe'] as const)('redisEventLog (liveReads %s): an append of several events', (liveReads) => {
  let log: FollowableEventLog;
  beforeEach(() => {
    log = redisEventLog({ url: redis.server.url, keyPrefix: `${PREFIX}${liveReads}:`, liveReads }) as FollowableEventLog;
  });
  afterEach(() => log.close());

  /** A stream of `batches` appended in turn (sequence numbers with gaps, as providers send them), and its events. */
  async function written(s: LogScope, batches: number[][], end = true): Promise<ResponseStreamEvent[]> {
    const { token } = await log.acquire(s, 30_000);
    const all: ResponseStreamEvent[] = [];
    for (const [i, b] of batches.entries()) {
      const events = b.map((q, k) => (q === 0 ? created(s.responseId) : end && i === batches.length - 1 && k === b.length - 1 ? completed(s.responseId, q) : delta(q)));
      await log.append(s, token, events);
      all.push(...events);
    }
    return all;
  }

  /** The events a follow from `after` hands over, up to the terminal one. */
  const followed = (s: LogScope, after: number | undefined): Promise<ResponseStreamEvent[]> =>
    new Promise((resolve, reject) => {
      const got: ResponseStreamEvent[] = [];
      const stop = log.follow(s, after, {
        events: (b) => {
          got.push(...b);
          if (got[got.length - 1]?.type === 'response.completed') setImmediate(() => (stop(), resolve(got)));
        },
        end: () => reject(new Error('cancelled')),
        error: reject,
      });
    });

  test('is stored as two entries: its first event, then the others under the last one id', async () => {
    const s = scope();
    await written(s, [[0, 1, 2, 4, 5]]);
    const entries = await redis.admin.xrange(redisStreamKeys(`${PREFIX}${liveReads}:`, s).events, '-', '+');
    expect(entries.map(([id, f]) => [id, f[0], f[1]!.split('\r').length])).toEqual([
      ['0-1', 'e', 1],
      ['5-1', 'e', 4],
    ]);
  });

  test('read and follow from every cursor give exactly the events after it', async () => {
    const s = scope();
    const all = await written(s, [[0, 1, 2, 3], [5, 6], [7], [9, 10, 12]]);
    for (const after of [undefined, ...Array.from({ length: 14 }, (_, i) => i)]) {
      const want = all.filter((e) => after === undefined || e.sequence_number! > after);
      expect(seqs(await log.read(s, after))).toEqual(seqs(want));
      expect(await log.read(s, after)).toEqual(want);
      if (want.length > 0) expect(seqs(await log.read(s, after, 2))).toEqual(seqs(want.slice(0, 2)));
      if (want.length > 0) expect(await log.wait(s, after, 0)).toBe(true);
      if (want.length > 0) expect(seqs(await followed(s, after))).toEqual(seqs(want));
    }
  });

  test('a follower from inside an entry gets the events after its cursor as they are appended, each once', async () => {
    const s = scope();
    const { token } = await log.acquire(s, 30_000);
    await log.append(s, token, [created(s.responseId), delta(1), delta(2), delta(3)]);
    const got = followed(s, 1);
    await log.append(s, token, [delta(4), delta(5), delta(6)]);
    await log.append(s, token, [delta(7), completed(s.responseId, 8)]);
    expect(seqs(await got)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  test('a replay in the middle of a batch is skipped, and the events around it are one entry still', async () => {
    const s = scope();
    const { token } = await log.acquire(s, 30_000);
    await log.append(s, token, [created(s.responseId), delta(1), delta(2)]);
    // 1 and 2 are stored already: out of order here, they are skipped between 3 and 4.
    await log.append(s, token, [delta(3), delta(1), delta(4), delta(2), delta(5), completed(s.responseId, 6)]);
    expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(seqs(await log.read(s, 3))).toEqual([4, 5, 6]);
    expect(seqs(await followed(s, 4))).toEqual([5, 6]);
    const entries = await redis.admin.xrange(redisStreamKeys(`${PREFIX}${liveReads}:`, s).events, '3-0', '+');
    expect(entries.map(([id]) => id)).toEqual(['3-1', '6-1']);
  });
  test('consecutive events go as lo~hi: after the stored, a replay of some, with a terminal one last, and several streams (one empty) in one call', async () => {
    const [a, b, c, d] = [scope(), scope(), scope(), scope()];
    const leases = await Promise.all([a, b, c, d].map((x) => log.acquire(x, 30_000)));
    const [ta, tb, tc, td] = leases.map((l) => l.token) as [number, number, number, number];
    await log.append(a, ta, [created(a.responseId), delta(1), delta(2)]);
    await log.append(b, tb, [created(b.responseId)]);
    // One turn: a replays 1..2 and goes on to a terminal 5; b appends nothing; c is new; d takes a gap.
    await Promise.all([
      log.append(a, ta, [delta(1), delta(2), delta(3), delta(4), completed(a.responseId, 5)]),
      log.append(b, tb, []),
      log.append(c, tc, [created(c.responseId), delta(1), delta(2)]),
      log.append(d, td, [created(d.responseId), delta(2), delta(3)]),
    ]);
    expect(seqs(await log.read(a, undefined))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await log.state(a)).toMatchObject({ lastSequenceNumber: 5, end: 'completed' });
    expect(seqs(await log.read(b, undefined))).toEqual([0]);
    expect(seqs(await log.read(c, undefined))).toEqual([0, 1, 2]);
    expect(seqs(await log.read(d, undefined))).toEqual([0, 2, 3]);
    expect(seqs(await log.read(a, 3))).toEqual([4, 5]);
    const ids = async (x: LogScope) => (await redis.admin.xrange(redisStreamKeys(`${PREFIX}${liveReads}:`, x).events, '-', '+')).map(([id]) => id);
    expect(await ids(a)).toEqual(['0-1', '2-1', '3-1', '5-1']);
    expect(await ids(c)).toEqual(['0-1', '2-1']);
    // The bytes the limit counts: each event's JSON, as before.
    const bytes = await redis.admin.hget(redisStreamKeys(`${PREFIX}${liveReads}:`, a).meta, 'bytes');
    const want = [created(a.responseId), delta(1), delta(2), delta(3), delta(4), completed(a.responseId, 5)].reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(Number(bytes)).toBe(want);
  });
  test(`an entry holds at most ${MAX_JOINED} events: a long append, consecutive or with gaps, is cut, and reads from every cursor`, async () => {
    const [a, b] = [scope(), scope()];
    const la = await log.acquire(a, 30_000);
    const lb = await log.acquire(b, 30_000);
    const n = 2 * MAX_JOINED + 22;
    const run = (s: LogScope, seqOf: (i: number) => number) => [created(s.responseId), ...Array.from({ length: n - 2 }, (_, i) => delta(seqOf(i + 1))), completed(s.responseId, seqOf(n - 1))];
    const ea = run(a, (i) => i);
    const eb = run(b, (i) => (i === 0 ? 0 : 2 * i + 1)); // every other sequence number: the loop, not the range
    await Promise.all([log.append(a, la.token, ea), log.append(b, lb.token, eb)]);
    const ids = async (x: LogScope) => (await redis.admin.xrange(redisStreamKeys(`${PREFIX}${liveReads}:`, x).events, '-', '+')).map(([id, f]) => [id, f[1]!.split('\r').length]);
    const cuts = (seqOf: (i: number) => number) => [
      [`${seqOf(0)}-1`, 1],
      [`${seqOf(MAX_JOINED)}-1`, MAX_JOINED],
      [`${seqOf(2 * MAX_JOINED)}-1`, MAX_JOINED],
      [`${seqOf(n - 1)}-1`, n - 1 - 2 * MAX_JOINED],
    ];
    expect(await ids(a)).toEqual(cuts((i) => i));
    expect(await ids(b)).toEqual(cuts((i) => (i === 0 ? 0 : 2 * i + 1)));
    for (const [s, all] of [[a, ea], [b, eb]] as const) {
      for (let after = 0; after <= all[all.length - 1]!.sequence_number!; after += 7) {
        const want = seqs(all.filter((e) => e.sequence_number! > after));
        expect(seqs(await log.read(s, after))).toEqual(want);
        expect(seqs(await log.read(s, after, 5))).toEqual(want.slice(0, 5));
        if (want.length > 0) expect(seqs(await followed(s, after))).toEqual(want);
      }
    }
    expect(await log.state(a)).toMatchObject({ lastSequenceNumber: n - 1, end: 'completed' });
  });
  test('a follower that is there before a long append gets it live, each event once', async () => {
    const s = scope();
    const { token } = await log.acquire(s, 30_000);
    await log.append(s, token, [created(s.responseId)]);
    const got = followed(s, 0);
    await new Promise((r) => setTimeout(r, 50)); // subscribed (its catch-up done) before the append
    const n = 3 * MAX_JOINED;
    const events = [...Array.from({ length: n - 1 }, (_, i) => delta(i + 1)), completed(s.responseId, n)];
    await log.append(s, token, events);
    expect(seqs(await got)).toEqual(seqs(events));
  });
});
