// The behaviour of eventLogStreamStore, written once and run on every log (log-store*.spec.ts): two store instances on
// one log (as two processes) serve every stream alike.
import type { EventLog } from '../../lib/log/types';
import { eventLogStreamStore, type EventLogStreamStoreOptions } from '../../lib/durable-streams/log-store';
import type { AppendRequest, CreateRequest, DurableStreamStore, ReadBatch } from '../../lib/durable-streams/store';

export interface SuiteLogs {
  /** Two logs on one storage (the same object for the memory log, two clients for Redis). */
  readonly a: EventLog;
  readonly b: EventLog;
  readonly cleanup: () => Promise<void>;
}

let n = 0;
export const uniquePath = (name: string): string => `/v1/stream/${name}-${process.pid}-${Date.now().toString(36)}-${++n}`;

export const json = (entries: string[] = [], extra: Partial<CreateRequest> = {}): CreateRequest => ({
  config: { contentType: 'application/json' },
  forkSubOffset: 0,
  closed: false,
  entries,
  ...extra,
});
export const post = (entries: string[], extra: Partial<AppendRequest> = {}): AppendRequest => ({ contentType: 'application/json', entries, close: false, ...extra });

/** Every entry from the start (as text), following `next` to the end. */
export async function readAll(store: DurableStreamStore, path: string, maxBytes = 1 << 20): Promise<{ entries: string[]; last: ReadBatch }> {
  const entries: string[] = [];
  let offset = '-1';
  for (;;) {
    const r = await store.read(path, offset, { maxBytes });
    if (!('entries' in r)) throw new Error(`read ${path}: ${r.status}`);
    entries.push(...r.entries.map((e) => (typeof e === 'string' ? e : new TextDecoder().decode(e))));
    if (r.upToDate) return { entries, last: r };
    offset = r.next;
  }
}

