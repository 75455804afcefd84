// Issue 15, retention of the in-memory log, on real timers with short TTLs: after the terminal event (or a
// cancel) and ttlMs the stream is gone (a reader gets the not-found error), a live stream nobody writes to
// goes after liveTtlMs, TTLs past the 32-bit timer limit do not fire early, the timers neither keep the
// process alive nor outlive close(), the events of an expired stream are garbage (WeakRefs after a GC), and
// the per-stream limits (events, bytes) end a persistTo with the typed error while other streams go on.
import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { from, lastValueFrom, toArray } from 'rxjs';
import { EventLogError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { collect, sleep } from './takeover-helpers';

jest.setTimeout(60_000);

const DAY = 24 * 60 * 60 * 1000;
const streamOf = (id: string, deltas: number, text = 'x'): ResponseStreamEvent[] => [
  created(id),
  ...Array.from({ length: deltas }, (_, i) => delta(i + 1, `${text}${i + 1}`)),
  completed(id, deltas + 1),
];

/** Polls `gone` until it holds, for at most `ms` (generous: the check is that it happens, not how soon). */
async function eventually(gone: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await gone())) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

describe('memoryEventLog: expiry', () => {
  test('ttlMs after the terminal event the stream is gone: state undefined, read empty, a reader gets not_found', async () => {
    const TTL = 1000;
    const log = memoryEventLog({ ttlMs: TTL });
    const s = { responseId: 'resp_ttl', owner: 'u' };
    try {
      const { token } = await log.acquire(s, 60_000);
      const t0 = Date.now();
      await log.append(s, token, streamOf('resp_ttl', 3));
      const st = await log.state(s);
      // Only meaningful while the TTL cannot have run out yet (a busy machine may pause this test for longer).
      if (Date.now() - t0 < TTL / 2) {
        expect(st).toMatchObject({ end: 'completed', lastSequenceNumber: 4 });
        expect(await log.read(s, undefined)).toHaveLength(5);
      }
      expect(await eventually(async () => (await log.state(s)) === undefined)).toBe(true);
      expect(await log.read(s, undefined)).toEqual([]);
      const r = await collect(fromEventLog(log, 'resp_ttl', { owner: 'u', notFoundTimeoutMs: 200 }));
      expect(r.events).toEqual([]);
      expect(r.error).toBeInstanceOf(EventLogError);
      expect((r.error as EventLogError).reason).toBe('not_found');
      expect((r.error as EventLogError).responseId).toBe('resp_ttl');
    } finally {
      await log.close();
    }
  });

  test('a cancelled stream (also one cancelled before it started) expires after ttlMs', async () => {
    const log = memoryEventLog({ ttlMs: 200 });
    try {
      const a = { responseId: 'resp_cancel_a' };
      const { token } = await log.acquire(a, 60_000);
      await log.append(a, token, [created('resp_cancel_a')]);
      await log.cancel(a);
      const b = { responseId: 'resp_cancel_b' };
      await log.cancel(b);
      expect(await eventually(async () => (await log.state(a)) === undefined && (await log.state(b)) === undefined)).toBe(true);
    } finally {
      await log.close();
    }
  });

  test('a live stream nobody writes to any more (a producer gone without a terminal event) expires after liveTtlMs; one that is written to stays', async () => {
    const LIVE_TTL = 1000;
    const log = memoryEventLog({ ttlMs: DAY, liveTtlMs: LIVE_TTL });
    const abandoned = { responseId: 'resp_abandoned' };
    const kept = { responseId: 'resp_kept' };
    try {
      const lease = await log.acquire(abandoned, 100);
      await log.append(abandoned, lease.token, [created('resp_abandoned'), delta(1, 'a')]);
      await log.release(abandoned, lease.token); // e.g. persistTo unsubscribed: released, never ended
      const k = await log.acquire(kept, 60_000);
      await log.append(kept, k.token, [created('resp_kept')]);
      let n = 1;
      let lastWrite = Date.now();
      let longestGap = 0; // a busy machine may pause this test: the "kept" check only holds if it never paused past the TTL
      expect(
        await eventually(async () => {
          await log.append(kept, k.token, [delta(n, `k${n}`)]);
          longestGap = Math.max(longestGap, Date.now() - lastWrite);
          lastWrite = Date.now();
          n++;
          await sleep(50);
          return (await log.state(abandoned)) === undefined;
        }),
      ).toBe(true);
      expect(await log.read(abandoned, undefined)).toEqual([]);
      if (longestGap < LIVE_TTL / 2) {
        // Written all along: still there, whole.
        expect(await log.read(kept, undefined)).toHaveLength(n);
      }
    } finally {
      await log.close();
    }
  });

  test("one writer's scope object across its stream's expiry: the old token is fenced, the appends go to the new stream", async () => {
    const log = memoryEventLog({ liveTtlMs: 200 });
    const s = { responseId: 'resp_rebound', owner: 'u' };
    try {
      const first = await log.acquire(s, 50);
      await log.append(s, first.token, [created('resp_rebound')]);
      expect(await eventually(async () => (await log.state(s)) === undefined)).toBe(true);
      const second = await log.acquire(s, 60_000);
      await expect(log.append(s, first.token, [delta(1, 'old')])).rejects.toMatchObject({ reason: 'fenced' });
      await log.append(s, second.token, [created('resp_rebound'), delta(1, 'new')]);
      expect((await log.read(s, undefined)).map((e) => [e.sequence_number, (e as { delta?: string }).delta])).toEqual([[0, undefined], [1, 'new']]);
      // The same object naming another stream: that stream, and the first one as it was.
      const other = await log.acquire({ responseId: 'resp_other', owner: 'u' }, 60_000);
      s.responseId = 'resp_other';
      await log.append(s, other.token, [created('resp_other')]);
      expect(await log.state(s)).toMatchObject({ lastSequenceNumber: 0 });
      expect(await log.state({ responseId: 'resp_rebound', owner: 'u' })).toMatchObject({ lastSequenceNumber: 1 });
    } finally {
      await log.close();
    }
  });

  test('a TTL past the 32-bit timer limit (30 days) does not fire at once (no TimeoutOverflowWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const log = memoryEventLog({ ttlMs: 30 * DAY, liveTtlMs: 40 * DAY });
    const s = { responseId: 'resp_month' };
    try {
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [created('resp_month')]);
      await sleep(50);
      expect((await log.state(s))?.lastSequenceNumber).toBe(0);
      await log.append(s, token, [completed('resp_month', 1)]);
      await sleep(200);
      expect(await log.state(s)).toMatchObject({ end: 'completed', lastSequenceNumber: 1 });
      expect(await log.read(s, undefined)).toHaveLength(2);
      await sleep(10);
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
      await log.close();
    }
  });
});

