// eventLogStreamStore and its log: the calls per operation (a steady stream, caches warm), caches that are only
// shortcuts, entries through base64, the log's retention and the keep-alive, a writer that died holding a lease.
import { eventLogStreamStore } from '../../lib/durable-streams/log-store';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { json, post, readAll, uniquePath } from './log-store-suite';

/** `log` with a count of each method's calls. */
function counted(log: EventLog): { log: EventLog; calls: Record<string, number>; reset: () => void } {
  const calls: Record<string, number> = {};
  const wrap = <K extends keyof EventLog>(k: K) =>
    ((...args: unknown[]) => {
      calls[k] = (calls[k] ?? 0) + 1;
      return (log[k] as (...a: unknown[]) => unknown)(...args);
    }) as EventLog[K];
  const keys = ['acquire', 'renew', 'release', 'append', 'read', 'wait', 'state', 'cancel', 'close'] as const;
  const out = Object.fromEntries(keys.map((k) => [k, wrap(k)])) as unknown as EventLog;
  return { log: out, calls, reset: () => keys.forEach((k) => delete calls[k]) };
}

describe('eventLogStreamStore cost', () => {
  const base = memoryEventLog();
  afterAll(() => base.close());

  it('an append: state(dir), acquire, state(data), append, release; a read: state(dir), state(data), read; HEAD: two states', async () => {
    const { log, calls, reset } = counted(base);
    const store = eventLogStreamStore(log);
    const path = uniquePath('cost');
    await store.create!(path, json(['1']));
    await store.append!(path, post(['2'], { producer: { id: 'p', epoch: 0, seq: 0 } }));
    reset();
    await store.append!(path, post(['3'], { producer: { id: 'p', epoch: 0, seq: 1 } }));
    expect(calls).toEqual({ state: 2, acquire: 1, append: 1, release: 1 });
    reset();
    await store.read(path, '0000000000000001', { maxBytes: 1000 });
    expect(calls).toEqual({ state: 2, read: 1 });
    reset();
    await store.info(path, false);
    expect(calls).toEqual({ state: 2 });
  });

  it("reads only the other instance's new events to bring its producer state up to date", async () => {
    const { log, calls, reset } = counted(base);
    const a = eventLogStreamStore(log);
    const b = eventLogStreamStore(log);
    const path = uniquePath('catch-up');
    await a.create!(path, json());
    await b.append!(path, post(['0'], { producer: { id: 'p', epoch: 0, seq: 0 } }));
    for (let i = 1; i < 5; i++) await a.append!(path, post([`${i}`], { producer: { id: 'p', epoch: 0, seq: i } }));
    reset();
    expect(await b.append!(path, post(['5'], { producer: { id: 'p', epoch: 0, seq: 5 } }))).toMatchObject({ status: 'appended' });
    expect(calls.read).toBe(1); // the directory's view is current (no read); the 4 entries after b's cached state: one read
  });

  it('gives the same answers with caches of one entry', async () => {
    const a = eventLogStreamStore(base, { cacheSize: 1 });
    const b = eventLogStreamStore(base, { cacheSize: 1 });
    const paths = [uniquePath('x'), uniquePath('y')];
    for (const p of paths) await a.create!(p, json());
    for (let i = 0; i < 4; i++) {
      for (const p of paths) {
        expect(await (i % 2 ? a : b).append!(p, post([`${i}`], { producer: { id: 'p', epoch: 0, seq: i } }))).toMatchObject({ status: 'appended' });
        expect(await (i % 2 ? b : a).append!(p, post([`${i}`], { producer: { id: 'p', epoch: 0, seq: i } }))).toMatchObject({ status: 'duplicate' });
      }
    }
    for (const p of paths) expect((await readAll(b, p)).entries).toEqual(['0', '1', '2', '3']);
  });
});

