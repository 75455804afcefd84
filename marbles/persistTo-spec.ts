import { asyncScheduler } from 'rxjs';
import { EventLogError, StreamInterruptedError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import { persistTo } from '../operators/persistTo';
import { marbleScheduler } from '../test/helpers/marbles';
import { fakeLog } from '../test/log/fake-log';

const resp = (status: string) => ({ id: 'resp_1', object: 'response', status, output: [] });
const ev = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
const created = ev({ type: 'response.created', response: resp('in_progress'), sequence_number: 0 });
const delta = (n: number) => ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: `d${n}`, logprobs: [], sequence_number: n });
const completed = (n: number) => ev({ type: 'response.completed', response: resp('completed'), sequence_number: n });
const values = { a: created, b: delta(1), c: delta(2), d: delta(3), e: completed(4) };

describe('persistTo', () => {
  test('events pass at once; completion waits for the last acknowledged append; the lease is released then', () => {
    const f = fakeLog({ appendDelay: 3 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      // a at 1: acquired at 1, sent at 2 (maxBatchDelayMs 1), acked at 5. b (3) and c (5) queue meanwhile and go together at 5, acked at 8.
      expectObservable(cold('-a-b-c|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 1 }))).toBe('-a-b-c--|', values);
      flush();
      expect(f.calls).toEqual(['acquire@1', 'append@2:0', 'append@5:1,2', 'release@8']);
      expect(f.stored.map((e) => e.sequence_number)).toEqual([0, 1, 2]);
    });
  });

  test('under load several events go in one round trip; a lone event waits maxBatchDelayMs at most', () => {
    const f = fakeLog({ appendDelay: 10 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('a 20ms (bcd) 20ms e|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 2 }))).toBe('a 20ms (bcd) 20ms e 10ms |', values);
      flush();
      // a at 0 → sent at 2; b c d at 21 → sent together at 23; e at 45 → sent at 47, acked at 57; completion at 57.
      expect(f.calls).toEqual(['acquire@0', 'append@2:0', 'append@23:1,2,3', 'append@47:4', 'release@57']);
    });
  });

  test('by default a lone event goes at the end of its turn, with the events of that turn; no timer per stream', () => {
    const f = fakeLog({ appendDelay: 3 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('a 9ms (bc) 9ms d 9ms e|', values).pipe(persistTo(f.log))).toBe('a 9ms (bc) 9ms d 9ms e 2ms |', values);
      flush();
      // a, (b c) and d each go in the frame they came in (b and c together); nothing is in flight when they come.
      // (a group takes as many frames as it has characters: d comes at 23, e at 33.)
      expect(f.calls).toEqual(['acquire@0', 'append@0:0', 'append@10:1,2', 'append@23:3', 'append@33:4', 'release@36']);
    });
  });

  test('a source error waits for the pending writes, then passes through', () => {
    const f = fakeLog({ appendDelay: 3 });
    const cut = new StreamInterruptedError('resp_1', 1);
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('-a-b#', values, cut).pipe(persistTo(f.log, { maxBatchDelayMs: 1 }))).toBe('-a-b----#', values, cut);
      flush();
      expect(f.calls).toEqual(['acquire@1', 'append@2:0', 'append@5:1', 'release@8']);
    });
  });

  test('a failed write ends the stream with its EventLogError and unsubscribes the source', () => {
    const boom = new EventLogError('fenced', 'token 1 does not hold the lease', 'resp_1');
    const f = fakeLog({ appendDelay: 3, failAppend: { call: 2, error: boom } });
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const src = cold('-a-b-c-d-e|', values);
      // The second append (b and c, sent at 5) fails at 8; d (7) has passed already.
      expectObservable(src.pipe(persistTo(f.log, { maxBatchDelayMs: 1 }))).toBe('-a-b-c-d#', values, boom);
      expectSubscriptions(src.subscriptions).toBe('^-------!');
      flush();
      expect(f.calls).toEqual(['acquire@1', 'append@2:0', 'append@5:1,2', 'release@8']);
    });
  });

  test('an error that is not an EventLogError becomes EventLogError unavailable', () => {
    const f = fakeLog({ appendDelay: 2, failAppend: { call: 1, error: new Error('ECONNRESET') } });
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-c|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 0 }))).toBe('-a-(b#)', values, new EventLogError('unavailable', 'ECONNRESET', 'resp_1'));
    });
  });

  test("onWriteError 'continue': the events go on without durability and complete with the source", () => {
    const boom = new EventLogError('unavailable', 'store down', 'resp_1');
    const f = fakeLog({ appendDelay: 3, failAppend: { call: 1, error: boom } });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('-a-b-c-d|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 1, onWriteError: 'continue' }))).toBe('-a-b-c-d|', values);
      flush();
      expect(f.calls).toEqual(['acquire@1', 'append@2:0', 'release@5']);
    });
  });

  test("onWriteFailed is told of the failure once, at its frame, in 'continue' mode (and in 'error' mode, before the error)", () => {
    const boom = new EventLogError('unavailable', 'store down', 'resp_1');
    for (const mode of ['continue', 'error'] as const) {
      const f = fakeLog({ appendDelay: 3, failAppend: { call: 1, error: boom } });
      const told: Array<[number, EventLogError]> = [];
      marbleScheduler().run(({ cold, expectObservable, flush }) => {
        const onWriteFailed = (e: EventLogError): void => void told.push([asyncScheduler.now(), e]);
        const out = cold('-a-b-c-d|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 1, onWriteError: mode, onWriteFailed }));
        if (mode === 'continue') expectObservable(out).toBe('-a-b-c-d|', values);
        else expectObservable(out).toBe('-a-b-(c#)', values, boom);
        flush();
        expect(told).toEqual([[5, boom]]);
      });
    }
  });

  test("'continue' with the source already complete: completion comes with the failure", () => {
    const boom = new EventLogError('unavailable', 'store down', 'resp_1');
    const f = fakeLog({ appendDelay: 5, failAppend: { call: 1, error: boom } });
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 0, onWriteError: 'continue' }))).toBe('-a----|', values);
    });
  });

  test('more than maxPending queued events end the stream with EventLogError limit', () => {
    const f = fakeLog({ appendDelay: 100 });
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c-d-e|', values).pipe(persistTo(f.log, { maxBatchDelayMs: 0, maxPending: 2 }))).toBe(
        'a-b-c-(d#)', values, new EventLogError('limit', 'more than 2 events wait for the log (maxPending)', 'resp_1'));
    });
  });

  test('the lease is renewed every third of leaseMs while streaming', () => {
    const f = fakeLog({ appendDelay: 1 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('a 34ms e|', values).pipe(persistTo(f.log, { leaseMs: 30, maxBatchDelayMs: 0 }))).toBe('a 34ms e|', values);
      flush();
      expect(f.calls.filter((c) => c.startsWith('renew'))).toEqual(['renew@10', 'renew@20', 'renew@30']);
      expect(f.calls.at(-1)).toBe('release@36');
    });
  });

  test('a renewal still unanswered when the next is due: that one is skipped, the one after goes on time', () => {
    const f = fakeLog({ appendDelay: 1, leaseDelay: 15 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('a 60ms e|', values).pipe(persistTo(f.log, { leaseMs: 30, maxBatchDelayMs: 0 }))).toBe('a 60ms e|', values);
      flush();
      // Granted at 15: renewals due at 25, 35, 45, 55; each answered 15 later, so the ones at 35 and 55 are skipped.
      expect(f.calls.filter((c) => c.startsWith('renew'))).toEqual(['renew@25', 'renew@45']);
      expect(f.calls.at(-1)).toBe('release@62');
    });
  });

  test('unsubscribing releases the lease and stops the renewals', () => {
    const f = fakeLog({ appendDelay: 1 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('a-b-c 50ms e|', values).pipe(persistTo(f.log, { leaseMs: 30, maxBatchDelayMs: 0 })), '^ 14ms !').toBe('a-b-c', values);
      flush();
      expect(f.calls).toEqual(['acquire@0', 'append@0:0', 'append@2:1', 'append@4:2', 'renew@10', 'release@15']);
    });
  });

  test('a lease held by another producer ends the stream with lease_held', () => {
    const held = new EventLogError('lease_held', 'another producer holds the lease', 'resp_1');
    const f = fakeLog({ leaseDelay: 2, failAcquire: held });
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-c|', values).pipe(persistTo(f.log))).toBe('-a-(b#)', values, held);
    });
  });

  test('events before response.created are written once the id is known; a stream without one fails (invalid), nothing written', () => {
    const f = fakeLog({ appendDelay: 1 });
    const early = ev({ type: 'response.queued', response: resp('queued'), sequence_number: 0 });
    const later = ev({ ...created, sequence_number: 1 });
    marbleScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(cold('-q-a|', { q: early, a: later }).pipe(persistTo(f.log, { maxBatchDelayMs: 0 }))).toBe('-q-a|', { q: early, a: later });
      // Completing would claim the stream durable: it ends with EventLogError('invalid') instead (issue 25).
      const invalid = new EventLogError('invalid', 'the stream ended after 2 events without response.created and without the responseId option: nothing was recorded');
      expectObservable(cold('-b-c|', values).pipe(persistTo(f.log))).toBe('-b-c#', values, invalid);
      flush();
      expect(f.calls).toEqual(['acquire@3', 'append@3:0,1', 'release@4']);
    });
  });
});