describe('memoryEventLog: timers and memory', () => {
  test("the retention timers are unref'd (they never keep the process alive) and close() clears every one", async () => {
    // Every Timeout created from here on, ref'd or not, until it is cleared or has fired.
    const live = new Map<number, { hasRef?(): boolean }>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (type === 'Timeout') live.set(id, resource as { hasRef?(): boolean });
      },
      destroy(id) {
        live.delete(id);
      },
    }).enable();
    try {
      const log = memoryEventLog({ ttlMs: DAY, liveTtlMs: DAY });
      for (let i = 0; i < 20; i++) {
        const s = { responseId: `resp_timer_${i}` };
        const { token } = await log.acquire(s, 60_000);
        await log.append(s, token, i % 2 === 0 ? streamOf(s.responseId, 2) : [created(s.responseId)]);
        if (i % 3 === 0) await log.cancel(s);
      }
      // The log's timers: every Timeout alive now was created by it (the hook was enabled just before).
      const mine = new Map(live);
      expect(mine.size).toBeGreaterThan(0);
      expect([...mine.values()].filter((t) => t.hasRef?.() !== false)).toEqual([]);
      await log.close();
      expect(await eventually(async () => [...mine.keys()].every((id) => !live.has(id)), 10_000)).toBe(true);
    } finally {
      hook.disable();
    }
  });

  test('a process holding ended and live streams in a log with 24 h TTLs exits by itself (nothing closed)', async () => {
    const script = `
      const { memoryEventLog } = require(${JSON.stringify(join(__dirname, '..', '..', 'lib', 'log', 'memory.ts'))});
      (async () => {
        const log = memoryEventLog();
        const ev = (type, n, extra) => ({ type, sequence_number: n, ...extra });
        for (const [id, end] of [['resp_a', true], ['resp_b', false]]) {
          const s = { responseId: id };
          const { token } = await log.acquire(s, 60000);
          await log.append(s, token, [ev('response.created', 0, { response: { id } })]);
          if (end) await log.append(s, token, [ev('response.completed', 1, { response: { id } })]);
          else await log.release(s, token);
        }
        await log.cancel({ responseId: 'resp_c' });
        process.stdout.write('written\\n');
      })();
    `;
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal }))); // 'close': its stdout is all read
    clearTimeout(killer);
    expect(err).toBe('');
    expect(out).toBe('written\n');
    expect(exit).toEqual({ code: 0, signal: null }); // not killed by the bound: it ended on its own
  });

  test("an expired stream's events are dropped: after the TTL and a GC nothing holds them", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const log = memoryEventLog({ ttlMs: 100 });
    const s = { responseId: 'resp_big' };
    try {
      const refs: WeakRef<object>[] = [];
      await (async () => {
        // About 8 MB of events that only the log references.
        const events = streamOf('resp_big', 800, 'y'.repeat(10_000));
        for (const e of events) refs.push(new WeakRef(e));
        const { token } = await log.acquire(s, 60_000);
        for (let i = 0; i < events.length; i += 100) await log.append(s, token, events.slice(i, i + 100));
      })();
      expect((await log.state(s))?.end).toBe('completed');
      gc();
      const held = process.memoryUsage().arrayBuffers; // the stream's ~8 MB of JSON among them
      expect(await eventually(async () => (await log.state(s)) === undefined)).toBe(true);
      const collected = await eventually(async () => {
        gc();
        return refs.every((r) => r.deref() === undefined);
      }, 10_000);
      expect(collected).toBe(true);
      // Its bytes too, although the writer's scope object, which the log kept the stream with, is still alive.
      gc();
      expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 4_000_000);
      expect(await log.state(s)).toBeUndefined();
    } finally {
      await log.close();
    }
  });
});

