// The read side of a recorded response as a Durable Stream (gateway/durable-stream.ts), driven directly over the
// memory log and a real Redis: offsets resumed from every position, the up-to-date and closed flags, the byte budget, a cancelled
// stream, another owner's stream not found, and waits that wake on an event or the end.
import { formatOffset } from '../../lib/durable-streams/offsets';
import type { DurableStreamStore, ReadBatch } from '../../lib/durable-streams/store';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { startRedisServer, type RedisServer } from '../log/redis-server';
import { completed, created, delta } from '../log/contract';
import { recordedResponseStore } from '../../gateway/durable-stream';

const PATH = '/v1/stream/responses/resp_ds';
const BIG = { maxBytes: 1 << 20 };

jest.setTimeout(30_000);

let redis: RedisServer | undefined;
let tests = 0;
afterAll(async () => redis?.stop());

/** The logs the store runs over: each test gets a log of its own (on Redis, its own key prefix). */
const LOGS: ReadonlyArray<readonly [string, () => Promise<EventLog>]> = [
  ['memoryEventLog', async () => memoryEventLog()],
  ['redisEventLog', async () => {
    redis ??= await startRedisServer();
    return redisEventLog({ url: redis.url, keyPrefix: `ds${process.pid}t${++tests}:`, commandTimeoutMs: 20_000 });
  }],
];

let log: EventLog;

const scope = (responseId = 'resp_ds', owner = 'alice'): LogScope => ({ responseId, owner });

/** Records `events` under `s` (leased as a producer would), returning the lease token. */
async function record(s: LogScope, events: readonly ResponseStreamEvent[]): Promise<number> {
  const { token } = await log.acquire(s, 60_000);
  if (events.length > 0) await log.append(s, token, events);
  return token;
}

const response = (n: number): ResponseStreamEvent[] => [created('resp_ds'), ...Array.from({ length: n }, (_, i) => delta(i + 1)), completed('resp_ds', n + 1)];

async function batch(store: DurableStreamStore, offset: string, maxBytes = BIG.maxBytes): Promise<ReadBatch> {
  const r = await store.read(PATH, offset, { maxBytes });
  if (!('entries' in r)) throw new Error(`read ${offset}: ${r.status}`);
  return r;
}

const parsed = (b: ReadBatch): unknown[] => b.entries.map((e) => JSON.parse(e as string) as unknown);

