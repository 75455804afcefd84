// The pumps' writes of a turn wait for the turn's reads (gateway/after-reads.ts): a live stream's frames from an
// upstream read go out in the check phase of that turn, together with the other streams' (each client process
// woken once for several writes), never later than the queue's bound, and one write that throws stops no other.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { readFile } from 'node:fs';
import { config, Subject } from 'rxjs';
import { afterReadsQueue } from '../../gateway/after-reads';
import { pumpSSE } from '../../gateway/sse';
import { atBurstEnd, burstEnded, burstStarts } from '../../lib/burst';
import type { ResponseStreamEvent } from '../../lib/events/responses';

const turnOver = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('afterReadsQueue', () => {
  it('calls each function once, in the order given, after the code that queued it, not within it', async () => {
    const q = afterReadsQueue(1, () => 0); // a clock that stands still: the bound is the third test's
    const calls: string[] = [];
    q(() => calls.push('a'));
    q(() => calls.push('b'));
    q(() => calls.push('c'));
    expect(calls).toEqual([]);
    await Promise.resolve();
    expect(calls).toEqual([]); // not a microtask: the turn's other reads come first
    await turnOver();
    expect(calls).toEqual(['a', 'b', 'c']);
    await turnOver();
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('from an I/O callback, runs in the same turn: before a timer that callback set', async () => {
    const q = afterReadsQueue(1, () => 0);
    const order = await new Promise<string[]>((resolve) => {
      readFile(__filename, () => {
        const seen: string[] = [];
        setTimeout(() => {
          seen.push('timer');
          resolve(seen);
        }, 0);
        q(() => seen.push('queued'));
      });
    });
    expect(order).toEqual(['queued', 'timer']);
  });

  it('once the first waited maxWaitMs, the next one given runs them all at once, and nothing twice', async () => {
    let now = 0;
    const q = afterReadsQueue(1, () => now);
    const calls: number[] = [];
    q(() => calls.push(1));
    now = 0.5;
    q(() => calls.push(2));
    expect(calls).toEqual([]);
    now = 1;
    q(() => calls.push(3));
    expect(calls).toEqual([1, 2, 3]);
    // A new wait starts with the next one given.
    now = 1.9;
    q(() => calls.push(4));
    now = 2.5;
    q(() => calls.push(5));
    expect(calls).toEqual([1, 2, 3]);
    await turnOver();
    expect(calls).toEqual([1, 2, 3, 4, 5]);
    await turnOver();
    expect(calls).toEqual([1, 2, 3, 4, 5]);
  });

  it('past the bound within a read, runs them at the end of that read, after what that end was given before', async () => {
    let now = 0;
    const q = afterReadsQueue(1, () => now);
    const calls: string[] = [];
    q(() => calls.push('earlier read'));
    now = 2;
    read(() => {
      atBurstEnd(() => calls.push("the read's append"));
      q(() => calls.push('this read'));
      q(() => calls.push('this read, again'));
      expect(calls).toEqual([]);
    });
    expect(calls).toEqual(["the read's append", 'earlier read', 'this read', 'this read, again']);
    await turnOver();
    expect(calls).toHaveLength(4);
  });

  it('one that throws is reported and stops none of the others', async () => {
    const reported: unknown[] = [];
    const before = config.onUnhandledError;
    config.onUnhandledError = (e) => reported.push(e);
    try {
      const q = afterReadsQueue(1, () => 0);
      const calls: string[] = [];
      const boom = new Error('write failed');
      q(() => calls.push('a'));
      q(() => {
        throw boom;
      });
      q(() => calls.push('c'));
      await turnOver();
      expect(calls).toEqual(['a', 'c']);
      await new Promise((r) => setTimeout(r, 5));
      expect(reported).toEqual([boom]);
    } finally {
      config.onUnhandledError = before;
    }
  });
});

/** A client's response that records each write with the order of all writes. */
class RecordingResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  writableEnded = false;
  headersSent = false;
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {
    super();
  }
  writeHead(): this {
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {}
  write(chunk: string | Buffer): boolean {
    const text = chunk.toString();
    for (const m of text.matchAll(/^id: (\d+)$/gm)) this.log.push(`${this.name}:${m[1]}`);
    return true;
  }
  end(): this {
    this.writableEnded = true;
    return this;
  }
}

const stillQueue = afterReadsQueue(1, () => 0);

const delta = (n: number): ResponseStreamEvent =>
  ({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hi', logprobs: [], sequence_number: n }) as unknown as ResponseStreamEvent;

/** A pump whose reads' writes wait in a queue with a clock that stands still (the bound is tested above). */
function pump(name: string, log: string[]): Subject<ResponseStreamEvent> {
  const source = new Subject<ResponseStreamEvent>();
  pumpSSE({
    afterReads: stillQueue,
    res: new RecordingResponse(name, log) as unknown as ServerResponse,
    open: () => source,
    heartbeatMs: 0,
    onFailedBeforeStart: () => undefined,
    onDone: () => undefined,
  });
  return source;
}

/** What an upstream read does: its events passed on within a burst (lib/burst.ts). */
function read(f: () => void): void {
  burstStarts();
  try {
    f();
  } finally {
    burstEnded();
  }
}

describe('the pump', () => {
  it("writes the frames of a turn's upstream reads after all of them, each client's joined, in the order read", async () => {
    const log: string[] = [];
    const a = pump('a', log);
    const b = pump('b', log);
    read(() => {
      a.next(delta(0));
      a.next(delta(1));
    });
    read(() => b.next(delta(0)));
    read(() => a.next(delta(2)));
    expect(log).toEqual([]);
    await turnOver();
    expect(log).toEqual(['a:0', 'a:1', 'a:2', 'b:0']);
  });

  it('writes events that came from outside a read (the log) on the next tick', async () => {
    const log: string[] = [];
    const a = pump('a', log);
    a.next(delta(0));
    a.next(delta(1));
    expect(log).toEqual([]);
    await new Promise((r) => process.nextTick(r));
    expect(log).toEqual(['a:0', 'a:1']);
  });
});
