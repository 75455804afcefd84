import { DecodeError, DurableStreamError, NetworkError } from '../lib/errors';
import { defaultRetryDelay, retryPolicyOf, retryReads } from '../lib/durable-streams/from-durable-stream-retry';
import { marbleScheduler } from '../test/helpers/marbles';

// The reconnect timing of fromDurableStream (retryReads), on the TestScheduler: each exchange with the server is a
// cold source here; its values are the reader's progress, its error what the exchange failed with.

const cut = new NetworkError('socket hang up');
const unavailable = new DurableStreamError(503, 'http://h/s', undefined);
const notFound = new DurableStreamError(404, 'http://h/s', undefined);

describe('fromDurableStream: reconnect timing (retryReads)', () => {
  test('a retryable error resubscribes after the delay, up to maxAttempts in a row, then passes', () => {
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('--#', undefined, cut);
      const policy = retryPolicyOf({ maxAttempts: 2, delayMs: 3 });
      expectObservable(src.pipe(retryReads(policy))).toBe('------------#', undefined, cut);
      expectSubscriptions(src.subscriptions).toBe(['^-!', '-----^-!', '----------^-!']);
    });
  });

  test('progress (any value) resets the count: a reader that keeps moving is never given up', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const src = cold('a-#', { a: 'progress' }, unavailable);
      // maxAttempts 1: one failure in a row is retried, and each retry makes progress again.
      const out = src.pipe(retryReads(retryPolicyOf({ maxAttempts: 1, delayMs: 1 })));
      expectObservable(out, '^----------!').toBe('a--a--a--a-', { a: 'progress' });
    });
  });

  test('the delay function is given the attempt (1-based since the last progress) and the error', () => {
    const seen: Array<[number, unknown]> = [];
    marbleScheduler().run(({ cold, expectObservable }) => {
      const src = cold('#', undefined, unavailable);
      const delayMs = (attempt: number, error: unknown) => {
        seen.push([attempt, error]);
        return attempt * 2;
      };
      // Waits of 2, 4 and 6 frames, then the error.
      expectObservable(src.pipe(retryReads(retryPolicyOf({ maxAttempts: 3, delayMs })))).toBe('------------#', undefined, unavailable);
    });
    expect(seen).toEqual([
      [1, unavailable],
      [2, unavailable],
      [3, unavailable],
    ]);
  });

  test('a final error (4xx, a decoding failure) passes at once', () => {
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-#', { a: 1 }, notFound);
      expectObservable(src.pipe(retryReads(retryPolicyOf({ delayMs: 5 })))).toBe('-a-#', { a: 1 }, notFound);
      expectSubscriptions(src.subscriptions).toBe('^--!');
      const bad = new DecodeError('malformed JSON');
      const src2 = cold('#', undefined, bad);
      expectObservable(src2.pipe(retryReads(retryPolicyOf({ delayMs: 5 })))).toBe('#', undefined, bad);
    });
  });

  test('maxAttempts 0: no reconnect', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('--#', undefined, cut).pipe(retryReads(retryPolicyOf({ maxAttempts: 0, delayMs: 1 })))).toBe('--#', undefined, cut);
    });
  });

  test('unsubscribing during a wait clears it: no resubscription', () => {
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-#', undefined, cut);
      expectObservable(src.pipe(retryReads(retryPolicyOf({ delayMs: 10 }))), '^--!').toBe('---');
      expectSubscriptions(src.subscriptions).toBe('^!');
    });
  });

  test('the default delay doubles from 500 ms to 8 s, jittered ±20%, never under Retry-After (up to 60 s)', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 10].map((a) => defaultRetryDelay(a, cut, mid))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(defaultRetryDelay(1, cut, () => 0)).toBe(400);
    expect(defaultRetryDelay(1, cut, () => 0.999999)).toBeCloseTo(600, 0);
    expect(defaultRetryDelay(1, new DurableStreamError(429, 'http://h/s', undefined, 3000), mid)).toBe(3000);
    expect(defaultRetryDelay(1, new DurableStreamError(429, 'http://h/s', undefined, 3_600_000), mid)).toBe(60_000);
  });
});