describe('eventLogStreamStore entries', () => {
  it('round-trips bytes through base64 with Node Buffer and without (a browser)', () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const b64 = Buffer.from(bytes).toString('base64');
    const check = (m: typeof import('../../lib/durable-streams/log-store-events')) => {
      const e = m.entryEvent(1, bytes);
      expect(e.b64).toBe(b64);
      expect(m.entryOf(e)).toEqual(bytes);
      expect(m.entryOf(m.entryEvent(2, 'text'))).toBe('text');
    };
    check(jest.requireActual('../../lib/durable-streams/log-store-events'));
    const saved = globalThis.Buffer;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      jest.isolateModules(() => check(jest.requireActual('../../lib/durable-streams/log-store-events')));
    } finally {
      globalThis.Buffer = saved;
    }
  });
});

describe('eventLogStreamStore and the log retention', () => {
  it("keeps a stream that is read alive past the log's liveTtlMs; one nobody touches is dropped by the log", async () => {
    const log = memoryEventLog({ liveTtlMs: 400 });
    try {
      const store = eventLogStreamStore(log, { keepAliveMs: 50, leaseMs: 100 });
      const read = uniquePath('read');
      const idle = uniquePath('idle');
      await store.create!(read, json(['1']));
      await store.create!(idle, json(['1']));
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setTimeout(r, 100));
        expect(await store.read(read, '-1', { maxBytes: 100 })).toMatchObject({ entries: ['1'] });
      }
      expect(await store.info(idle, false)).toEqual({ status: 'not_found' });
    } finally {
      await log.close();
    }
  });
});

describe('eventLogStreamStore and a writer that died holding the lease', () => {
  it('waits for the lease to lapse within leaseWaitMs, and rejects with lease_held past it (the handler: 503)', async () => {
    const log = memoryEventLog();
    try {
      const path = uniquePath('dead-holder');
      const created = await eventLogStreamStore(log).create!(path, json(['1']));
      if (created.status !== 'created') throw new Error(created.status);
      const data = { owner: 'durable-streams', responseId: `g:${created.info.id.split('.')[0]}:${path}` };
      await log.acquire(data, 300); // a writer that dies now
      const impatient = eventLogStreamStore(log, { leaseWaitMs: 50 });
      await expect(impatient.append!(path, post(['2']))).rejects.toMatchObject({ name: 'EventLogError', reason: 'lease_held' });
      const patient = eventLogStreamStore(log, { leaseWaitMs: 2000 });
      expect(await patient.append!(path, post(['2']))).toMatchObject({ status: 'appended', tail: '0000000000000002' });
      expect((await readAll(patient, path)).entries).toEqual(['1', '2']);
    } finally {
      await log.close();
    }
  });
});

describe('eventLogStreamStore and a lease that lapses mid-write', () => {
  it('is fenced by the log: the append rejects, nothing of it is stored, the next one goes through', async () => {
    const base = memoryEventLog();
    let slow = false;
    const log: EventLog = {
      ...base,
      state: async (scope) => {
        if (slow && scope.responseId.startsWith('g:')) await new Promise((r) => setTimeout(r, 120));
        return base.state(scope);
      },
    };
    try {
      const store = eventLogStreamStore(log, { leaseMs: 40 });
      const path = uniquePath('fenced');
      await store.create!(path, json(['1']));
      slow = true;
      const lapsing = store.append!(path, post(['2']));
      await new Promise((r) => setTimeout(r, 60));
      expect(await eventLogStreamStore(base).append!(path, post(['3']))).toMatchObject({ status: 'appended', tail: '0000000000000002' });
      await expect(lapsing).rejects.toMatchObject({ name: 'EventLogError', reason: 'fenced' });
      slow = false;
      expect(await store.append!(path, post(['4']))).toMatchObject({ status: 'appended', tail: '0000000000000003' });
      expect((await readAll(store, path)).entries).toEqual(['1', '3', '4']);
    } finally {
      await base.close();
    }
  });
});
