import { Observable } from 'rxjs';
import { DecodeError, HTTPError, NetworkError, ResponseCancelledError, ResponseStreamError, StreamInterruptedError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import { exponentialBackoff, resumeFrom, resumeFromCursor, type ResumeCursor } from '../operators/resumeFrom';
import { marbleScheduler } from '../test/helpers/marbles';

const resp = (status: string) => ({ id: 'resp_1', object: 'response', status, output: [] });
const ev = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
const created = ev({ type: 'response.created', response: resp('in_progress'), sequence_number: 0 });
const delta = (n: number) => ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: `d${n}`, logprobs: [], sequence_number: n });
// An event without a sequence_number (a proxy's or a second provider's), which cannot move the cursor.
const unsequenced = ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'again', logprobs: [] });
const completed = (n: number) => ev({ type: 'response.completed', response: resp('completed'), sequence_number: n });

const cut = new StreamInterruptedError('resp_1', 2);
const values = { a: created, b: delta(1), c: delta(2), d: delta(3), e: completed(4) };

function scheduler() {
  return marbleScheduler();
}

/** A reconnect function that hands out the given Observables in order and records its cursors. */
function reconnects(...streams: Array<Observable<ResponseStreamEvent>>) {
  const cursors: ResumeCursor[] = [];
  const fn = (c: ResumeCursor) => {
    cursors.push(c);
    const next = streams[cursors.length - 1];
    if (!next) throw new Error(`unexpected reconnect #${cursors.length}`);
    return next;
  };
  return { fn, cursors };
}

