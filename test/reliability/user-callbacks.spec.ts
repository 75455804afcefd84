// A user's callback that throws (or a promise of theirs that rejects) ends the stream it belongs to with that
// error, or answers the one request with an error status: it never escapes as an uncaught exception (RxJS
// reports a throw inside an observer asynchronously, where nothing can catch it) nor crashes a server.
// One case per kind of callback the library calls: resumeFrom's, an EventLog implementation's methods
// (persistTo, cancelResponse), fanOut's branches, bufferLimit's work, laneMux's socket, the transports'
// fetch; a WebSocket implementation and the gateway's authorize, fetch and log in user-callbacks-servers.
import { lastValueFrom, map, Observable, of, Subject, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponsesClientEvent } from '../../lib/events/websocket';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { cancelResponse } from '../../lib/log/cancel';
import { isLaneError } from '../../lib/ws/errors';
import type { LaneSocket, SocketEvent } from '../../lib/ws/types';
import { bufferLimit } from '../../operators/bufferLimit';
import { fanOut } from '../../operators/fanOut';
import { laneMux } from '../../operators/laneMux';
import { persistTo } from '../../operators/persistTo';
import { resumeFrom } from '../../operators/resumeFrom';
import { boom, brokenLog, ending, escaped, events } from './user-callbacks';

jest.setTimeout(30_000);

describe('resumeFrom', () => {
  it.each([
    ['onCursor throws', { onCursor: () => { throw boom(); } }],
    ['retryable throws', { retryable: () => { throw boom(); } }],
    ['delayMs throws', { delayMs: () => { throw boom(); } }],
  ])('%s: the stream ends with it', async (_, options) => {
    const cut = new Observable<ResponseStreamEvent>((s) => {
      const sub = events().subscribe({ next: (e) => (e.sequence_number === 3 ? s.error(Object.assign(new Error('cut'), { retryable: true })) : s.next(e)) });
      return sub;
    });
    let end: unknown;
    expect(await escaped(async () => (end = await ending(cut.pipe(resumeFrom(() => events(), { delayMs: 0, ...options })))))).toEqual([]);
    expect(end).toEqual(boom());
  });

  it('reconnect throws, or returns no Observable: that attempt fails with it', async () => {
    const cut = events().pipe(map((e) => {
      if (e.sequence_number === 3) throw Object.assign(new Error('cut'), { retryable: true });
      return e;
    }));
    let threw: unknown;
    let nothing: unknown;
    expect(await escaped(async () => {
      threw = await ending(cut.pipe(resumeFrom(() => { throw boom(); }, { delayMs: 0, maxAttempts: 1 })));
      nothing = await ending(cut.pipe(resumeFrom(() => undefined as unknown as Observable<ResponseStreamEvent>, { delayMs: 0, maxAttempts: 1 })));
    })).toEqual([]);
    expect(threw).toEqual(boom());
    expect(nothing).toBeInstanceOf(TypeError);
  });
});

describe('persistTo over an EventLog of the user', () => {
  it.each([
    ['acquire', 'throws'], ['acquire', 'rejects'], ['acquire', 'returns no promise'],
    ['append', 'throws'], ['append', 'rejects'], ['append', 'returns no promise'],
  ] as const)('whose %s %s: the stream ends with an EventLogError', async (method, how) => {
    const log = brokenLog(method, how);
    let end: unknown;
    try {
      expect(await escaped(async () => (end = await ending(events().pipe(persistTo(log)))))).toEqual([]);
    } finally {
      await log.close();
    }
    expect(end).toMatchObject({ name: 'EventLogError', reason: 'unavailable' });
  });

  it("whose release throws: the stream completes (the lease is the log's to drop)", async () => {
    const log = brokenLog('release', 'throws');
    let end: unknown;
    try {
      expect(await escaped(async () => (end = await ending(events().pipe(persistTo(log)))))).toEqual([]);
    } finally {
      await log.close();
    }
    expect(end).toBe('completed');
  });
});

