// persistTo on a stream that does not start with response.created (a resumed one): recorded under the
// `responseId` option; without it, a stream that ends before any response.created is an
// EventLogError('invalid') instead of a completion that claims durability with nothing stored; a lifecycle
// event naming another response than the one recorded is a ResponseMismatchError naming both.
import { from, lastValueFrom, Observable, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { EventLogError, ResponseMismatchError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { fakeLog } from './fake-log';

const ID = 'resp_resumed_1';
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
/** The rest of a stream after sequence number 4: no response.created. */
const rest = (): ResponseStreamEvent[] => [delta(5), delta(6), delta(7), completed(ID, 8)];

async function failure(o: Observable<unknown>): Promise<unknown> {
  try {
    await lastValueFrom(o, { defaultValue: undefined });
  } catch (e) {
    return e;
  }
  throw new Error('expected the stream to fail, it completed');
}

describe('persistTo: a resumed stream (no response.created)', () => {
  it('is recorded under the responseId option, and completes once it is durable', async () => {
    const log = memoryEventLog();
    const out = await lastValueFrom(from(rest()).pipe(persistTo(log, { responseId: ID, owner: 'u' }), toArray()));
    expect(seqs(out)).toEqual([5, 6, 7, 8]);
    expect(seqs(await log.read({ responseId: ID, owner: 'u' }, undefined))).toEqual([5, 6, 7, 8]);
    expect(await log.state({ responseId: ID, owner: 'u' })).toMatchObject({ lastSequenceNumber: 8, end: 'completed', lease: undefined });
    await log.close();
  });

  it('with responseId: the lease is taken at the first event and completion waits for the last append (marble)', () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable, flush }) => {
      const fake = fakeLog({ appendDelay: 3 });
      const [a, b, c] = [delta(5), delta(6), completed(ID, 7)];
      const source = cold('-a-b-c|', { a, b, c });
      expectObservable(source.pipe(persistTo(fake.log, { responseId: ID, maxBatchDelayMs: 1 }))).toBe('-a-b-c--|', { a, b, c });
      flush();
      expect(fake.calls).toEqual(['acquire@1', 'append@2:5', 'append@5:6,7', 'release@8']);
      expect(seqs(fake.stored)).toEqual([5, 6, 7]);
    });
  });

  it('without responseId and without response.created: EventLogError(invalid), not a completion with nothing stored', async () => {
    const log = memoryEventLog();
    const e = await failure(from(rest()).pipe(persistTo(log)));
    expect(e).toBeInstanceOf(EventLogError);
    expect(e).toMatchObject({ reason: 'invalid', retryable: false });
    expect((e as Error).message).toMatch(/without response\.created.*responseId.*nothing was recorded/);
    await log.close();
  });

  it("without responseId, in 'continue' mode: onWriteFailed is told (invalid), the events pass, it completes", async () => {
    const log = memoryEventLog();
    const failed: EventLogError[] = [];
    const out = await lastValueFrom(from(rest()).pipe(persistTo(log, { onWriteError: 'continue', onWriteFailed: (e) => failed.push(e) }), toArray()));
    expect(seqs(out)).toEqual([5, 6, 7, 8]);
    expect(failed.map((e) => e.reason)).toEqual(['invalid']);
    await log.close();
  });

  it('events before a late response.created still wait for it and are recorded under its id', async () => {
    const log = memoryEventLog();
    const early = { type: 'response.queued', sequence_number: 0, response: undefined } as unknown as ResponseStreamEvent;
    const events = [early, { ...created(ID), sequence_number: 1 }, delta(2), completed(ID, 3)];
    await lastValueFrom(from(events).pipe(persistTo(log), toArray()));
    expect(seqs(await log.read({ responseId: ID }, undefined))).toEqual([0, 1, 2, 3]);
    await log.close();
  });

  it('responseId and a response.created of another response: ResponseMismatchError naming both, nothing stored', async () => {
    const log = memoryEventLog();
    const other = 'resp_other_2';
    const e = await failure(from([created(other), delta(1), completed(other, 2)]).pipe(persistTo(log, { responseId: ID })));
    expect(e).toBeInstanceOf(ResponseMismatchError);
    expect(e).toMatchObject({ expectedResponseId: ID, receivedResponseId: other, eventType: 'response.created' });
    expect((e as Error).message).toContain(ID);
    expect((e as Error).message).toContain(other);
    expect(await log.state({ responseId: ID })).toBeUndefined();
    expect(await log.state({ responseId: other })).toBeUndefined();
    await log.close();
  });

  it("a mismatch ends the stream in 'continue' mode too: another answer is not a log failure", async () => {
    const log = memoryEventLog();
    const failed: EventLogError[] = [];
    const e = await failure(from([delta(5), completed('resp_other_3', 6)]).pipe(persistTo(log, { responseId: ID, onWriteError: 'continue', onWriteFailed: (x) => failed.push(x) })));
    expect(e).toMatchObject({ expectedResponseId: ID, receivedResponseId: 'resp_other_3', eventType: 'response.completed' });
    expect(failed).toEqual([]);
    await log.close();
  });

  it('responseId and a response.created with the same id: recorded as usual', async () => {
    const log = memoryEventLog();
    await lastValueFrom(from([created(ID), delta(1), completed(ID, 2)]).pipe(persistTo(log, { responseId: ID }), toArray()));
    expect(seqs(await log.read({ responseId: ID }, undefined))).toEqual([0, 1, 2]);
    await log.close();
  });
});
