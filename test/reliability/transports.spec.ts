// Transports under a slow or stalled server, and resource release: unsubscribing at any point closes the
// HTTP connection (the server sees it), releases WebSocket lanes, clears timers; afterwards no handle remains.
import { filter, firstValueFrom, lastValueFrom, Subject, take, toArray, type Subscription } from 'rxjs';
import {
  connectResponsesSocket, fromResponsesSSE, IdleTimeoutError, laneMux, resumeFrom, retrieveResponseStream, streamChatCompletion, streamResponse,
  type ResponseStreamEvent, type ResponsesClientEvent,
} from '../../index.js';
import { startResponsesWebSocketServer, startTestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';
import { trackTimers } from '../helpers/timers';
import { runSync } from './harness';

const expected = (name: string) => runSync(fromResponsesSSE(fixture(name))).values.map((e) => JSON.stringify(e));
// Typed here: @types/node 20.9 does not declare it (Node 17+ has it).
const activeResources = (): string[] => (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo();
const handles = () => activeResources().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap' && r !== 'Timeout' && r !== 'Immediate').sort();
// (TTY and pipe handles are jest's own stdio.)
/** Handles once closing sockets have finished closing (their close events arrive a few ticks later). */
async function settled(baseline: string[]): Promise<string[]> {
  for (let i = 0; i < 100 && JSON.stringify(handles()) !== JSON.stringify(baseline); i++) await new Promise((r) => setTimeout(r, 10));
  return handles();
}

describe('a slow server', () => {
  test('one byte per write: the same events as the recording', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('failed') }, chunkSize: 1 });
    try {
      const got = await lastValueFrom(streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k', errorEvents: 'value' }).pipe(toArray()));
      expect(got.map((e) => JSON.stringify(e))).toEqual(expected('failed'));
      expect(server.requests[0]!.outcome).toBe('completed');
    } finally {
      await server.close();
    }
  });

  test('7 bytes every 2 ms, then pauses shorter than idleTimeoutMs: complete and correct', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('plain-text') }, chunkSize: 7, chunkDelayMs: 2 });
    try {
      const got = await lastValueFrom(streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k', idleTimeoutMs: 2000 }).pipe(toArray()));
      expect(got.map((e) => JSON.stringify(e))).toEqual(expected('plain-text'));
    } finally {
      await server.close();
    }
  });

  test('a stalled stream ends with IdleTimeoutError and its connection is closed', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('plain-text') }, faults: [{ type: 'stall', afterEvents: 3 }] });
    try {
      const err = await lastValueFrom(streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k', idleTimeoutMs: 150 }).pipe(toArray()))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdleTimeoutError);
      expect((err as IdleTimeoutError).idleTimeoutMs).toBe(150);
      expect((await server.waitForClose(0)).outcome).toBe('client-closed');
    } finally {
      await server.close();
    }
  });

  test('a stall before the headers (no response at all) also ends with IdleTimeoutError', async () => {
    const server = await startTestServer({ transcripts: { t: fixture('plain-text') }, faults: [{ type: 'stall', afterBytes: 0 }] });
    try {
      const err = await lastValueFrom(streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k', idleTimeoutMs: 150 })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdleTimeoutError);
      expect((await server.waitForClose(0)).outcome).toBe('client-closed');
    } finally {
      await server.close();
    }
  });
});

describe('unsubscribing releases everything', () => {
  test('HTTP: unsubscribing before the headers and after every number of events closes the connection', async () => {
    const before = await settled([]);
    const timers = trackTimers();
    const server = await startTestServer({ transcripts: { t: fixture('plain-text'), c: fixture('chat-text') }, chunkSize: 64, chunkDelayMs: 1 });
    const total = expected('plain-text').length;
    const config = { baseURL: server.baseURL, apiKey: 'k', idleTimeoutMs: 5000 };
    let index = 0;
    for (let k = 0; k < total - 1; k++) {
      // after k events (k = 0: right after subscribing, before any byte)
      const events: ResponseStreamEvent[] = [];
      const sub: Subscription = streamResponse({ model: 't' }, config).subscribe((e) => {
        events.push(e);
        if (events.length >= k) sub.unsubscribe();
      });
      if (k === 0) {
        await server.waitForRequest(index);
        sub.unsubscribe();
      }
      const r = await server.waitForClose(index++);
      expect(r.outcome).toBe('client-closed');
    }
    // resumeFrom and the chat transport, unsubscribed mid-stream (resumeFrom while waiting to reconnect).
    server.inject({ type: 'drop', afterEvents: 3 });
    const resumed = streamResponse({ model: 't' }, config).pipe(
      resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 60_000 }),
    );
    const got: ResponseStreamEvent[] = [];
    const rs = resumed.subscribe((e) => got.push(e));
    await server.waitForClose(index++);
    rs.unsubscribe();
    const cs = streamChatCompletion({ model: 'c', messages: [] }, config).pipe(take(2)).subscribe();
    expect((await server.waitForClose(index++)).outcome).toMatch(/client-closed|completed/);
    cs.unsubscribe();
    await server.close();
    // No socket or server is left behind, and no timer this test started: the resume delay (60 s) and the
    // idle timeouts are cleared. (A leftover is reported with the stack that created it.)
    expect(await settled(before)).toEqual(before);
    expect(await timers.leftover()).toEqual([]);
  });

  test('WebSocket: unsubscribing laneMux mid-response releases the lanes; closing the socket leaves no handle', async () => {
    const before = await settled([]);
    const server = await startResponsesWebSocketServer();
    const socket = connectResponsesSocket({ url: server.url, apiKey: 'k' });
    const requests = new Subject<ResponsesClientEvent>();
    const out: unknown[] = [];
    const sub = requests.pipe(laneMux(socket)).subscribe((e) => out.push(e));
    for (let i = 0; i < 4; i++) requests.next({ type: 'response.create', stream_id: `l${i}`, model: 'm', input: 'x', metadata: { loopback_deltas: '50' } } as ResponsesClientEvent);
    await firstValueFrom(socket.events$.pipe(filter((e) => e.type === 'response.output_text.delta')));
    sub.unsubscribe();
    // The same lanes can be used again by a new laneMux at once: they were released.
    const again = await lastValueFrom(
      new Subject<ResponsesClientEvent>().pipe(() => {
        const s = new Subject<ResponsesClientEvent>();
        setTimeout(() => {
          s.next({ type: 'response.create', stream_id: 'l0', model: 'm', input: 'y' } as ResponsesClientEvent);
          s.complete();
        }, 0);
        return s.pipe(laneMux(socket), toArray());
      }),
    );
    expect(again.some((e) => (e as { type: string }).type === 'response.completed')).toBe(true);
    socket.close();
    await firstValueFrom(socket.state$.pipe(filter((s) => s === 'closed')));
    await server.close();
    expect(await settled(before)).toEqual(before);
  });
});
