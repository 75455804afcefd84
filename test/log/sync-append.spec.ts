// The memory log acknowledges a writer's append at once (lib/log/sync-append.ts), through the gateway's wrappers
// too, and the writer sends a burst's events (lib/burst.ts: one chunk of a pushed body) in one append. The
// guarantees stay the same: fencing, limits, a failure reaching the writer as a rejection would.
import { GatewayMetrics } from '../../gateway/metrics';
import { watchCancel } from '../../gateway/cancel-watch';
import { burstEnded, burstStarts } from '../../lib/burst';
import { EventLogError } from '../../lib/errors';
import { memoryEventLog } from '../../lib/log/memory';
import { forwardSync, syncAppendOf } from '../../lib/log/sync-append';
import type { EventLog, LogScope } from '../../lib/log/types';
import { LogWriter } from '../../lib/log/writer';
import { created, delta } from './contract';

const scope: LogScope = { responseId: 'resp_sync', owner: 'o' };
const flushed = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('synchronous appends', () => {
  it('the memory log stores an append before answering, and answers a fence as a rejected promise', async () => {
    const log = memoryEventLog();
    const append = syncAppendOf(log)!;
    expect(append).toBeDefined();
    const lease = await log.acquire(scope, 10_000);
    expect(append(scope, lease.token, [created('resp_sync'), delta(1)])).toBeUndefined();
    expect((await log.read(scope, undefined)).map((e) => e.sequence_number)).toEqual([0, 1]);
    const fenced = append(scope, lease.token + 1, [delta(2)]);
    expect(fenced).toBeInstanceOf(Promise);
    await expect(fenced).rejects.toMatchObject({ reason: 'fenced' });
    const limited = memoryEventLog({ maxEvents: 1 });
    const l2 = await limited.acquire(scope, 10_000);
    await expect(syncAppendOf(limited)!(scope, l2.token, [created('resp_sync'), delta(1)])).rejects.toMatchObject({ reason: 'limit' });
    expect(await limited.read(scope, undefined)).toEqual([]);
  });

  it('passes through the metrics wrapper and the cancel watch, which still see a fence by a cancel', async () => {
    const metrics = new GatewayMetrics(() => 0);
    try {
      const log = memoryEventLog();
      let cancelled = 0;
      const measured = metrics.measure(log);
      const watched = watchCancel(measured, () => cancelled++);
      const append = syncAppendOf(watched)!;
      expect(append).toBeDefined();
      const lease = await watched.acquire(scope, 10_000);
      expect(append(scope, lease.token, [created('resp_sync')])).toBeUndefined();
      expect(metrics.snapshot().log.appendsInFlight).toBe(0);
      await log.cancel(scope);
      await expect(append(scope, lease.token, [delta(1)])).rejects.toBeInstanceOf(EventLogError);
      expect(cancelled).toBe(1);
      expect(metrics.snapshot().log.errors).toBe(1);
    } finally {
      metrics.stop();
    }
  });

  it('a writer at once (maxBatchDelayMs 0) appends each lone event, and a burst\'s events in one append at its end', async () => {
    const log = memoryEventLog();
    const calls: number[] = [];
    const counted: EventLog = { ...log, append: (s, t, events) => (calls.push(events.length), log.append(s, t, events)) };
    // The wrapper forwards the synchronous path as the gateway's do, counting.
    forwardSync(counted, log, (append) => (s, t, events) => (calls.push(events.length), append(s, t, events)));
    const errors: EventLogError[] = [];
    const w = new LogWriter(counted, scope, { maxBatchDelayMs: 0 }, (e) => errors.push(e));
    w.acquire();
    await flushed();
    w.push(created('resp_sync'));
    w.push(delta(1));
    expect(calls).toEqual([1, 1]); // acknowledged at once: nothing queues behind an append
    burstStarts();
    try {
      for (let n = 2; n < 7; n++) w.push(delta(n));
      expect(calls).toEqual([1, 1]);
    } finally {
      burstEnded();
    }
    expect(calls).toEqual([1, 1, 5]);
    expect((await log.read(scope, undefined)).map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    let done = false;
    w.finish(() => (done = true));
    expect(done).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a writer stopped inside a burst sends nothing at its end', async () => {
    const log = memoryEventLog();
    const w = new LogWriter(log, scope, { maxBatchDelayMs: 0 }, () => undefined);
    w.acquire();
    await flushed();
    w.push(created('resp_sync'));
    burstStarts();
    try {
      w.push(delta(1));
      w.stop(true);
    } finally {
      burstEnded();
    }
    expect((await log.read(scope, undefined)).map((e) => e.sequence_number)).toEqual([0]);
  });
});
