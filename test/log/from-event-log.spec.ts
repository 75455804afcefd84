// fromEventLog over the memory log, with real timers: the log's promises are real, so these are plain async
// tests; every bound is generous (nothing depends on speed), and every test unsubscribes or ends its stream.
import { firstValueFrom, lastValueFrom, Subject, toArray, type Observable } from 'rxjs';
import { EventLogError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog, LogScope } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const all = <T>(o: Observable<T>) => lastValueFrom(o.pipe(toArray()));
async function failure(o: Observable<unknown>): Promise<unknown> {
  try {
    await lastValueFrom(o);
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, the stream completed');
}

let log: EventLog;
const scope: LogScope = { responseId: 'resp_1' };
const stream = [created('resp_1'), delta(1), delta(2), delta(3), completed('resp_1', 4)];

beforeEach(() => {
  log = memoryEventLog();
});
afterEach(async () => {
  await log.close();
});

test('a finished stream: every stored event once, in order, then completion', async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream);
  expect(await all(fromEventLog(log, 'resp_1'))).toEqual(stream);
});

test('startingAfter: only the events after the cursor', async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream);
  expect(seqs(await all(fromEventLog(log, 'resp_1', { startingAfter: 2 })))).toEqual([3, 4]);
  // A cursor at the terminal event: nothing more, completion.
  expect(await all(fromEventLog(log, 'resp_1', { startingAfter: 4 }))).toEqual([]);
});

test('stored, then live: each sequence number exactly once across the seam, with small pages', async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, [created('resp_1'), delta(1), delta(2)]);
  const reading = all(fromEventLog(log, 'resp_1', { pageSize: 2 }));
  for (let n = 3; n < 40; n++) {
    await log.append(scope, token, [delta(n - 1, 'replayed'), delta(n)]); // a replayed event at the seam is skipped by the log
    if (n % 7 === 0) await sleep(5);
  }
  await log.append(scope, token, [completed('resp_1', 40)]);
  const events = await reading;
  expect(seqs(events)).toEqual(Array.from({ length: 41 }, (_, i) => i));
});

test('a stream not started yet is waited for', async () => {
  const reading = all(fromEventLog(log, 'resp_1', { notFoundTimeoutMs: 30_000 }));
  await sleep(30);
  const { token } = await log.acquire(scope, 60_000);
  await sleep(10);
  await log.append(scope, token, stream.slice(0, 2));
  await sleep(10);
  await log.append(scope, token, stream.slice(2));
  expect(await reading).toEqual(stream);
});

test('a stream that never starts fails with EventLogError not_found after notFoundTimeoutMs', async () => {
  const start = Date.now();
  const e = await failure(fromEventLog(log, 'resp_1', { notFoundTimeoutMs: 100 }));
  expect(e).toBeInstanceOf(EventLogError);
  expect((e as EventLogError).reason).toBe('not_found');
  expect(Date.now() - start).toBeGreaterThanOrEqual(90);
});

test("another owner's stream is not found", async () => {
  const { token } = await log.acquire({ responseId: 'resp_1', owner: 'alice' }, 60_000);
  await log.append({ responseId: 'resp_1', owner: 'alice' }, token, stream);
  expect(await all(fromEventLog(log, 'resp_1', { owner: 'alice' }))).toEqual(stream);
  const e = await failure(fromEventLog(log, 'resp_1', { owner: 'bob', notFoundTimeoutMs: 50 }));
  expect((e as EventLogError).reason).toBe('not_found');
});

test('a lapsed producer without upstream ends the reader with StreamInterruptedError (retryable, last sequence number)', async () => {
  // Long while it writes (a busy machine's pause must not lapse it before the append), then a last short renewal.
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream.slice(0, 3));
  await log.renew(scope, token, 200);
  const start = Date.now();
  const e = await failure(fromEventLog(log, 'resp_1'));
  expect(e).toBeInstanceOf(StreamInterruptedError);
  expect((e as StreamInterruptedError).retryable).toBe(true);
  expect((e as StreamInterruptedError).lastSequenceNumber).toBe(2);
  expect((e as StreamInterruptedError).responseId).toBe('resp_1');
  expect(Date.now() - start).toBeLessThan(15_000); // about the lease time, never a hang
});

