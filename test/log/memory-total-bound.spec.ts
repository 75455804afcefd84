// The memory log's bound over all its streams (maxTotalBytes): past it, ended streams go first, the earliest ended
// first, as their TTL would have taken them later; live streams are never dropped for room, and an append the live
// streams alone cannot fit fails with EventLogError('limit'). What expiry and close() let go is room again.
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog, LogScope } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { collect, sleep } from './takeover-helpers';

jest.setTimeout(30_000);

/** The bytes the log charges for these events: their JSON, UTF-8. */
const bytesOf = (events: readonly ResponseStreamEvent[]): number => events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
const body = (id: string, deltas: number): ResponseStreamEvent[] => [created(id), ...Array.from({ length: deltas }, (_, i) => delta(i + 1, `${id}-${'é'.repeat(20)}-${i}`))];
const whole = (id: string, deltas: number): ResponseStreamEvent[] => [...body(id, deltas), completed(id, deltas + 1)];
const scope = (id: string): LogScope => ({ responseId: id, owner: 'tenant' });

async function write(log: EventLog, id: string, events: readonly ResponseStreamEvent[]): Promise<number> {
  const { token } = await log.acquire(scope(id), 60_000);
  await log.append(scope(id), token, events);
  return token;
}

describe('memoryEventLog: maxTotalBytes', () => {
  test('an append past the bound drops ended streams, the earliest ended first, and only as many as it needs', async () => {
    const size = bytesOf(whole('resp_a', 8)); // every stream here is the same size
    const log = memoryEventLog({ maxTotalBytes: 3 * size });
    try {
      // Ended in the order b, a, c (not the order they began).
      const ta = await write(log, 'resp_a', body('resp_a', 8));
      await write(log, 'resp_b', whole('resp_b', 8));
      await log.append(scope('resp_a'), ta, [completed('resp_a', 9)]);
      await write(log, 'resp_c', whole('resp_c', 8));
      // Full: a fourth stream's first append makes room by dropping b alone.
      const d = whole('resp_d', 12); // past one stream's size: its rest cannot fit beside a and c
      const td = await write(log, 'resp_d', d.slice(0, 5));
      expect(await log.state(scope('resp_b'))).toBeUndefined();
      expect(await log.read(scope('resp_b'), undefined)).toEqual([]);
      expect(await log.read(scope('resp_a'), undefined)).toEqual(whole('resp_a', 8));
      expect(await log.read(scope('resp_c'), undefined)).toEqual(whole('resp_c', 8));
      // Its next append needs more: then a goes, c stays.
      await log.append(scope('resp_d'), td, d.slice(5));
      expect(await log.state(scope('resp_a'))).toBeUndefined();
      expect(await log.read(scope('resp_c'), undefined)).toEqual(whole('resp_c', 8));
      expect(await log.read(scope('resp_d'), undefined)).toEqual(d);
      // A reader of a dropped stream meets what it meets after the TTL: not_found.
      const r = await collect(fromEventLog(log, 'resp_b', { owner: 'tenant', notFoundTimeoutMs: 100 }));
      expect(r.events).toEqual([]);
      expect((r.error as EventLogError).reason).toBe('not_found');
    } finally {
      await log.close();
    }
  });

  test('live streams are never dropped for room: the append that does not fit fails with limit, stores nothing, and fits once a stream has ended', async () => {
    const size = bytesOf(body('resp_a', 8));
    const bound = 2 * size + bytesOf([completed('resp_a', 9)]); // room for a's end, not for c
    const log = memoryEventLog({ maxTotalBytes: bound });
    try {
      const ta = await write(log, 'resp_a', body('resp_a', 8));
      await write(log, 'resp_b', body('resp_b', 8));
      const { token: tc } = await log.acquire(scope('resp_c'), 60_000);
      const refused = await log.append(scope('resp_c'), tc, body('resp_c', 8)).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(EventLogError);
      expect((refused as EventLogError).reason).toBe('limit');
      expect((refused as EventLogError).responseId).toBe('resp_c');
      expect((refused as EventLogError).message).toContain(`maxTotalBytes ${bound}`);
      // All or none: nothing of c is stored, and the live streams are whole.
      expect(await log.read(scope('resp_c'), undefined)).toEqual([]);
      expect(await log.read(scope('resp_a'), undefined)).toEqual(body('resp_a', 8));
      expect(await log.read(scope('resp_b'), undefined)).toEqual(body('resp_b', 8));
      // Once a has ended it may go: c's append now fits.
      await log.append(scope('resp_a'), ta, [completed('resp_a', 9)]);
      await log.append(scope('resp_c'), tc, body('resp_c', 8));
      expect(await log.read(scope('resp_c'), undefined)).toEqual(body('resp_c', 8));
      expect(await log.state(scope('resp_a'))).toBeUndefined();
      expect(await log.read(scope('resp_b'), undefined)).toEqual(body('resp_b', 8));
    } finally {
      await log.close();
    }
  });

  test('what a live stream held is room again once it expires (liveTtlMs), though nothing ended was there to drop', async () => {
    const size = bytesOf(body('resp_a', 8));
    const log = memoryEventLog({ maxTotalBytes: size + 10, liveTtlMs: 300 });
    try {
      const { token } = await log.acquire(scope('resp_a'), 100);
      await log.append(scope('resp_a'), token, body('resp_a', 8));
      const deadline = Date.now() + 20_000;
      while ((await log.state(scope('resp_a'))) !== undefined && Date.now() < deadline) await sleep(25);
      expect(await log.state(scope('resp_a'))).toBeUndefined();
      await write(log, 'resp_b', body('resp_b', 8));
      expect(await log.read(scope('resp_b'), undefined)).toEqual(body('resp_b', 8));
    } finally {
      await log.close();
    }
  });

  test('a cancelled stream counts as ended: it is dropped for room like a completed one', async () => {
    const size = bytesOf(body('resp_a', 8));
    const log = memoryEventLog({ maxTotalBytes: size + 10 });
    try {
      await write(log, 'resp_a', body('resp_a', 8));
      await log.cancel(scope('resp_a'));
      await write(log, 'resp_b', body('resp_b', 8));
      expect(await log.state(scope('resp_a'))).toBeUndefined();
      expect(await log.read(scope('resp_b'), undefined)).toEqual(body('resp_b', 8));
    } finally {
      await log.close();
    }
  });

  test.each([-1, Number.NaN, '1' as unknown as number])('maxTotalBytes %p is refused where the log is made', (bad) => {
    expect(() => memoryEventLog({ maxTotalBytes: bad })).toThrow(/maxTotalBytes/);
  });
});
