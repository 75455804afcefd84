// A caller's `signal` (config.signal) aborting a stream mid-way: no event after the abort, one typed error,
// the connection closed, nothing left running. And a signal aborted before subscribing sends nothing.
import { Observable } from 'rxjs';
import { isRetryableError, OpenAIRxError, resumeFrom, retrieveResponseStream, streamChatCompletion, streamResponse, type ResponseStreamEvent } from '../../index.js';
import { startTestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';
import { trackTimers } from '../helpers/timers';

function untilEnd<T>(o: Observable<T>, onValue: (v: T, n: number) => void): Promise<{ values: T[]; error?: unknown; completed: boolean }> {
  return new Promise((resolve) => {
    const values: T[] = [];
    o.subscribe({
      next: (v) => {
        values.push(v);
        onValue(v, values.length);
      },
      error: (error: unknown) => resolve({ values, error, completed: false }),
      complete: () => resolve({ values, completed: true }),
    });
  });
}

describe("a caller's signal", () => {
  test('aborting mid-stream: no event after the abort, one typed error, the connection closed, no timer left', async () => {
    const timers = trackTimers();
    // Slow enough that the abort lands mid-body: 64 bytes every 5 ms of a 110 KB transcript.
    const server = await startTestServer({ transcripts: { t: fixture('long-text') }, chunkSize: 64, chunkDelayMs: 5 });
    try {
      const controller = new AbortController();
      let atAbort = -1;
      const r = await untilEnd(streamResponse({ model: 't', input: 'x' }, { baseURL: server.baseURL, apiKey: 'k', signal: controller.signal, idleTimeoutMs: 60_000 }), (_e: ResponseStreamEvent, n) => {
        if (n === 3) {
          controller.abort();
          atAbort = n;
        }
      });
      expect(atAbort).toBe(3);
      expect(r.completed).toBe(false);
      expect(r.values).toHaveLength(3);
      expect(r.error).toBeInstanceOf(OpenAIRxError);
      expect((await server.waitForClose(0)).outcome).toBe('client-closed');
    } finally {
      await server.close();
    }
    expect(await timers.leftover()).toEqual([]);
  });

  test('the chat transport too', async () => {
    const server = await startTestServer({ transcripts: { c: fixture('chat-text') }, chunkSize: 16, chunkDelayMs: 5 });
    try {
      const controller = new AbortController();
      const r = await untilEnd(streamChatCompletion({ model: 'c', messages: [] }, { baseURL: server.baseURL, apiKey: 'k', signal: controller.signal }), (_c, n) => {
        if (n === 1) controller.abort();
      });
      expect(r.values).toHaveLength(1);
      expect(r.completed).toBe(false);
      expect(r.error).toBeInstanceOf(OpenAIRxError);
      expect((await server.waitForClose(0)).outcome).toBe('client-closed');
    } finally {
      await server.close();
    }
  });

  test('a signal aborted before subscribing: a typed error and no request', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('plain-text') } });
    try {
      const r = await untilEnd(streamResponse({ model: 't', input: 'x' }, { baseURL: server.baseURL, apiKey: 'k', signal: AbortSignal.abort() }), () => undefined);
      expect(r.values).toEqual([]);
      expect(r.error).toMatchObject({ name: 'AbortedError', retryable: false });
      expect(server.requests.filter((q) => q.route !== 'unknown')).toEqual([]);
    } finally {
      await server.close();
    }
  });

  // An abort the caller made is final: an AbortedError, not retryable, so resumeFrom does not reconnect (was a
  // retryable StreamInterruptedError mid-body, and a retryable NetworkError before the headers).
  test('the abort is final: its error is not retryable, and resumeFrom does not reconnect', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('long-text') }, chunkSize: 64, chunkDelayMs: 5 });
    try {
      const controller = new AbortController();
      const config = { baseURL: server.baseURL, apiKey: 'k', signal: controller.signal };
      let reconnects = 0;
      const r = await untilEnd(
        streamResponse({ model: 't', input: 'x' }, config).pipe(
          resumeFrom((c) => (reconnects++, retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config)), { delayMs: 1 }),
        ),
        (_e, n) => n === 3 && controller.abort(),
      );
      expect(r.values).toHaveLength(3);
      expect(r.error).toMatchObject({ name: 'AbortedError', code: 'aborted', retryable: false });
      expect(isRetryableError(r.error)).toBe(false);
      expect(reconnects).toBe(0);
    } finally {
      await server.close();
    }
  });
});
