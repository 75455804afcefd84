// The shared contract suite of `EventLog` (lib/log/types.ts): every implementation (memory, Redis) runs it.
//
//   describeEventLogContract('memoryEventLog', async (limits) => {
//     const log = memoryEventLog({ ...limits });
//     return { log, cleanup: () => log.close() };
//   });
//
// `setup` is called once per test with the per-stream limits that test needs (`undefined` for none): pass
// them on to the log's options. Real timers, small leases where a lapse is needed, and no assertion that
// depends on speed: a lease of L ms is only checked as "held" right after acquiring it with a long L, and as
// "lapsed" after waiting well past a short L.
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { EventLog, Lease, LogScope } from '../../lib/log/types';

export interface ContractLimits {
  readonly maxEvents?: number;
  readonly maxBytes?: number;
}

export type ContractSetup = (limits?: ContractLimits) => Promise<{ log: EventLog; cleanup: () => Promise<void> }>;

const ev = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
const resp = (id: string, status: string) => ({ id, object: 'response', status, output: [] });
export const created = (id: string) => ev({ type: 'response.created', response: resp(id, 'in_progress'), sequence_number: 0 });
export const delta = (n: number, text = `d${n}`) =>
  ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text, logprobs: [], sequence_number: n });
export const completed = (id: string, n: number) => ev({ type: 'response.completed', response: resp(id, 'completed'), sequence_number: n });
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A fresh scope per test, so that implementations sharing a store (one Redis) do not see each other's streams. */
const fresh = (owner?: string): LogScope => {
  const responseId = `resp_contract_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  return owner === undefined ? { responseId } : { responseId, owner };
};

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** The reason of the EventLogError `p` rejects with (fails if it resolves, or rejects with anything else). */
export async function reasonOf(p: Promise<unknown>): Promise<string> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(EventLogError);
  return (e as EventLogError).reason;
}

/** A holder that wrote the stream's first event and whose lease then lapsed: its (now stale) lease. */
export async function lapsedHolder(log: EventLog, s: LogScope): Promise<Lease> {
  // Long while it writes (a busy machine's pause must not lapse it before the append), then a last short renewal.
  const old = await log.acquire(s, 60_000);
  await log.append(s, old.token, [created(s.responseId)]);
  await log.renew(s, old.token, 50);
  for (let i = 0; (await log.state(s))?.lease !== undefined; i++) {
    if (i > 1500) throw new Error('the lease never lapsed');
    await sleep(20);
  }
  return old;
}

async function expectReason(p: Promise<unknown>, reason: EventLogError['reason']): Promise<void> {
  expect(await reasonOf(p)).toBe(reason);
}

/** Runs every rule of the `EventLog` contract against the log `setup` creates. */
export function describeEventLogContract(name: string, setup: ContractSetup): void {
  describe(`EventLog contract: ${name}`, () => {
    let log: EventLog;
    let cleanup: (() => Promise<void>) | undefined;
    const open = async (limits?: ContractLimits): Promise<EventLog> => {
      if (cleanup) await cleanup();
      const made = await setup(limits);
      log = made.log;
      cleanup = made.cleanup;
      return log;
    };
    beforeEach(async () => {
      await open();
    });
    afterEach(async () => {
      const c = cleanup;
      cleanup = undefined;
      await c?.();
    });

    describe('leases', () => {
      test('a stream nobody wrote does not exist', async () => {
        const s = fresh();
        expect(await log.state(s)).toBeUndefined();
        expect(await log.read(s, undefined)).toEqual([]);
      });

      test('acquire grants a lease that state shows; a second acquire fails with lease_held (retryable)', async () => {
        const s = fresh();
        const before = Date.now();
        const lease = await log.acquire(s, 60_000);
        expect(typeof lease.token).toBe('number');
        expect(lease.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1000);
        const state = await log.state(s);
        expect(state).toEqual({ lastSequenceNumber: undefined, end: undefined, lease: { token: lease.token, expiresAt: expect.any(Number) } });
        const e = await rejection(log.acquire(s, 60_000));
        expect(e).toBeInstanceOf(EventLogError);
        expect((e as EventLogError).reason).toBe('lease_held');
        expect((e as EventLogError).retryable).toBe(true);
      });

      test('tokens increase across release and re-acquire', async () => {
        const s = fresh();
        const a = await log.acquire(s, 60_000);
        await log.release(s, a.token);
        expect((await log.state(s))?.lease).toBeUndefined();
        const b = await log.acquire(s, 60_000);
        expect(b.token).toBeGreaterThan(a.token);
      });

      test('renew extends the lease; a renew with a stale token fails with fenced', async () => {
        const s = fresh();
        const a = await log.acquire(s, 1000);
        const renewed = await log.renew(s, a.token, 60_000);
        expect(renewed.token).toBe(a.token);
        expect(renewed.expiresAt).toBeGreaterThan(a.expiresAt);
        expect((await log.state(s))?.lease?.expiresAt).toBe(renewed.expiresAt);
        await log.release(s, a.token);
        await expectReason(log.renew(s, a.token, 60_000), 'fenced');
      });

      test('a lapsed lease is taken over with a greater token; the old holder is fenced off', async () => {
        const s = fresh();
        const old = await lapsedHolder(log, s);
        expect((await log.state(s))?.lease).toBeUndefined();
        const next = await log.acquire(s, 60_000);
        expect(next.token).toBeGreaterThan(old.token);
        await expectReason(log.append(s, old.token, [delta(1)]), 'fenced');
        await expectReason(log.renew(s, old.token, 60_000), 'fenced');
        // A stale release is ignored: the new holder keeps its lease.
        await log.release(s, old.token);
        expect((await log.state(s))?.lease?.token).toBe(next.token);
        await log.append(s, next.token, [delta(1)]);
        expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
      });

      test('a released lease can be taken at once', async () => {
        const s = fresh();
        const a = await log.acquire(s, 60_000);
        await log.release(s, a.token);
        const b = await log.acquire(s, 60_000);
        expect((await log.state(s))?.lease?.token).toBe(b.token);
      });
    });

    describe('append and read', () => {
      test('events are stored in order and read after a sequence number, with a limit', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        const events = [created(s.responseId), delta(1), delta(2), delta(3)];
        await log.append(s, token, events.slice(0, 2));
        await log.append(s, token, events.slice(2));
        expect(await log.read(s, undefined)).toEqual(events);
        expect(seqs(await log.read(s, 1))).toEqual([2, 3]);
        expect(seqs(await log.read(s, undefined, 2))).toEqual([0, 1]);
        expect(seqs(await log.read(s, 0, 1))).toEqual([1]);
        expect(await log.read(s, 3)).toEqual([]);
        expect(await log.state(s)).toMatchObject({ lastSequenceNumber: 3, end: undefined });
      });

      test('events at or below the stored last sequence number are skipped (a replay after takeover)', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId), delta(1), delta(2)]);
        await log.append(s, token, [delta(1, 'again'), delta(2, 'again'), delta(3), delta(4)]);
        await log.append(s, token, [delta(4, 'again')]);
        const stored = await log.read(s, undefined);
        expect(seqs(stored)).toEqual([0, 1, 2, 3, 4]);
        expect((stored[1] as { delta?: string }).delta).toBe('d1');
        expect((await log.state(s))?.lastSequenceNumber).toBe(4);
      });

      test('an append with a wrong token stores nothing (all or none) and fails with fenced', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId)]);
        await expectReason(log.append(s, token + 1000, [delta(1), delta(2)]), 'fenced');
        expect(seqs(await log.read(s, undefined))).toEqual([0]);
      });

      test('an append without a lease on a stream nobody leased fails with fenced and creates nothing', async () => {
        const s = fresh();
        await expectReason(log.append(s, 1, [created(s.responseId)]), 'fenced');
        expect(await log.read(s, undefined)).toEqual([]);
      });

      test('an empty append is accepted', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, []);
        expect(await log.read(s, undefined)).toEqual([]);
      });

      test('a terminal event ends the stream as completed', async () => {
        for (const terminal of ['response.completed', 'response.incomplete', 'response.failed', 'error']) {
          const s = fresh();
          const { token } = await log.acquire(s, 60_000);
          const last = terminal === 'error'
            ? ev({ type: 'error', code: 'server_error', message: 'boom', param: null, sequence_number: 2 })
            : ev({ type: terminal, response: resp(s.responseId, 'x'), sequence_number: 2 });
          await log.append(s, token, [created(s.responseId), delta(1), last]);
          expect(await log.state(s)).toMatchObject({ lastSequenceNumber: 2, end: 'completed' });
          expect(seqs(await log.read(s, undefined))).toEqual([0, 1, 2]);
        }
      });
    });

    describe('wait', () => {
      test('resolves true at once when events after `after` are stored, or the stream ended', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId), delta(1)]);
        expect(await log.wait(s, 0, 60_000)).toBe(true);
        expect(await log.wait(s, undefined, 60_000)).toBe(true);
        await log.append(s, token, [completed(s.responseId, 2)]);
        expect(await log.wait(s, 2, 60_000)).toBe(true);
      });

      test('resolves false after the timeout when nothing new arrives', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId)]);
        const start = Date.now();
        expect(await log.wait(s, 0, 100)).toBe(false);
        expect(Date.now() - start).toBeGreaterThanOrEqual(90);
        // On a stream that does not exist yet, too.
        expect(await log.wait(fresh(), undefined, 50)).toBe(false);
      });

      test('resolves true when a later append arrives', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId)]);
        const waiting = log.wait(s, 0, 60_000);
        await sleep(20);
        await log.append(s, token, [delta(1)]);
        expect(await waiting).toBe(true);
      });

      test('resolves true when a stream that did not exist gets its first event', async () => {
        const s = fresh();
        const waiting = log.wait(s, undefined, 60_000);
        await sleep(20);
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId)]);
        expect(await waiting).toBe(true);
      });

      test('resolves true when the stream is cancelled', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId)]);
        const waiting = log.wait(s, 0, 60_000);
        await sleep(20);
        await log.cancel(s);
        expect(await waiting).toBe(true);
      });

      test('an abort settles it long before the timeout (false, or a rejection)', async () => {
        const s = fresh();
        const controller = new AbortController();
        const start = Date.now();
        const waiting = log.wait(s, undefined, 60_000, controller.signal).then((v) => v, () => false);
        await sleep(20);
        controller.abort();
        expect(await waiting).toBe(false);
        expect(Date.now() - start).toBeLessThan(30_000);
        // An already aborted signal, too.
        expect(await log.wait(s, undefined, 60_000, controller.signal).then((v) => v, () => false)).toBe(false);
      });
    });

    describe('owners', () => {
      test("another owner's stream is not found, and the same id under another owner is another stream", async () => {
        const s = fresh('alice');
        const bob: LogScope = { responseId: s.responseId, owner: 'bob' };
        const nobody: LogScope = { responseId: s.responseId };
        const a = await log.acquire(s, 60_000);
        await log.append(s, a.token, [created(s.responseId), delta(1)]);
        expect(await log.state(bob)).toBeUndefined();
        expect(await log.state(nobody)).toBeUndefined();
        expect(await log.read(bob, undefined)).toEqual([]);
        expect(await log.wait(bob, undefined, 50)).toBe(false);
        await expectReason(log.append(bob, a.token, [delta(2)]), 'fenced');
        // Bob's stream of the same id is independent.
        const b = await log.acquire(bob, 60_000);
        await log.append(bob, b.token, [created(s.responseId)]);
        await log.cancel(bob);
        expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
        expect((await log.state(s))?.end).toBeUndefined();
        expect((await log.state(bob))?.end).toBe('cancelled');
      });

      test("owner '' is the default", async () => {
        const s = fresh();
        const a = await log.acquire({ ...s, owner: '' }, 60_000);
        await log.append(s, a.token, [created(s.responseId)]);
        expect(seqs(await log.read({ ...s, owner: '' }, undefined))).toEqual([0]);
      });
    });

    describe('cancel', () => {
      test('ends the stream as cancelled; what was stored stays readable; later appends store nothing', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId), delta(1)]);
        await log.cancel(s);
        expect(await log.state(s)).toMatchObject({ lastSequenceNumber: 1, end: 'cancelled' });
        expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
        await log.append(s, token, [delta(2)]).catch(() => undefined);
        expect(seqs(await log.read(s, undefined))).toEqual([0, 1]);
        expect((await log.state(s))?.end).toBe('cancelled');
      });

      test('a completed stream stays completed', async () => {
        const s = fresh();
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, [created(s.responseId), completed(s.responseId, 1)]);
        await log.cancel(s);
        expect((await log.state(s))?.end).toBe('completed');
      });
    });

    describe('limits', () => {
      test('maxEvents: an append past it fails with limit and stores nothing of its batch', async () => {
        const l = await open({ maxEvents: 3 });
        const s = fresh();
        const { token } = await l.acquire(s, 60_000);
        await expectReason(l.append(s, token, [created(s.responseId), delta(1), delta(2), delta(3)]), 'limit');
        expect(await l.read(s, undefined)).toEqual([]);
        await l.append(s, token, [created(s.responseId), delta(1)]);
        // Skipped duplicates do not count.
        await l.append(s, token, [delta(1), delta(2)]);
        await expectReason(l.append(s, token, [delta(3)]), 'limit');
        expect(seqs(await l.read(s, undefined))).toEqual([0, 1, 2]);
      });

      test('maxBytes: an append past it fails with limit and stores nothing of its batch', async () => {
        const l = await open({ maxBytes: 2000 });
        const s = fresh();
        const { token } = await l.acquire(s, 60_000);
        await l.append(s, token, [created(s.responseId), delta(1, 'x'.repeat(100))]);
        await expectReason(l.append(s, token, [delta(2, 'small'), delta(3, 'y'.repeat(5000))]), 'limit');
        expect(seqs(await l.read(s, undefined))).toEqual([0, 1]);
        await l.append(s, token, [delta(2, 'small')]);
        expect(seqs(await l.read(s, undefined))).toEqual([0, 1, 2]);
      });
    });
  });
}