describe('resumeFrom', () => {
  test('without a failure it mirrors the source, completion included', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const r = reconnects();
      const src = cold('-a-b-c-d-e|', values);
      expectObservable(src.pipe(resumeFrom(r.fn, { delayMs: 3 }))).toBe('-a-b-c-d-e|', values);
      expect(r.cursors).toEqual([]);
    });
  });

  test('after an interruption it waits the delay, reconnects from the cursor and drops the replayed duplicate', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const again = cold('-c-d-e|', values);
      const r = reconnects(again);
      const src = cold('-a-b-c-#', values, cut);
      expectObservable(src.pipe(resumeFrom(r.fn, { delayMs: 3 }))).toBe('-a-b-c 7ms d-e|', values);
      // error at 7, delay 3: the reconnect is subscribed at 10.
      expectSubscriptions(again.subscriptions).toBe('10ms ^-----!');
    });
  });

  test('the reconnect gets the id of the response and the last delivered sequence number', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const r = reconnects(cold('-d-e|', values));
      expectObservable(cold('-a-b-c-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 0 }))).toBe('-a-b-c--d-e|', values);
      flush();
      expect(r.cursors).toEqual([{ responseId: 'resp_1', sequenceNumber: 2 }]);
    });
  });

  test('attempts back off by the delay function, and the error passes through after maxAttempts', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const net = new NetworkError('reset');
      const r = reconnects(cold('-#', {}, net), cold('-#', {}, net), cold('-#', {}, net));
      const seen: Array<[number, unknown]> = [];
      const delay = (attempt: number, error: unknown) => {
        seen.push([attempt, error]);
        return attempt * 10;
      };
      // error at 3; waits 10 → 13, fails at 14; waits 20 → 34, fails at 35; waits 30 → 65, fails at 66: gives up.
      expectObservable(cold('-a-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: delay, maxAttempts: 3 }))).toBe('-a 64ms #', values, net);
      flush();
      expect(seen).toEqual([[1, cut], [2, net], [3, net]]);
      expect(r.cursors).toHaveLength(3);
    });
  });

  test('delivering a new event resets the attempt count', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const net = new NetworkError('reset');
      // Each reconnect delivers one new event and then breaks: with maxAttempts 1 that still goes on.
      const r = reconnects(cold('-c-#', values, net), cold('-d-#', values, net), cold('-e|', values));
      const delay = (attempt: number) => attempt * 100;
      expectObservable(cold('-a-b-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: delay, maxAttempts: 1 }))).toBe('-a-b 102ms c 102ms d 102ms e|', values);
    });
  });

  test('a dropped duplicate is not a new event: it does not reset the attempt count', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const net = new NetworkError('reset');
      const r = reconnects(cold('-b-#', values, net));
      expectObservable(cold('-a-b-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 1, maxAttempts: 1 }))).toBe('-a-b-----#', values, net);
    });
  });

  test('an unsequenced event does not reset the attempt count: a server that replays it and drops runs out of attempts', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const net = new NetworkError('reset');
      const r = reconnects(cold('-u-#', { u: unsequenced }, net), cold('-u-#', { u: unsequenced }, net));
      // error at 3; reconnect at 4 fails at 7; reconnect at 8 fails at 11: gives up, u never delivered.
      expectObservable(cold('-a-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 1, maxAttempts: 2 }))).toBe('-a 9ms #', values, net);
      flush();
      expect(r.cursors).toHaveLength(2);
    });
  });

  test('on a reconnected stream, unsequenced events before the cursor moves are replay and dropped; after it they pass', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const r = reconnects(cold('-u-c-u-d-e|', { ...values, u: unsequenced }));
      expectObservable(cold('-a-u-b-#', { ...values, u: unsequenced }, cut).pipe(resumeFrom(r.fn, { delayMs: 1 }))).toBe('-a-u-b-----c-u-d-e|', {
        ...values,
        u: unsequenced,
      });
    });
  });

  test('with a saved cursor, unsequenced events before the first new one are dropped as replay', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const r = reconnects();
      const cursor = { responseId: 'resp_1', sequenceNumber: 1 };
      expectObservable(cold('-u-b-c-u-|', { ...values, u: unsequenced }).pipe(resumeFrom(r.fn, { cursor }))).toBe('-----c-u-|', { ...values, u: unsequenced });
    });
  });

  test.each([
    ['HTTP 400', new HTTPError(400, 'invalid_request_error', 'bad', 'req_1')],
    ['HTTP 404', new HTTPError(404, null, 'not found', 'req_1')],
    ['response.failed', new ResponseStreamError('response.failed', 'server_error', 'failed', undefined, 3, 'resp_1', {})],
    ['an error event', new ResponseStreamError('error', 'rate_limit_exceeded', 'slow down', null, 3, 'resp_1', {})],
    ['a decode error', new DecodeError('malformed JSON', 'response.output_text.delta', 3)],
    ['a plain Error', new Error('bug')],
  ])('%s passes through at once, without a reconnect', (_label, err) => {
    scheduler().run(({ cold, expectObservable }) => {
      const r = reconnects();
      expectObservable(cold('-a-b-#', values, err).pipe(resumeFrom(r.fn, { delayMs: 1 }))).toBe('-a-b-#', values, err);
      expect(r.cursors).toEqual([]);
    });
  });

  test.each([408, 409, 429, 500, 503])('HTTP %i is retried', (status) => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new HTTPError(status, null, 'try later', 'req_1');
      const r = reconnects(cold('-#', {}, err), cold('-d-e|', values));
      expectObservable(cold('-a-b-c-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 2 }))).toBe('-a-b-c 7ms d-e|', values);
    });
  });

  test('a failure before the response id is known passes through', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const r = reconnects();
      const net = new NetworkError('refused');
      expectObservable(cold('--#', values, net).pipe(resumeFrom(r.fn, { delayMs: 1 }))).toBe('--#', values, net);
      expect(r.cursors).toEqual([]);
    });
  });

  test('unsubscribing during the back-off cancels the pending reconnect', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const again = cold('-d-e|', values);
      const r = reconnects(again);
      const src = cold('-a-b-c-#', values, cut);
      expectObservable(src.pipe(resumeFrom(r.fn, { delayMs: 10 })), '^--------!').toBe('-a-b-c---', values);
      flush();
      expect(r.cursors).toEqual([]);
      expect(again.subscriptions).toEqual([]);
    });
  });

  test('unsubscribing after a reconnect unsubscribes the reconnected stream', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const again = cold('-d---e|', values);
      const r = reconnects(again);
      expectObservable(cold('-a-b-c-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 1 })), '^-------- 2ms !').toBe('-a-b-c---d-', values);
      expectSubscriptions(again.subscriptions).toBe('8ms ^--!');
    });
  });

  test('cursor drops what the saved cursor covers and makes an early failure resumable', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const r = reconnects(cold('-d-e|', values));
      const cursor = { responseId: 'resp_1', sequenceNumber: 1 };
      const src = cold('-b-c-#', values, cut);
      expectObservable(src.pipe(resumeFrom(r.fn, { delayMs: 1, cursor }))).toBe('---c---d-e|', values);
      flush();
      expect(r.cursors).toEqual([{ responseId: 'resp_1', sequenceNumber: 2 }]);
    });
  });

  test('resumeFromCursor starts with reconnect(cursor) and keeps resuming', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const r = reconnects(cold('-c-#', values, cut), cold('-d-e|', values));
      expectObservable(resumeFromCursor({ responseId: 'resp_1', sequenceNumber: 1 }, r.fn, { delayMs: 1 })).toBe('-c---d-e|', values);
      flush();
      expect(r.cursors).toEqual([{ responseId: 'resp_1', sequenceNumber: 1 }, { responseId: 'resp_1', sequenceNumber: 2 }]);
    });
  });

  test('onCursor sees the cursor advance after each delivered event, across the seam', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const seen: ResumeCursor[] = [];
      const r = reconnects(cold('-c-d-e|', values));
      const out = cold('-a-b-c-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 1, onCursor: (c) => seen.push(c) }));
      expectObservable(out).toBe('-a-b-c 5ms d-e|', values);
      flush();
      expect(seen.map((c) => c.sequenceNumber)).toEqual([0, 1, 2, 3, 4]);
      expect(new Set(seen.map((c) => c.responseId))).toEqual(new Set(['resp_1']));
    });
  });

  describe('a cancelled response is over for good', () => {
    const cancelledEvent = (type: string, status: string, n: number) => ev({ type, response: resp(status), sequence_number: n });
    const cancelled = new ResponseCancelledError('response.cancelled', 3, 'resp_1', undefined);

    test('ResponseCancelledError passes through at once, even when retryable says every error is worth a reconnect', () => {
      scheduler().run(({ cold, expectObservable, flush }) => {
        const r = reconnects();
        const retryable = jest.fn(() => true);
        expectObservable(cold('-a-b-#', values, cancelled).pipe(resumeFrom(r.fn, { delayMs: 1, retryable }))).toBe('-a-b-#', values, cancelled);
        flush();
        expect(r.cursors).toEqual([]);
        expect(retryable).not.toHaveBeenCalled();
      });
    });

    test('a second copy of the library\'s cancellation (the same code) passes through too', () => {
      scheduler().run(({ cold, expectObservable }) => {
        const r = reconnects();
        const foreign = Object.assign(new Error('the response was cancelled'), { code: 'response_cancelled', retryable: true });
        expectObservable(cold('-a-b-#', values, foreign).pipe(resumeFrom(r.fn, { delayMs: 1 }))).toBe('-a-b-#', values, foreign);
        expect(r.cursors).toEqual([]);
      });
    });

    test.each([
      ['response.cancelled', 'cancelled'],
      ['response.canceled', 'canceled'],
      ['response.failed', 'cancelled'],
      ['response.incomplete', 'cancelled'],
      ['response.completed', 'completed'],
    ])('after a terminal %s (status %s) a retryable failure passes through: nothing can follow it', (type, status) => {
      scheduler().run(({ cold, expectObservable }) => {
        const r = reconnects(cold('-d|', values));
        const t = cancelledEvent(type, status, 3);
        expectObservable(cold('-a-b-t-#', { ...values, t }, cut).pipe(resumeFrom(r.fn, { delayMs: 1 }))).toBe('-a-b-t-#', { ...values, t }, cut);
        expect(r.cursors).toEqual([]);
      });
    });
  });

  describe('a throwing onCursor', () => {
    test('ends the stream with what it threw, after the event it was called for, and lets the source go', () => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const r = reconnects();
        const boom = new Error('disk full');
        const onCursor = (c: ResumeCursor) => {
          if (c.sequenceNumber === 1) throw boom;
        };
        const src = cold('-a-b-c-d-e|', values);
        expectObservable(src.pipe(resumeFrom(r.fn, { delayMs: 1, onCursor }))).toBe('-a-(b#)', values, boom);
        expectSubscriptions(src.subscriptions).toBe('^--!');
      });
    });

    test('on a reconnected stream too, and no further reconnect is made', () => {
      scheduler().run(({ cold, expectObservable, flush }) => {
        const again = cold('-c-d-e|', values);
        const r = reconnects(again);
        const boom = new Error('quota');
        const onCursor = (c: ResumeCursor) => {
          if (c.sequenceNumber === 3) throw boom;
        };
        expectObservable(cold('-a-b-#', values, cut).pipe(resumeFrom(r.fn, { delayMs: 1, onCursor }))).toBe('-a-b---c-(d#)', values, boom);
        flush();
        expect(r.cursors).toHaveLength(1);
      });
    });

    test('a synchronous source is let go at the throw: nothing after it is read', () => {
      const read: number[] = [];
      const src = new Observable<ResponseStreamEvent>((s) => {
        for (const e of [created, delta(1), delta(2), delta(3)]) {
          if (s.closed) return;
          read.push(e.sequence_number as number);
          s.next(e);
        }
        s.complete();
      });
      const got: unknown[] = [];
      src.pipe(resumeFrom(() => src, { onCursor: (c) => { if (c.sequenceNumber === 1) throw new Error('no'); } })).subscribe({ next: (e) => got.push(e.sequence_number), error: (e: unknown) => got.push(e) });
      expect(read).toEqual([0, 1]);
      expect(got).toEqual([0, 1, new Error('no')]);
    });
  });

  test('the default delay is exponential: 0.5 s, 1 s, 2 s, 4 s, 8 s, then the error passes through', () => {
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      scheduler().run(({ cold, expectObservable }) => {
        const net = new NetworkError('reset');
        const r = reconnects(...Array.from({ length: 5 }, () => cold<ResponseStreamEvent>('#', {}, net)));
        // error at 1; reconnects at 501, 1501, 3501, 7501, 15501, each failing at once.
        expectObservable(cold('a#', values, cut).pipe(resumeFrom(r.fn))).toBe('a 15500ms #', values, net);
      });
    } finally {
      random.mockRestore();
    }
  });
});

