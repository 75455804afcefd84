// resumeFrom's promises that had no test of their own: an idle timeout is retryable (a stalled stream is
// resumed), `onCursor` fires only after the event was delivered, and the `retryable` option decides which
// errors are worth a reconnect.
import { lastValueFrom, Observable, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  fromResponsesSSE, HTTPError, IdleTimeoutError, isRetryableError, resumeFrom, retrieveResponseStream, StreamInterruptedError, streamResponse,
  type ResponseStreamEvent, type ResumeCursor,
} from '../../index.js';
import { startTestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';
import { assertMarbles } from '../helpers/marbles';
import { runSync } from '../reliability/harness';

const recording = (name: string) => runSync(fromResponsesSSE(fixture(name))).values.map((e) => JSON.stringify(e));

describe('IdleTimeoutError is retryable: a stalled stream is resumed', () => {
  test('the error says so', () => {
    const e = new IdleTimeoutError(100);
    expect(e.retryable).toBe(true);
    expect(isRetryableError(e)).toBe(true);
  });

  test('a server that stalls after 3 events: resumeFrom reconnects after the idle timeout and delivers every event once', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('plain-text') }, faults: [{ type: 'stall', afterEvents: 3 }] });
    try {
      // 500 ms without a byte counts as a stall. On a very busy machine a healthy stream could pause that long:
      // then it is resumed once more, which changes nothing below (progress resets the attempts).
      const config = { baseURL: server.baseURL, apiKey: 'k', idleTimeoutMs: 500 };
      const errors: unknown[] = [];
      const got = await lastValueFrom(
        streamResponse({ model: 't', input: 'x' }, config).pipe(
          resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), {
            delayMs: 1,
            retryable: (e) => (errors.push(e), isRetryableError(e)),
          }),
          toArray(),
        ),
      );
      expect(got.map((e) => JSON.stringify(e))).toEqual(recording('plain-text'));
      expect(errors[0]).toBeInstanceOf(IdleTimeoutError);
      // The stalled connection was closed by the client; the resume asked for the events after the third.
      expect((await server.waitForClose(0)).outcome).toBe('client-closed');
      expect(server.requests[1]).toMatchObject({ route: 'responses.stream' });
      expect(server.requests[1]!.query).toMatchObject({ starting_after: '2' });
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('onCursor fires only after the event was delivered', () => {
  const events = runSync(fromResponsesSSE(fixture('plain-text'))).values;

  test('each cursor comes after the subscriber received that event, never before', () => {
    const log: string[] = [];
    fromResponsesSSE(fixture('plain-text'))
      .pipe(resumeFrom(() => new Observable<ResponseStreamEvent>(), { onCursor: (c) => log.push(`cursor ${c.sequenceNumber}`) }))
      .subscribe((e) => log.push(`next ${e.sequence_number}`));
    const expected = events.flatMap((e) => [`next ${e.sequence_number}`, `cursor ${e.sequence_number}`]);
    expect(log).toEqual(expected);
  });

  test('a subscriber that stops after two events gets cursors for those two only', () => {
    const cursors: ResumeCursor[] = [];
    const got: ResponseStreamEvent[] = [];
    fromResponsesSSE(fixture('plain-text'))
      .pipe(resumeFrom(() => new Observable<ResponseStreamEvent>(), { onCursor: (c) => cursors.push(c) }), take(2))
      .subscribe((e) => got.push(e));
    expect(got).toHaveLength(2);
    expect(cursors.map((c) => c.sequenceNumber)).toEqual(got.slice(0, cursors.length).map((e) => e.sequence_number));
    expect(cursors.length).toBeLessThanOrEqual(2);
  });

});

describe('the retryable option', () => {
  const resp = { id: 'resp_1', object: 'response', status: 'in_progress', output: [] };
  const values = {
    a: { type: 'response.created', response: resp, sequence_number: 0 } as unknown as ResponseStreamEvent,
    b: { type: 'response.in_progress', response: resp, sequence_number: 1 } as unknown as ResponseStreamEvent,
    z: { type: 'response.completed', response: { ...resp, status: 'completed' }, sequence_number: 2 } as unknown as ResponseStreamEvent,
  };
  const badRequest = new HTTPError(400, 'invalid_value', 'bad', 'req_1');
  const cut = new StreamInterruptedError('resp_1', 0);
  const scheduler = () => new TestScheduler(assertMarbles);

  test('default (isRetryableError): a 400 passes through at once, a cut is resumed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      let calls = 0;
      const reconnect = () => (calls++, cold('-b-z|', values));
      expectObservable(cold('-a-#', values, badRequest).pipe(resumeFrom(reconnect, { delayMs: 1 }))).toBe('-a-#', values, badRequest);
      expectObservable(cold('-a-#', values, cut).pipe(resumeFrom(reconnect, { delayMs: 1 }))).toBe('-a---b-z|', values);
    });
  });

  test('retryable: () => false turns off resuming, even for a cut stream; it is asked with the error', () => {
    scheduler().run(({ cold, expectObservable, flush }) => {
      const asked: unknown[] = [];
      let calls = 0;
      const out = cold('-a-#', values, cut).pipe(resumeFrom(() => (calls++, cold('-b-z|', values)), { delayMs: 1, retryable: (e) => (asked.push(e), false) }));
      expectObservable(out).toBe('-a-#', values, cut);
      flush();
      expect(asked).toEqual([cut]);
      expect(calls).toBe(0);
    });
  });

  test('retryable can resume on an error the default would not (a 400 here)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const reconnect = () => cold('-b-z|', values);
      const out = cold('-a-#', values, badRequest).pipe(resumeFrom(reconnect, { delayMs: 1, retryable: (e) => e instanceof HTTPError && e.status === 400 }));
      expectObservable(out).toBe('-a---b-z|', values);
    });
  });

  // A `retryable` that throws ends the stream with what it threw, as a throwing `delay` does (was a hang: the
  // throw escaped the source's error callback and RxJS reported it as unhandled).
  test('a retryable that throws ends the stream with what it threw, not a hang', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const boom = new Error('predicate failed');
      const out = cold('-a-#', values, cut).pipe(resumeFrom(() => cold('-b-z|', values), { delayMs: 1, retryable: () => { throw boom; } }));
      expectObservable(out).toBe('-a-#', values, boom);
    });
  });
});
