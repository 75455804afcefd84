// fromEventLog's `startingAfter` (and an EventLog's own `after`) mean the same on every log: one table of
// inputs, run against memoryEventLog and redisEventLog (a real redis-server). What is not a sequence number is an
// InvalidOptionError naming the option and the value, before the log is read; a valid cursor past the end
// delivers nothing until an event above it is stored, and completes when the stream ends.
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { InvalidOptionError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
const seqs = (events: readonly ResponseStreamEvent[]) => events.map((e) => e.sequence_number);
const all = <T>(o: Observable<T>) => lastValueFrom(o.pipe(toArray()));
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure, got a result');
}

/** Not cursors: each with how the error shows it. */
const invalid: Array<[unknown, string]> = [
  [Infinity, 'Infinity'],
  [-Infinity, '-Infinity'],
  [1e20, '100000000000000000000'],
  [2 ** 53, '9007199254740992'],
  [NaN, 'NaN'],
  [-1, '-1'],
  [-0.5, '-0.5'],
  [2.5, '2.5'],
  [Number.MIN_VALUE, '5e-324'],
  ['3', 'the string "3"'],
  [null, 'null'],
  [true, 'true'],
  [{ valueOf: () => 3 }, 'an object'],
  [3n, 'bigint'],
];

let n = 0;
const fresh = (): LogScope => ({ responseId: `resp_cursor_${process.pid}_${++n}` });

describe.each([
  ['memoryEventLog', (): EventLog => memoryEventLog()],
  ['redisEventLog', (): EventLog => redisEventLog({ url: redis.server.url })],
])('%s', (_name, make) => {
  let log: EventLog;
  beforeEach(() => {
    log = make();
  });
  afterEach(async () => {
    await log.close();
  });

  /** A stream holding created, 1, 2, 3 and (when `finished`) the terminal event 4. */
  async function stream(finished: boolean): Promise<{ s: LogScope; token: number }> {
    const s = fresh();
    const { token } = await log.acquire(s, 60_000);
    await log.append(s, token, [created(s.responseId), delta(1), delta(2), delta(3), ...(finished ? [completed(s.responseId, 4)] : [])]);
    return { s, token };
  }

  test.each(invalid)('fromEventLog startingAfter %p: InvalidOptionError naming it', async (value, shown) => {
    const { s } = await stream(true);
    const e = await failure(all(fromEventLog(log, s.responseId, { startingAfter: value as number, notFoundTimeoutMs: 60_000 })));
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect(e).toMatchObject({ option: 'startingAfter', code: 'invalid_option', retryable: false });
    expect((e as Error).message).toBe(`startingAfter: expected a sequence number (an integer ≥ 0), got ${shown}`);
  });

  test.each(invalid)('read and wait with after %p: InvalidOptionError naming it', async (value, shown) => {
    const { s } = await stream(true);
    for (const p of [log.read(s, value as number), log.wait(s, value as number, 60_000)]) {
      const e = await failure(p);
      expect(e).toBeInstanceOf(InvalidOptionError);
      expect((e as Error).message).toBe(`after: expected a sequence number (an integer ≥ 0), got ${shown}`);
    }
  });

  test('the log still serves every other reader after the invalid ones', async () => {
    const { s } = await stream(true);
    await Promise.all(invalid.map(([v]) => failure(all(fromEventLog(log, s.responseId, { startingAfter: v as number })))));
    expect(seqs(await all(fromEventLog(log, s.responseId)))).toEqual([0, 1, 2, 3, 4]);
  });

  test.each([
    [undefined, [0, 1, 2, 3, 4]],
    [0, [1, 2, 3, 4]],
    [-0, [1, 2, 3, 4]],
    [3, [4]],
    [4, []],
    [5, []],
    [1e9, []],
    [Number.MAX_SAFE_INTEGER, []],
  ])('a finished stream from startingAfter %p: %p, then completion', async (after, expected) => {
    const { s } = await stream(true);
    expect(seqs(await all(fromEventLog(log, s.responseId, { startingAfter: after })))).toEqual(expected);
  });

  test.each([10, Number.MAX_SAFE_INTEGER])('a cursor (%p) past the end of a live stream: nothing, and completion when the stream ends', async (after) => {
    const { s, token } = await stream(false);
    const reading = all(fromEventLog(log, s.responseId, { startingAfter: after, pollMs: 20 }));
    await log.append(s, token, [delta(4), delta(5), completed(s.responseId, 6)]);
    expect(await reading).toEqual([]);
  });

  test('a cursor just below the next event of a live stream: that event when it is stored', async () => {
    const { s, token } = await stream(false);
    const reading = all(fromEventLog(log, s.responseId, { startingAfter: 4, pollMs: 20 }));
    await log.append(s, token, [delta(4), delta(5), completed(s.responseId, 6)]);
    expect(seqs(await reading)).toEqual([5, 6]);
  });
});