export function describeLogStreamStore(name: string, makeLogs: () => Promise<SuiteLogs>): void {
  describe(`eventLogStreamStore on ${name}`, () => {
    let logs: SuiteLogs;
    let clock: number | undefined;
    const opts: EventLogStreamStoreOptions = { now: () => clock ?? Date.now() };
    let A: DurableStreamStore;
    let B: DurableStreamStore;
    beforeEach(async () => {
      clock = undefined;
      logs = await makeLogs();
      A = eventLogStreamStore(logs.a, opts);
      B = eventLogStreamStore(logs.b, opts);
    });
    afterEach(() => logs.cleanup());

    it('creates, appends, reads and shows a stream from either instance', async () => {
      const path = uniquePath('basic');
      const c = await A.create!(path, json(['1', '{"a":2}']));
      expect(c).toMatchObject({ status: 'created', info: { contentType: 'application/json', tail: '0000000000000002', closed: false } });
      expect(await B.append!(path, post(['3']))).toEqual({ status: 'appended', tail: '0000000000000003', closed: false });
      const r = await A.read(path, '-1', { maxBytes: 1000 });
      expect(r).toMatchObject({ entries: ['1', '{"a":2}', '3'], next: '0000000000000003', upToDate: true, closed: false });
      expect(await B.read(path, '0000000000000001', { maxBytes: 1000 })).toMatchObject({ entries: ['{"a":2}', '3'], next: '0000000000000003' });
      expect(await B.read(path, 'now', { maxBytes: 1000 })).toMatchObject({ entries: [], next: '0000000000000003', upToDate: true });
      expect(await A.read(path, 'garbage', { maxBytes: 1000 })).toMatchObject({ status: 'bad_request' });
      expect(await B.info(path, false)).toMatchObject({ tail: '0000000000000003', closed: false, id: c.status === 'created' ? c.info.id : '' });
      expect(await A.info(uniquePath('none'), false)).toEqual({ status: 'not_found' });
      expect(await A.append!(uniquePath('none'), post(['1']))).toEqual({ status: 'not_found' });
    });

    it('answers a second PUT with exists when the config matches, conflict otherwise', async () => {
      const path = uniquePath('idem');
      await A.create!(path, json());
      expect(await B.create!(path, json())).toMatchObject({ status: 'exists' });
      expect(await B.create!(path, { ...json(), config: { contentType: 'text/plain' } })).toMatchObject({ status: 'conflict' });
      expect(await B.create!(path, json([], { closed: true }))).toMatchObject({ status: 'conflict' });
      expect(await A.create!(uniquePath('both'), { ...json(), config: { contentType: 'application/json', ttlSeconds: 5, expiresAt: '2100-01-01T00:00:00Z' } })).toMatchObject({ status: 'bad_request' });
    });

    it('keeps bytes streams byte for byte and spends a read budget (the first entry whole)', async () => {
      const path = uniquePath('bytes');
      const big = new Uint8Array(300).map((_, i) => i % 256);
      await A.create!(path, { config: { contentType: 'application/octet-stream' }, forkSubOffset: 0, closed: false, entries: [big] });
      await B.append!(path, { contentType: 'application/octet-stream', entries: [new Uint8Array([1, 2])], close: false });
      expect(await B.append!(path, post(['1']))).toEqual({ status: 'content_type_mismatch' });
      const r = await A.read(path, '-1', { maxBytes: 10 });
      expect(r).toMatchObject({ next: '0000000000000001', upToDate: false });
      expect('entries' in r && r.entries[0]).toEqual(big);
      expect(await A.read(path, '0000000000000001', { maxBytes: 10 })).toMatchObject({ entries: [new Uint8Array([1, 2])], upToDate: true });
    });

    it('closes atomically with the final append, then refuses appends', async () => {
      const path = uniquePath('close');
      await A.create!(path, json(['1']));
      expect(await B.append!(path, post(['2'], { close: true }))).toEqual({ status: 'appended', tail: '0000000000000002', closed: true });
      expect(await A.append!(path, post(['3']))).toEqual({ status: 'closed', tail: '0000000000000002' });
      expect(await A.append!(path, { entries: [], close: true })).toEqual({ status: 'appended', tail: '0000000000000002', closed: true });
      expect(await A.read(path, '-1', { maxBytes: 100 })).toMatchObject({ entries: ['1', '2'], closed: true, upToDate: true });
      expect(await B.info(path, false)).toMatchObject({ closed: true, tail: '0000000000000002' });
      expect(await B.create!(path, json([], { closed: true }))).toMatchObject({ status: 'exists' });
      const empty = uniquePath('created-closed');
      expect(await A.create!(empty, json([], { closed: true }))).toMatchObject({ status: 'created', info: { closed: true, tail: '0000000000000000' } });
    });

    it('wakes a waiter on the other instance at an append or a close, and times out or aborts with false', async () => {
      const path = uniquePath('wait');
      await A.create!(path, json());
      const ac = new AbortController();
      expect(await A.wait(path, '0000000000000000', 50, ac.signal)).toBe(false);
      const woken = B.wait(path, '0000000000000000', 10_000, ac.signal);
      await A.append!(path, post(['1']));
      expect(await woken).toBe(true);
      expect(await B.wait(path, '0000000000000000', 10_000, ac.signal)).toBe(true);
      const closing = B.wait(path, '0000000000000001', 10_000, ac.signal);
      await A.append!(path, { entries: [], close: true });
      expect(await closing).toBe(true);
      const other = uniquePath('wait-abort');
      await A.create!(other, json());
      const aborted = A.wait(other, 'now', 10_000, ac.signal);
      ac.abort();
      expect(await aborted).toBe(false);
    });

    it('applies the idempotent producer rules with state any instance knows', async () => {
      const path = uniquePath('producer');
      await A.create!(path, json());
      const p = (epoch: number, seq: number) => ({ id: 'w1', epoch, seq });
      expect(await A.append!(path, post(['a'], { producer: p(0, 0) }))).toMatchObject({ status: 'appended', producer: { epoch: 0, seq: 0 } });
      expect(await B.append!(path, post(['b'], { producer: p(0, 1) }))).toMatchObject({ status: 'appended', producer: { epoch: 0, seq: 1 } });
      expect(await A.append!(path, post(['b'], { producer: p(0, 1) }))).toMatchObject({ status: 'duplicate', producer: { epoch: 0, seq: 1 } });
      expect(await B.append!(path, post(['x'], { producer: p(0, 5) }))).toEqual({ status: 'producer_seq_gap', expected: 2, received: 5 });
      expect(await A.append!(path, post(['x'], { producer: p(1, 3) }))).toMatchObject({ status: 'bad_request' });
      expect(await A.append!(path, post(['c'], { producer: p(1, 0) }))).toMatchObject({ status: 'appended', producer: { epoch: 1, seq: 0 } });
      expect(await B.append!(path, post(['z'], { producer: p(0, 2) }))).toEqual({ status: 'stale_epoch', epoch: 1 });
      expect(await B.append!(path, post(['n'], { producer: { id: 'new', epoch: 0, seq: 1 } }))).toEqual({ status: 'producer_seq_gap', expected: 0, received: 1 });
      expect((await readAll(B, path)).entries).toEqual(['a', 'b', 'c']);
    });

    it('answers the retry of the closing append as a duplicate, any other append as closed', async () => {
      const path = uniquePath('dup-close');
      await A.create!(path, json());
      const closing = post(['last'], { producer: { id: 'w', epoch: 0, seq: 0 }, close: true });
      expect(await A.append!(path, closing)).toMatchObject({ status: 'appended', closed: true });
      expect(await B.append!(path, closing)).toMatchObject({ status: 'duplicate', closed: true, producer: { epoch: 0, seq: 0 } });
      expect(await B.append!(path, post(['x'], { producer: { id: 'w', epoch: 0, seq: 1 } }))).toMatchObject({ status: 'closed' });
    });

    it('refuses a Stream-Seq that is not above the last one', async () => {
      const path = uniquePath('stream-seq');
      await A.create!(path, json());
      expect(await A.append!(path, post(['1'], { streamSeq: 'b' }))).toMatchObject({ status: 'appended' });
      expect(await B.append!(path, post(['2'], { streamSeq: 'b' }))).toEqual({ status: 'stream_seq_conflict' });
      expect(await B.append!(path, post(['2'], { streamSeq: 'a' }))).toEqual({ status: 'stream_seq_conflict' });
      expect(await B.append!(path, post(['2'], { streamSeq: 'c' }))).toMatchObject({ status: 'appended' });
    });

    it('loses and duplicates nothing when both instances append at once, producers included', async () => {
      const path = uniquePath('race');
      await A.create!(path, json());
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        writes.push(A.append!(path, post([`"a${i}"`])), B.append!(path, post([`"b${i}"`])));
      }
      // A producer's batches sent at once (pipelined) from both instances: each one stored once, in seq order.
      const results = await Promise.all([...writes, ...Array.from({ length: 10 }, (_, i) => (i % 2 ? A : B).append!(path, post([`"p${i}"`], { producer: { id: 'pp', epoch: 0, seq: i } })))]);
      const { entries } = await readAll(A, path);
      expect(entries).toHaveLength(80 + results.slice(80).filter((r) => (r as { status: string }).status === 'appended').length);
      expect(new Set(entries).size).toBe(entries.length);
      for (const who of ['a', 'b']) expect(entries.filter((e) => e.startsWith(`"${who}`))).toEqual(Array.from({ length: 40 }, (_, i) => `"${who}${i}"`));
      const ps = entries.filter((e) => e.startsWith('"p'));
      expect(ps).toEqual(Array.from({ length: ps.length }, (_, i) => `"p${i}"`));
    });

    it('deletes: later reads are not found, a new PUT makes a fresh empty stream', async () => {
      const path = uniquePath('delete');
      await A.create!(path, json(['1']));
      expect(await B.delete!(path)).toEqual({ status: 'deleted' });
      expect(await A.read(path, '-1', { maxBytes: 100 })).toEqual({ status: 'not_found' });
      expect(await A.delete!(path)).toEqual({ status: 'not_found' });
      const again = await A.create!(path, json());
      expect(again).toMatchObject({ status: 'created', info: { tail: '0000000000000000' } });
      expect(await B.read(path, '-1', { maxBytes: 100 })).toMatchObject({ entries: [], upToDate: true });
      expect(await B.append!(path, post(['2']))).toMatchObject({ tail: '0000000000000001' });
    });

    it('expires a stream after its TTL without access, a read or write restarting it, HEAD not', async () => {
      clock = Date.now();
      const path = uniquePath('ttl');
      await A.create!(path, { ...json(), config: { contentType: 'application/json', ttlSeconds: 10 } });
      clock += 8000;
      expect(await B.read(path, '-1', { maxBytes: 100 })).toMatchObject({ upToDate: true });
      clock += 8000; // 16 s after creation, 8 s after the read
      expect(await A.info(path, false)).toMatchObject({ ttlSeconds: 10 });
      clock += 3000; // HEAD did not restart it
      expect(await A.info(path, false)).toEqual({ status: 'not_found' });
      expect(await B.create!(path, json())).toMatchObject({ status: 'created' });
      const dated = uniquePath('expires-at');
      await A.create!(dated, { ...json(), config: { contentType: 'application/json', expiresAt: new Date(clock + 1000).toISOString() } });
      expect(await B.info(dated, true)).not.toHaveProperty('status');
      clock += 1000;
      expect(await B.append!(dated, post(['1']))).toEqual({ status: 'not_found' });
    });
  });
}