describe('exponentialBackoff', () => {
  test('doubles from initial up to max', () => {
    const d = exponentialBackoff({ jitter: 0 });
    expect([1, 2, 3, 4, 5, 6, 10].map((a) => d(a, null))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  test('jitter spreads the delay either way', () => {
    expect(exponentialBackoff({ initialMs: 1000, jitter: 0.2, random: () => 0 })(1, null)).toBe(800);
    expect(exponentialBackoff({ initialMs: 1000, jitter: 0.2, random: () => 0.999999 })(1, null)).toBe(1200);
  });

  test("a longer Retry-After from the server wins over the back-off, up to maxRetryAfterMs", () => {
    const d = exponentialBackoff({ jitter: 0, maxRetryAfterMs: 10_000 });
    expect(d(1, new HTTPError(429, 'rate_limit_exceeded', 'slow down', null, null, null, 3000))).toBe(3000);
    expect(d(1, new HTTPError(429, 'rate_limit_exceeded', 'slow down', null, null, null, 100))).toBe(500);
    expect(d(1, new HTTPError(503, null, 'busy', null, null, null, 120_000))).toBe(10_000);
    expect(d(2, new HTTPError(503, null, 'busy', null))).toBe(1000);
  });

  test('the default delay waits as long as a 429 asked, in virtual time', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const created = { type: 'response.created', response: { id: 'resp_1' }, sequence_number: 0 } as unknown as ResponseStreamEvent;
      const done = { type: 'response.completed', response: { id: 'resp_1' }, sequence_number: 1 } as unknown as ResponseStreamEvent;
      const source = cold<ResponseStreamEvent>('a-#', { a: created }, new StreamInterruptedError('resp_1', 0));
      let calls = 0;
      const reconnect = () =>
        calls++ === 0 ? cold<ResponseStreamEvent>('#', {}, new HTTPError(429, 'rate_limit_exceeded', 'slow down', null, null, null, 5000)) : cold<ResponseStreamEvent>('b|', { b: done });
      const out = source.pipe(resumeFrom(reconnect, { delayMs: exponentialBackoff({ jitter: 0, initialMs: 100 }) }));
      // drop at 2, first reconnect after 100 ms answers 429 (Retry-After 5 s), the second goes at 102 + 5000.
      expectObservable(out).toBe('a 5101ms b|', { a: created, b: done });
    });
  });
});
