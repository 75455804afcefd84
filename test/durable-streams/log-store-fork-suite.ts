// Forks (spec 4.2) in eventLogStreamStore, run on every log: the stitched reads, soft delete and its cascade, the
// sub-offset, the TTL table; one instance makes a fork, the other reads and deletes it.
import { eventLogStreamStore, type EventLogStreamStoreOptions } from '../../lib/durable-streams/log-store';
import type { CreateRequest, DurableStreamStore } from '../../lib/durable-streams/store';
import { json, post, readAll, type SuiteLogs, uniquePath } from './log-store-suite';

const fork = (source: string, extra: Partial<CreateRequest['config']> = {}, sub = 0, entries: string[] = []): CreateRequest => ({
  config: { contentType: 'application/json', forkedFrom: source, ...extra },
  forkSubOffset: sub,
  closed: false,
  entries,
});

export function describeLogStreamStoreForks(name: string, makeLogs: () => Promise<SuiteLogs>): void {
  describe(`eventLogStreamStore forks on ${name}`, () => {
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

    it("reads the source's entries up to the fork offset, then its own; the source's later appends stay out", async () => {
      const src = uniquePath('src');
      await A.create!(src, json(['1', '2', '3']));
      const f = uniquePath('fork');
      const made = await A.create!(f, fork(src, { forkOffset: '0000000000000002' }, 0, ['"own"']));
      expect(made).toMatchObject({ status: 'created', info: { forkedFrom: src, forkOffset: '0000000000000002', tail: '0000000000000003' } });
      await A.append!(src, post(['4']));
      await B.append!(f, post(['"own2"']));
      expect((await readAll(B, f)).entries).toEqual(['1', '2', '"own"', '"own2"']);
      expect((await readAll(B, f, 1)).entries).toEqual(['1', '2', '"own"', '"own2"']);
      expect(await B.read(f, '0000000000000001', { maxBytes: 100 })).toMatchObject({ entries: ['2', '"own"', '"own2"'], next: '0000000000000004' });
      // A fork of a fork stitches across both sources.
      const ff = uniquePath('fork2');
      await B.create!(ff, fork(f, { forkOffset: '0000000000000003' }));
      expect((await readAll(A, ff)).entries).toEqual(['1', '2', '"own"']);
      // The default fork offset is the source's tail; a second PUT with the same config is idempotent.
      const tailFork = uniquePath('tail-fork');
      expect(await A.create!(tailFork, fork(src))).toMatchObject({ status: 'created', info: { forkOffset: '0000000000000004' } });
      expect(await B.create!(tailFork, fork(src))).toMatchObject({ status: 'exists' });
      expect(await B.create!(tailFork, fork(src, { forkOffset: '0000000000000001' }))).toMatchObject({ status: 'conflict' });
      // The reference server's literal start offset (the conformance suite sends it) names the start here too.
      const zero = uniquePath('zero-fork');
      expect(await A.create!(zero, fork(src, { forkOffset: '0000000000000000_0000000000000000' }))).toMatchObject({ status: 'created', info: { tail: '0000000000000000' } });
      expect(await B.create!(zero, fork(src, { forkOffset: '0000000000000000' }))).toMatchObject({ status: 'exists' });
      expect(await B.create!(uniquePath('f'), fork(src, { forkOffset: '9999999999999999_9999999999999999' }))).toMatchObject({ status: 'bad_request' });
      expect(await B.create!(uniquePath('f'), fork(src, {}, 1))).toMatchObject({ status: 'bad_request' });
    });

    it('refuses a fork of a missing source, past its tail, of another content type', async () => {
      const src = uniquePath('src');
      await A.create!(src, json(['1']));
      expect(await A.create!(uniquePath('f'), fork(uniquePath('none')))).toEqual({ status: 'source_not_found' });
      expect(await A.create!(uniquePath('f'), fork(src, { forkOffset: '0000000000000002' }))).toMatchObject({ status: 'bad_request' });
      expect(await A.create!(uniquePath('f'), fork(src, { forkOffset: 'x' }))).toMatchObject({ status: 'bad_request' });
      expect(await A.create!(uniquePath('f'), fork(src, { contentType: 'text/plain' }))).toMatchObject({ status: 'conflict' });
      expect(await A.create!(uniquePath('f'), fork(src, { contentType: 'application/octet-stream' }))).toMatchObject({ status: 'created', info: { contentType: 'application/json' } });
    });

    it('soft-deletes a source its forks read (410, its path blocked), and cleans it up with the last fork', async () => {
      const src = uniquePath('src');
      await A.create!(src, json(['1', '2']));
      const f1 = uniquePath('f1');
      const f2 = uniquePath('f2');
      await A.create!(f1, fork(src));
      await B.create!(f2, fork(src, { forkOffset: '0000000000000001' }));
      expect(await B.delete!(src)).toEqual({ status: 'deleted' });
      expect(await A.info(src, false)).toEqual({ status: 'gone' });
      expect(await A.read(src, '-1', { maxBytes: 100 })).toEqual({ status: 'gone' });
      expect(await A.append!(src, post(['3']))).toEqual({ status: 'gone' });
      expect(await A.delete!(src)).toEqual({ status: 'gone' });
      expect(await A.create!(src, json())).toMatchObject({ status: 'conflict' });
      expect(await A.create!(uniquePath('f3'), fork(src))).toMatchObject({ status: 'conflict' });
      expect((await readAll(B, f1)).entries).toEqual(['1', '2']);
      expect(await A.delete!(f1)).toEqual({ status: 'deleted' });
      expect(await B.info(src, false)).toEqual({ status: 'gone' });
      expect(await B.delete!(f2)).toEqual({ status: 'deleted' });
      expect(await A.info(src, false)).toEqual({ status: 'not_found' });
      expect(await B.create!(src, json())).toMatchObject({ status: 'created', info: { tail: '0000000000000000' } });
    });

    it('cascades the cleanup up a chain of soft-deleted sources', async () => {
      const a = uniquePath('a');
      const b = uniquePath('b');
      const c = uniquePath('c');
      await A.create!(a, json(['1']));
      await A.create!(b, fork(a));
      await B.create!(c, fork(b));
      expect(await A.delete!(a)).toEqual({ status: 'deleted' });
      expect(await A.delete!(b)).toEqual({ status: 'deleted' });
      expect([await B.info(a, false), await B.info(b, false)]).toEqual([{ status: 'gone' }, { status: 'gone' }]);
      expect((await readAll(B, c)).entries).toEqual(['1']);
      expect(await B.delete!(c)).toEqual({ status: 'deleted' });
      expect([await A.info(a, false), await A.info(b, false)]).toEqual([{ status: 'not_found' }, { status: 'not_found' }]);
    });

    it('inherits a sub-offset past the fork offset: messages of a JSON stream, bytes of another', async () => {
      const src = uniquePath('src');
      await A.create!(src, json(['1', '2', '3']));
      const f = uniquePath('f');
      await A.create!(f, fork(src, { forkOffset: '0000000000000001' }, 1));
      expect((await readAll(B, f)).entries).toEqual(['1', '2']);
      expect(await B.create!(uniquePath('f'), fork(src, { forkOffset: '0000000000000002' }, 2))).toMatchObject({ status: 'bad_request' });
      const bytes = uniquePath('bytes');
      const octets = { contentType: 'application/octet-stream' };
      await A.create!(bytes, { config: octets, forkSubOffset: 0, closed: false, entries: [new TextEncoder().encode('hello'), new TextEncoder().encode('world')] });
      const bf = uniquePath('bf');
      await B.create!(bf, { config: { ...octets, forkedFrom: bytes, forkOffset: '0000000000000001' }, forkSubOffset: 3, closed: false, entries: [] });
      expect((await readAll(A, bf)).entries).toEqual(['hello', 'wor']);
      expect(await B.create!(uniquePath('bf'), { config: { ...octets, forkedFrom: bytes, forkOffset: '0000000000000001' }, forkSubOffset: 6, closed: false, entries: [] })).toMatchObject({ status: 'bad_request' });
    });

    it("follows the TTL table: a fork with no expiry of its own inherits the source's", async () => {
      const ttlSrc = uniquePath('ttl');
      await A.create!(ttlSrc, { ...json(), config: { contentType: 'application/json', ttlSeconds: 60 } });
      const atSrc = uniquePath('at');
      const at = '2100-01-01T00:00:00.000Z';
      await A.create!(atSrc, { ...json(), config: { contentType: 'application/json', expiresAt: at } });
      const make = async (src: string, extra: Partial<CreateRequest['config']> = {}) => {
        const r = await B.create!(uniquePath('f'), fork(src, extra));
        return r.status === 'created' ? { ttlSeconds: r.info.ttlSeconds, expiresAt: r.info.expiresAt } : r.status;
      };
      expect(await make(ttlSrc)).toEqual({ ttlSeconds: 60, expiresAt: undefined });
      expect(await make(ttlSrc, { ttlSeconds: 5 })).toEqual({ ttlSeconds: 5, expiresAt: undefined });
      expect(await make(ttlSrc, { expiresAt: at })).toEqual({ ttlSeconds: undefined, expiresAt: at });
      expect(await make(atSrc)).toEqual({ ttlSeconds: undefined, expiresAt: at });
      expect(await make(atSrc, { ttlSeconds: 7 })).toEqual({ ttlSeconds: 7, expiresAt: undefined });
    });

    it('wakes a fork waiter on its own appends, never on the source', async () => {
      const src = uniquePath('src');
      await A.create!(src, json(['1']));
      const f = uniquePath('f');
      await A.create!(f, fork(src));
      const ac = new AbortController();
      expect(await B.wait(f, '0000000000000000', 10_000, ac.signal)).toBe(true);
      const waiting = B.wait(f, '0000000000000001', 300, ac.signal);
      await A.append!(src, post(['2']));
      expect(await waiting).toBe(false);
      const woken = B.wait(f, '0000000000000001', 10_000, ac.signal);
      await A.append!(f, post(['3']));
      expect(await woken).toBe(true);
    });
  });
}
