// persistTo with an event whose sequence_number is not an integer ≥ 0: the logs cannot place it (Redis keys
// entries by it, the memory log orders by it), and both used to skip it in silence, completing with a gap.
// Now the same on memoryEventLog and redisEventLog (a real redis-server): EventLogError('invalid') naming the
// event's type and its position, raised by the writer before anything reaches the log, with the events
// before it stored and nothing after.
import { from, lastValueFrom, Subject, toArray } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Not placeable: each with how the error shows it. */
const bad: Array<[string, unknown, RegExp]> = [
  ['missing', undefined, /has no sequence_number/],
  ['null', null, /sequence_number of type object/],
  ['a string', '3', /sequence_number of type string/],
  ['negative', -1, /sequence_number -1 /],
  ['fractional', 2.5, /sequence_number 2\.5 /],
  ['unsafe', 1e20, /sequence_number 100000000000000000000 /],
  ['NaN', NaN, /sequence_number NaN /],
];

let n = 0;
describe.each([
  ['memoryEventLog', (): EventLog => memoryEventLog()],
  ['redisEventLog', (): EventLog => redisEventLog({ url: redis.server.url, commandTimeoutMs: 30_000 })],
])('%s: persistTo and an event without a sequence number', (_name, make) => {
  let log: EventLog;
  beforeEach(() => (log = make()));
  afterEach(() => log.close());

  it.each(bad)('%s: EventLogError(invalid) naming the type and position; what came before is stored, nothing after', async (_label, value, shown) => {
    const id = `resp_seq_${process.pid}_${++n}`;
    const scope = { responseId: id };
    const source = new Subject<ResponseStreamEvent>();
    const out = lastValueFrom(source.pipe(persistTo(log), toArray()));
    source.next(created(id));
    source.next(delta(1));
    // Stored before the bad event comes, so that what must stay stored is there whatever the machine's speed.
    for (let i = 0; (await log.read(scope, undefined)).length < 2; i++) {
      if (i > 3000) throw new Error('the first events never reached the log');
      await sleep(10);
    }
    const unplaced = { ...delta(2), sequence_number: value } as unknown as ResponseStreamEvent;
    source.next(unplaced);
    source.next(delta(3));
    source.next(completed(id, 4));
    source.complete();
    const e = await out.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(EventLogError);
    expect(e).toMatchObject({ reason: 'invalid', responseId: id, retryable: false });
    expect((e as Error).message).toContain('event 2 of the stream (type "response.output_text.delta")');
    expect((e as Error).message).toMatch(shown);
    expect(seqs(await log.read(scope, undefined))).toEqual([0, 1]);
    // The writer gave its lease up: the stream is not ended, so a takeover can continue it.
    const state = await log.state(scope);
    expect(state).toMatchObject({ lastSequenceNumber: 1, end: undefined });
  });

  it("in 'continue' mode: onWriteFailed is told once (invalid), every event still passes, the stream completes", async () => {
    const id = `resp_seq_${process.pid}_${++n}`;
    const failed: EventLogError[] = [];
    const events = [created(id), { ...delta(1), sequence_number: undefined } as unknown as ResponseStreamEvent, delta(2), completed(id, 3)];
    const out = await lastValueFrom(from(events).pipe(persistTo(log, { onWriteError: 'continue', onWriteFailed: (e) => failed.push(e) }), toArray()));
    expect(out).toHaveLength(4);
    expect(failed.map((e) => [e.reason, e.responseId])).toEqual([['invalid', id]]);
    expect(failed[0]!.message).toContain('event 1 of the stream');
  });
});