describe('fanOut', () => {
  it('a branch that throws when it is built, or while it runs, ends the output with its error', async () => {
    let built: unknown;
    let running: unknown;
    expect(await escaped(async () => {
      built = await ending(events().pipe(fanOut(map((e: ResponseStreamEvent) => e.type), () => { throw boom(); })));
      running = await ending(events().pipe(fanOut(map((e: ResponseStreamEvent) => e.type), map(() => { throw boom(); }))));
    })).toEqual([]);
    expect(built).toEqual(boom());
    expect(running).toEqual(boom());
  });
});

describe('bufferLimit', () => {
  it.each([
    ['throws', () => { throw boom(); }],
    ['returns no ObservableInput', () => undefined as unknown as Observable<number>],
    ['returns a promise that rejects', () => Promise.reject(boom())],
  ])('work that %s ends the stream with the error', async (_, work) => {
    let end: unknown;
    expect(await escaped(async () => (end = await ending(of(1, 2, 3).pipe(bufferLimit(5, work)))))).toEqual([]);
    expect(end).toEqual(expect.any(Error));
  });
});

describe('laneMux over a LaneSocket of the user', () => {
  it('whose send throws: that request gets a LaneError, the output goes on', async () => {
    const socket: LaneSocket = { events$: new Subject<SocketEvent>(), send: () => { throw boom(); } };
    const create = { type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent;
    let out: unknown[] = [];
    expect(await escaped(async () => (out = await lastValueFrom(of(create).pipe(laneMux(socket), toArray()))))).toEqual([]);
    expect(out).toHaveLength(1);
    expect(isLaneError(out[0])).toBe(true);
  });

  it('whose events$ errors: the output errors with it', async () => {
    const socket: LaneSocket = { events$: new Observable<SocketEvent>((s) => s.error(boom())), send: () => undefined };
    const create = { type: 'response.create', model: 'm', input: 'hi' } as unknown as ResponsesClientEvent;
    let end: unknown;
    expect(await escaped(async () => (end = await ending(of(create).pipe(laneMux(socket)))))).toEqual([]);
    expect(end).toEqual(expect.any(Error));
  });
});

describe("the transports' fetch", () => {
  it.each([
    ['throws', () => { throw boom(); }],
    ['rejects', () => Promise.reject(boom())],
    ['returns no promise', () => undefined],
    ['resolves to something that is not a Response', () => Promise.resolve({})],
  ])('that %s ends the stream with an error', async (_, f) => {
    const config = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-0000', fetch: f as unknown as typeof fetch };
    let created: unknown;
    let retrieved: unknown;
    expect(await escaped(async () => {
      created = await ending(streamResponse({ model: 'm', input: 'hi' }, config));
      retrieved = await ending(retrieveResponseStream('resp_1', {}, config));
    })).toEqual([]);
    expect(created).toEqual(expect.any(Error));
    expect(retrieved).toEqual(expect.any(Error));
  });

  it('cancelResponse: a fetch that throws is its rejection; a log whose cancel throws too, and the upstream is still told', async () => {
    const throwing = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-0000', fetch: (() => { throw boom(); }) as unknown as typeof fetch };
    const asked: string[] = [];
    const answering = {
      baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-0000',
      fetch: (async (url: string) => {
        asked.push(url);
        return new Response('{"id":"resp_1","status":"cancelled"}', { status: 200, headers: { 'content-type': 'application/json' } });
      }) as unknown as typeof fetch,
    };
    const log = brokenLog('cancel', 'throws');
    try {
      expect(await escaped(async () => {
        await expect(cancelResponse('resp_1', throwing)).rejects.toMatchObject({ name: 'NetworkError' });
        await expect(cancelResponse('resp_1', answering, { log })).rejects.toEqual(boom());
      })).toEqual([]);
      expect(asked).toEqual(['http://127.0.0.1:9/v1/responses/resp_1/cancel']);
    } finally {
      await log.close();
    }
  });
});

