// The gateway wraps its log twice (the metrics wrapper once, a cancel watch per producer): a log that takes its
// writers' events packed (lib/log/packed.ts: redisEventLog) keeps taking them through both, and a packed append
// goes through the same accounting as an object append: timed and counted by the metrics, a fence by a cancel
// seen by the watch. Without the forwarding the writer falls back to the object path; with it but the wrapper's
// work skipped, the metrics and the cancel go unseen: each is a failure here. The recording's events keep the
// upstream's `data:` text (keepRawData): the Redis log's encoding stores it as is when it is one line, and the
// cancel watch keeps that encoding.
import { from, lastValueFrom, Subject, toArray } from 'rxjs';
import { ownerOf } from '../../gateway/index';
import { watchCancel } from '../../gateway/cancel-watch';
import { GatewayMetrics } from '../../gateway/metrics';
import { keepRawData } from '../../lib/decode/raw-data';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { encodeFlat } from '../../lib/log/redis-append';
import { packedAppendOf, takesPacked, type PackedAppend, type PackedEvents } from '../../lib/log/packed';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from '../log/contract';
import { startRedisServer, type RedisServer } from '../log/redis-server';
import { startHarness, type Harness } from './helpers';
import { readAll, slowClient, until } from './slow-client';

jest.setTimeout(120_000);

const ID = 'resp_packed_wrap';
const events = (): ResponseStreamEvent[] => [created(ID), delta(1, 'a'), delta(2, 'b'), completed(ID, 3)];

/**
 * A memory log taking packed appends as redisEventLog does (its encoding): each one decoded and appended as
 * objects, after `gate` (when given).
 */
function packedMemoryLog(gate?: () => Promise<void>): { log: EventLog; packed: PackedEvents[]; objectAppends: jest.SpyInstance } {
  const log = memoryEventLog();
  const packed: PackedEvents[] = [];
  takesPacked(log, {
    encode: encodeFlat,
    append: async (s, t, p) => {
      packed.push(p);
      await gate?.();
      return log.append(s, t, p.jsons.map((j) => JSON.parse(j) as ResponseStreamEvent));
    },
  });
  return { log, packed, objectAppends: jest.spyOn(log, 'append') };
}

describe('the metrics wrapper on a log that takes packed appends', () => {
  it('passes the packed appends through, each timed and in flight until acknowledged', async () => {
    const metrics = new GatewayMetrics(() => 0);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const { log, packed, objectAppends } = packedMemoryLog(() => gate);
    try {
      const measured = metrics.measure(log);
      expect(packedAppendOf(measured)).toBeDefined();
      const source = new Subject<ResponseStreamEvent>();
      const done = lastValueFrom(source.pipe(persistTo(measured), toArray()));
      for (const e of events()) source.next(e);
      await until(() => packed.length > 0, 'the first packed append');
      expect(metrics.snapshot().log.appendsInFlight).toBe(1);
      open();
      source.complete();
      await done;
      const stored = await log.read({ responseId: ID }, undefined);
      expect(stored.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3]);
      expect(objectAppends).toHaveBeenCalledTimes(packed.length); // the decoding log's own, none from the writer
      expect(metrics.snapshot().log.appendsInFlight).toBe(0);
      expect(metrics.snapshot().log.errors).toBe(0);
    } finally {
      metrics.stop();
      await log.close();
    }
  });

  it('counts a failed packed append as a failed call', async () => {
    const metrics = new GatewayMetrics(() => 0);
    const log = memoryEventLog();
    const failing: PackedAppend = { encode: (e) => JSON.stringify(e), append: () => Promise.reject(new EventLogError('unavailable', 'down', ID)) };
    takesPacked(log, failing);
    const objectAppends = jest.spyOn(log, 'append');
    try {
      const error = await lastValueFrom(from(events()).pipe(persistTo(metrics.measure(log)), toArray())).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventLogError);
      expect(objectAppends).not.toHaveBeenCalled();
      expect(metrics.snapshot().log.errors).toBe(1);
      expect(metrics.snapshot().log.appendsInFlight).toBe(0);
    } finally {
      metrics.stop();
      await log.close();
    }
  });

  it('leaves a log without packed appends without them', () => {
    const metrics = new GatewayMetrics(() => 0);
    const log = memoryEventLog();
    expect(packedAppendOf(metrics.measure(log))).toBeUndefined();
    metrics.stop();
    void log.close();
  });
});