describe('memoryEventLog: limits per stream, through persistTo', () => {
  test.each([
    ['maxEvents', { maxEvents: 10 }],
    ['maxBytes', { maxBytes: 2000 }],
  ] as const)('%s: the producer ends with EventLogError(limit) naming the response, stores at most the limit, gives the lease up; another stream is not affected', async (_name, limits) => {
    const log = memoryEventLog({ ...limits });
    try {
      const big = streamOf('resp_big', 40, 'z'.repeat(50));
      const small = streamOf('resp_small', 3);
      const reading = collect(fromEventLog(log, 'resp_big', { notFoundTimeoutMs: 10_000, pollMs: 100 }));
      const r = await collect(from(big).pipe(persistTo(log, { maxBatchDelayMs: 0, maxBatchSize: 1, leaseMs: 60_000 })));
      expect(r.events).toEqual(big.slice(0, r.events.length)); // passed on unchanged until the error
      expect(r.error).toBeInstanceOf(EventLogError);
      expect((r.error as EventLogError).reason).toBe('limit');
      expect((r.error as EventLogError).retryable).toBe(false);
      expect((r.error as EventLogError).responseId).toBe('resp_big');
      const stored = await log.read({ responseId: 'resp_big' }, undefined);
      expect(stored.length).toBeGreaterThan(0);
      if ('maxEvents' in limits) expect(stored).toHaveLength(10);
      else expect(Buffer.byteLength(stored.map((e) => JSON.stringify(e)).join(''))).toBeLessThanOrEqual(2000);
      expect(stored).toEqual(big.slice(0, stored.length));
      // The lease was given up at the error: a reader without upstream ends at once with the interruption.
      expect((await log.state({ responseId: 'resp_big' }))?.lease).toBeUndefined();
      const read = await reading;
      expect(read.error).toBeInstanceOf(StreamInterruptedError);
      expect((read.error as StreamInterruptedError).lastSequenceNumber).toBe(stored.at(-1)?.sequence_number);
      expect(read.events).toEqual(stored);
      // The limit is per stream: another stream of the same log is stored whole.
      expect(await lastValueFrom(from(small).pipe(persistTo(log), toArray()))).toEqual(small);
      expect(await log.read({ responseId: 'resp_small' }, undefined)).toEqual(small);
    } finally {
      await log.close();
    }
  });
});