test('a renewed lease keeps the reader waiting; cancel ends it (completion after the stored events)', async () => {
  // Renewed every 50 ms for twice its length, which lapses only if a busy machine stalls this test for most of a second.
  const LEASE = 1000;
  const { token } = await log.acquire(scope, LEASE);
  await log.append(scope, token, stream.slice(0, 2));
  const got: ResponseStreamEvent[] = [];
  const done = new Promise<void>((resolve, reject) => fromEventLog(log, 'resp_1', { pollMs: 50 }).subscribe({ next: (e) => got.push(e), error: reject, complete: resolve }));
  for (const end = Date.now() + 2 * LEASE; Date.now() < end; ) {
    await sleep(50);
    await log.renew(scope, token, LEASE);
  }
  await log.cancel(scope);
  await done;
  expect(seqs(got)).toEqual([0, 1]);
});

test('unsubscribing stops the waits at once (the log is closed right after, with nothing pending)', async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream.slice(0, 2));
  const got: ResponseStreamEvent[] = [];
  const sub = fromEventLog(log, 'resp_1', { pollMs: 60_000 }).subscribe((e) => got.push(e));
  await sleep(30);
  sub.unsubscribe();
  expect(seqs(got)).toEqual([0, 1]);
  // jest's open-handle detection fails the suite if the 60 s wait's timer were still pending.
});

test('persistTo then fromEventLog: a reader following a live producer sees exactly what it passed on', async () => {
  const source = new Subject<ResponseStreamEvent>();
  const passed = all(source.pipe(persistTo(log, { leaseMs: 5000 })));
  source.next(stream[0]!);
  const read = all(fromEventLog(log, 'resp_1'));
  for (const e of stream.slice(1)) {
    await sleep(5);
    source.next(e);
  }
  source.complete();
  expect(await passed).toEqual(stream);
  expect(await read).toEqual(stream);
  expect(await log.state(scope)).toEqual({ lastSequenceNumber: 4, end: 'completed', lease: undefined });
});

test('persistTo completes only once the stream is durable', async () => {
  const source = new Subject<ResponseStreamEvent>();
  const done = firstValueFrom(source.pipe(persistTo(log), toArray()));
  for (const e of stream) source.next(e);
  source.complete();
  await done;
  expect(seqs(await log.read(scope, undefined))).toEqual([0, 1, 2, 3, 4]);
});

test('a reader that finds the log behind what it delivered (events lost, e.g. in a failover) ends with EventLogError lost, never a gap or a repeat', async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream.slice(0, 4));
  // The log as it looks after losing its last two events: its state says so (a wait/read log: no follow).
  let lostAfter: number | undefined;
  const shrinking: EventLog = {
    ...log,
    state: async (s) => {
      const st = await log.state(s);
      return st === undefined || lostAfter === undefined ? st : { ...st, lastSequenceNumber: lostAfter };
    },
  };
  const got: ResponseStreamEvent[] = [];
  const done = new Promise<unknown>((resolve) => fromEventLog(shrinking, 'resp_1', { pollMs: 50 }).subscribe({ next: (e) => got.push(e), error: resolve, complete: () => resolve(undefined) }));
  for (let i = 0; i < 200 && got.length < 4; i++) await sleep(10);
  lostAfter = 1;
  const e = await done;
  expect(seqs(got)).toEqual([0, 1, 2, 3]);
  expect(e).toBeInstanceOf(EventLogError);
  expect((e as EventLogError).reason).toBe('lost');
  expect((e as EventLogError).responseId).toBe('resp_1');
  expect((e as EventLogError).message).toMatch(/sequence_number 1\b.*\b3 was already delivered/);
});

test("startingAfter past the stream's end is no loss: the reader waits for the events above it", async () => {
  const { token } = await log.acquire(scope, 60_000);
  await log.append(scope, token, stream.slice(0, 2));
  const reading = all(fromEventLog(log, 'resp_1', { startingAfter: 3, pollMs: 20 }));
  await sleep(100);
  await log.append(scope, token, stream.slice(2));
  expect(seqs(await reading)).toEqual([4]);
});