describe('the cancel watch on a log that takes packed appends', () => {
  it('sees a packed append fenced off by a cancel', async () => {
    const scope: LogScope = { responseId: ID };
    let cancelled = false;
    const { log, packed, objectAppends } = packedMemoryLog(async () => {
      // The stream is cancelled (by another instance) while this append is on its way: it is fenced off.
      if (packed.length === 2) await log.cancel(scope);
    });
    const cancelledScopes: LogScope[] = [];
    const watched = watchCancel(log, (s) => {
      cancelled = true;
      cancelledScopes.push(s);
    });
    expect(packedAppendOf(watched)).toBeDefined();
    const source = new Subject<ResponseStreamEvent>();
    const done = lastValueFrom(source.pipe(persistTo(watched, { onWriteError: 'continue' }), toArray()));
    source.next(created(ID));
    await until(() => packed.length === 1 && objectAppends.mock.calls.length === 1, 'the first append');
    source.next(delta(1, 'a'));
    source.complete();
    await done; // the writer's error ('continue') and its end come after the watch looked at the stream's state
    expect(cancelled).toBe(true);
    expect(cancelledScopes.map((s) => s.responseId)).toEqual([ID]);
    expect(packed).toHaveLength(2);
    await log.close();
  });

  it("keeps the log's encoding: a recorded event's one-line data: text stored as it came, an event without one serialised", async () => {
    const { log, packed } = packedMemoryLog();
    const first = created(ID);
    const spaced = JSON.stringify(first, null, 1).replace(/\n/g, ' '); // the same JSON, other bytes than JSON.stringify's
    keepRawData(first, spaced);
    const multiLine = delta(1, 'a');
    keepRawData(multiLine, JSON.stringify(multiLine).replace(',', ',\n'));
    const plain = delta(2, 'b');
    const end = completed(ID, 3);
    await lastValueFrom(from([first, multiLine, plain, end]).pipe(persistTo(watchCancel(log, () => undefined)), toArray()));
    expect(packed.flatMap((p) => p.jsons)).toEqual([spaced, JSON.stringify(multiLine), JSON.stringify(plain), JSON.stringify(end)]);
    const stored = await log.read({ responseId: ID }, undefined);
    expect(stored).toEqual([first, multiLine, plain, end]);
    await log.close();
  });

  it('leaves a log without packed appends without them', () => {
    const log = memoryEventLog();
    expect(packedAppendOf(watchCancel(log, () => undefined))).toBeUndefined();
    void log.close();
  });
});

describe('the gateway on a Redis log', () => {
  let redis: RedisServer | undefined;
  let log: EventLog | undefined;
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
    await log?.close();
    await redis?.stop();
  });

  it("records a stream through the log's packed appends, not its object appends", async () => {
    redis = await startRedisServer();
    const redisLog = redisEventLog({ url: redis.url });
    log = redisLog;
    const own = packedAppendOf(redisLog)!;
    expect(own).toBeDefined();
    const packed: PackedEvents[] = [];
    takesPacked(redisLog, { encode: own.encode, append: (s, t, p) => (packed.push(p), own.append(s, t, p)) });
    const objectAppends = jest.spyOn(redisLog, 'append');
    h = await startHarness({ provider: { answer: 'one two three four five' }, gateway: { log: redisLog } });
    const auth = 'Bearer sk-test-packed-wrappers-0';
    const res = await slowClient(`${h.baseURL}/responses`, auth, { model: 'fake-model', input: 'Hi', stream: true });
    expect(res.statusCode).toBe(200);
    await readAll(res);
    const id = [...h.provider.responses.keys()][0]!;
    const sent = h.provider.responses.get(id)!.events;
    // The recording ends once its last append is acknowledged.
    await until(() => h!.gateway.metrics().streams.producers === 0, 'the recording to end');
    expect(packed.flatMap((p) => p.jsons)).toHaveLength(sent.length);
    expect(objectAppends).not.toHaveBeenCalled();
    const stored = await redisLog.read({ responseId: id, owner: ownerOf(auth) }, undefined);
    expect(stored.map((e) => e.sequence_number)).toEqual(sent.map((e) => e['sequence_number']));
    expect(h.gateway.metrics().log.errors).toBe(0);
  });
});