describe.each(LOGS)('recordedResponseStore over %s', (_, makeLog) => {
  beforeEach(async () => {
    log = await makeLog();
  });
  afterEach(() => log.close());

  test('a completed response: one JSON message per stored event, closed, from every offset', async () => {
    const events = response(5); // sequence numbers 0..6
    await record(scope(), events);
    const store = recordedResponseStore(log, scope());
    expect(store.create).toBeUndefined();
    expect(store.append).toBeUndefined();
    expect(store.delete).toBeUndefined();

    expect(await store.info(PATH, false)).toEqual({ contentType: 'application/json', id: 'resp_ds', tail: formatOffset(7), closed: true });
    const all = await batch(store, '-1');
    expect(parsed(all)).toEqual(events);
    expect(all).toMatchObject({ next: formatOffset(7), upToDate: true, closed: true });

    for (let k = 0; k <= events.length; k++) {
      const b = await batch(store, formatOffset(k));
      expect(parsed(b)).toEqual(events.slice(k));
      expect(b).toMatchObject({ next: formatOffset(7), upToDate: true, closed: true });
    }
    // `now`: the tail, nothing to read.
    expect(await batch(store, 'now')).toMatchObject({ entries: [], next: formatOffset(7), upToDate: true, closed: true });
  });

  test('a stored text is the message as the log keeps it (the upstream\'s own JSON)', async () => {
    const e = delta(0, 'é "q" \\ \n');
    await record(scope(), [e]);
    const [text] = (await batch(recordedResponseStore(log, scope()), '-1')).entries;
    expect(typeof text).toBe('string');
    expect(JSON.parse(text as string)).toEqual(e);
  });

  test('a response being recorded: up to date but open; resumed from each offset as events arrive; closed at the terminal event', async () => {
    const s = scope();
    const token = await record(s, [created('resp_ds')]);
    const store = recordedResponseStore(log, s);
    let b = await batch(store, '-1');
    expect(b).toMatchObject({ next: formatOffset(1), upToDate: true, closed: false });
    expect(b.info.closed).toBe(false);
    for (let n = 1; n <= 4; n++) {
      await log.append(s, token, [delta(n)]);
      const resumed = await batch(store, b.next);
      expect(parsed(resumed)).toEqual([delta(n)]);
      expect(resumed).toMatchObject({ next: formatOffset(n + 1), upToDate: true, closed: false });
      b = resumed;
    }
    await log.append(s, token, [completed('resp_ds', 5)]);
    const last = await batch(store, b.next);
    expect(parsed(last)).toEqual([completed('resp_ds', 5)]);
    expect(last).toMatchObject({ next: formatOffset(6), upToDate: true, closed: true });
    expect(await batch(store, last.next)).toMatchObject({ entries: [], next: formatOffset(6), upToDate: true, closed: true });
  });

  test('the byte budget: batches end before the entry that does not fit (a first one is whole), not up to date until the last', async () => {
    const events = response(40);
    await record(scope(), events);
    const store = recordedResponseStore(log, scope());
    const size = Buffer.byteLength(JSON.stringify(delta(10)));
    const got: unknown[] = [];
    let offset = '-1';
    let reads = 0;
    for (;;) {
      const b = await batch(store, offset, size * 3);
      reads++;
      expect(b.entries.length).toBeGreaterThan(0);
      got.push(...parsed(b));
      offset = b.next;
      expect(b.next).toBe(formatOffset(got.length));
      if (b.upToDate) {
        expect(b.closed).toBe(true);
        break;
      }
      expect(b.closed).toBe(false);
    }
    expect(got).toEqual(events);
    expect(reads).toBeGreaterThan(10);
    // A budget smaller than any event still returns one.
    expect((await batch(store, '-1', 1)).entries).toHaveLength(1);
  });

  test('more events than one page of the log', async () => {
    const events = response(1500);
    await record(scope(), events);
    const b = await batch(recordedResponseStore(log, scope()), formatOffset(3));
    expect(b.entries).toHaveLength(events.length - 3);
    expect(b).toMatchObject({ next: formatOffset(events.length), upToDate: true, closed: true });
  });

  test('a cancelled response: closed where it stopped, with no message added', async () => {
    const s = scope();
    await record(s, [created('resp_ds'), delta(1), delta(2)]);
    await log.cancel(s);
    const store = recordedResponseStore(log, s);
    expect(await store.info(PATH, true)).toMatchObject({ tail: formatOffset(3), closed: true });
    const b = await batch(store, formatOffset(1));
    expect(parsed(b)).toEqual([delta(1), delta(2)]);
    expect(b).toMatchObject({ next: formatOffset(3), upToDate: true, closed: true });
    expect(await store.wait(PATH, formatOffset(3), 10_000, new AbortController().signal)).toBe(true);
  });

  test('registered with no event yet (a background create): an empty open stream at offset 0', async () => {
    await record(scope(), []);
    const store = recordedResponseStore(log, scope());
    expect(await store.info(PATH, false)).toMatchObject({ tail: formatOffset(0), closed: false });
    expect(await batch(store, '-1')).toMatchObject({ entries: [], next: formatOffset(0), upToDate: true, closed: false });
  });

  test('another owner\'s response, an unknown one and an ownership record are not found', async () => {
    await record(scope(), response(2));
    await record({ responseId: 'response/resp_x', owner: 'alice' }, []);
    for (const store of [recordedResponseStore(log, scope('resp_ds', 'mallory')), recordedResponseStore(log, scope('resp_none')), recordedResponseStore(log, scope('resp_ds', ''))]) {
      expect(await store.info(PATH, false)).toEqual({ status: 'not_found' });
      expect(await store.read(PATH, '-1', BIG)).toEqual({ status: 'not_found' });
    }
  });

  test('offsets it never minted are bad requests', async () => {
    await record(scope(), response(2)); // tail 4
    const store = recordedResponseStore(log, scope());
    for (const offset of ['abc', '5', '-2', '00000000000000001', formatOffset(5), formatOffset(Number.MAX_SAFE_INTEGER)]) {
      expect(await store.read(PATH, offset, BIG)).toMatchObject({ status: 'bad_request' });
    }
  });

  test('wait: wakes at the next event or the end, times out at the tail, settles on abort', async () => {
    const s = scope();
    const token = await record(s, [created('resp_ds')]);
    const store = recordedResponseStore(log, s);
    const never = new AbortController().signal;
    // Something after the offset already: at once.
    expect(await store.wait(PATH, '-1', 10_000, never)).toBe(true);
    expect(await store.wait(PATH, formatOffset(0), 10_000, never)).toBe(true);
    // At the tail: the timeout.
    expect(await store.wait(PATH, formatOffset(1), 20, never)).toBe(false);
    expect(await store.wait(PATH, 'now', 20, never)).toBe(false);
    // Woken by an append.
    const woken = store.wait(PATH, formatOffset(1), 10_000, never);
    await log.append(s, token, [delta(1)]);
    expect(await woken).toBe(true);
    // Settled by an abort.
    const abort = new AbortController();
    const aborted = store.wait(PATH, formatOffset(2), 10_000, abort.signal);
    abort.abort();
    expect(await aborted).toBe(false);
    // Woken by the end.
    const ended = store.wait(PATH, 'now', 10_000, never);
    await log.append(s, token, [completed('resp_ds', 2)]);
    expect(await ended).toBe(true);
  });

  test('a log that fails: the store rejects (the handler\'s 503)', async () => {
    const failing: EventLog = { ...log, state: () => Promise.reject(new Error('down')), read: () => Promise.reject(new Error('down')), wait: () => Promise.reject(new Error('down')) };
    const broken = recordedResponseStore(failing, scope());
    await expect(broken.info(PATH, false)).rejects.toThrow('down');
    await expect(broken.read(PATH, '-1', BIG)).rejects.toThrow('down');
    await expect(broken.wait(PATH, '-1', 10, new AbortController().signal)).rejects.toThrow('down');
  });
});