describe('memoryEventLog: an event is charged its UTF-8 bytes, to the byte', () => {
  // The log encodes an event once where its text's most bytes (3 per UTF-16 unit) fit under maxBytes, and
  // measures it first where they do not: both must charge the same bytes, and store the text as it was.
  test.each([
    ['ASCII', 'plain text'],
    ['2-byte', 'caf\u00e9 na\u00efve'],
    ['3-byte', '\u20ac \u2713 \u4e2d\u6587'],
    ['4-byte pairs', '\u{1F600}\u{1F680}'],
    ['a lone surrogate', 'a\ud800b'],
  ])('%s: a stream exactly at maxBytes is stored; one byte over, the append fails', async (_name, text) => {
    const events = [created('resp_bytes'), delta(1, text), delta(2, `${text} again`)];
    const bytes = events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
    for (const [maxBytes, fits] of [[bytes, true], [bytes - 1, false]] as const) {
      const log = memoryEventLog({ maxBytes });
      try {
        const s = { responseId: 'resp_bytes' };
        const { token } = await log.acquire(s, 60_000);
        const appended = log.append(s, token, events);
        if (fits) {
          await appended;
          const stored = await log.read(s, undefined);
          expect(stored).toEqual(events);
        } else {
          await expect(appended).rejects.toMatchObject({ reason: 'limit' });
          expect(await log.read(s, undefined)).toEqual([]);
        }
        // Event by event, the same: the last one is the one that does not fit.
        const t = { responseId: 'resp_bytes_2' };
        const lease = await log.acquire(t, 60_000);
        await log.append(t, lease.token, events.slice(0, 2));
        const last = log.append(t, lease.token, events.slice(2));
        if (fits) await last;
        else await expect(last).rejects.toMatchObject({ reason: 'limit' });
        expect((await log.read(t, undefined)).length).toBe(fits ? 3 : 2);
      } finally {
        await log.close();
      }
    }
  });
});

describe('memoryEventLog: stored text', () => {
  test('events of every length of multi-byte text, appended one by one and in batches, read back as they were', async () => {
    const log = memoryEventLog();
    try {
      // Mostly 3 bytes per character, every length: some event then meets a store whose room left holds its
      // characters but not its bytes. A few of 2 and 4 bytes between them.
      const texts = Array.from({ length: 160 }, (_, k) => (k % 10 === 3 ? '\u00e9' : k % 10 === 7 ? '\u{1F600}' : '\u20ac').repeat(1 + k));
      const events = [created('resp_text'), ...texts.map((t, i) => delta(i + 1, t))];
      const s = { responseId: 'resp_text' };
      const { token } = await log.acquire(s, 60_000);
      for (let i = 0; i < events.length; ) {
        const n = 1 + (i % 3);
        await log.append(s, token, events.slice(i, i + n));
        i += n;
      }
      expect(await log.read(s, undefined)).toEqual(events);
    } finally {
      await log.close();
    }
  });
});
