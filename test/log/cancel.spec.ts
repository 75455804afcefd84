// Issue 15, explicit cancel: cancelResponse(id, config, { log }) = POST /responses/{id}/cancel upstream and the
// log closed as cancelled, "so every reader ends". Over real loopback sockets: an upstream that never answers
// (the readers must end all the same, long before the caller gives the request up with its signal), an
// upstream that refuses (404 from the loopback fake provider: the log is cancelled, the HTTP error thrown), and
// a log that cannot be reached (the typed log error).
import { createServer, type Server, type Socket } from 'node:net';
import { EventLogError, OpenAIRxError } from '../../lib/errors';
import { cancelResponse } from '../../lib/log/cancel';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import { startTestServer } from '../../testing/index';
import { completed, created, delta } from './contract';
import { collect, sleep } from './takeover-helpers';

jest.setTimeout(60_000);

let silent: Server;
let silentURL: string;
const sockets = new Set<Socket>();
const requests: string[] = [];
beforeAll(async () => {
  // Accepts, reads the request, never answers.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d) => requests.push(d.toString().split('\r\n')[0] ?? ''));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
});

/** A live stream of a few events whose producer holds the lease (so readers wait for more). */
async function liveStream(id: string) {
  const log = memoryEventLog();
  const s = { responseId: id, owner: 'u' };
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(id), delta(1), delta(2)]);
  return { log, s, token };
}

test('an upstream that never answers: every reader ends at once all the same; the request is given up with the caller\'s signal', async () => {
  const { log, s, token } = await liveStream('resp_cancel_silent');
  const controller = new AbortController();
  try {
    const readers = [collect(fromEventLog(log, s.responseId, { owner: 'u' })), collect(fromEventLog(log, s.responseId, { owner: 'u', startingAfter: 1 }))];
    const cancelling = cancelResponse(s.responseId, { baseURL: silentURL, apiKey: 'sk-test', signal: controller.signal }, { log, owner: 'u' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The readers end while the upstream request is still unanswered (bounded generously: a failure, not a measure).
    const ended = await Promise.race([Promise.all(readers), sleep(20_000).then(() => 'still reading' as const)]);
    expect(ended).not.toBe('still reading');
    const [all, after] = ended as Awaited<typeof readers[0]>[];
    expect(all!.error).toBeUndefined();
    expect(all!.events.map((e) => e.sequence_number)).toEqual([0, 1, 2]);
    expect(after!.error).toBeUndefined();
    expect(after!.events.map((e) => e.sequence_number)).toEqual([2]);
    expect((await log.state(s))?.end).toBe('cancelled');
    // The producer is fenced off.
    await expect(log.append(s, token, [delta(3)])).rejects.toMatchObject({ reason: 'fenced' });
    // The request did go out (and is still unanswered).
    for (let i = 0; i < 1000 && !requests.some((r) => r.startsWith('POST /v1/responses/resp_cancel_silent/cancel')); i++) await sleep(20);
    expect(requests.filter((r) => r.startsWith('POST /v1/responses/resp_cancel_silent/cancel'))).toHaveLength(1);
    controller.abort();
    const failure = await cancelling;
    expect(failure).toBeInstanceOf(OpenAIRxError);
    expect(String(failure)).not.toContain('sk-test');
  } finally {
    controller.abort();
    await log.close();
  }
});

test('an upstream that refuses (404): the log is cancelled all the same, the HTTP error is thrown', async () => {
  const provider = await startTestServer({ transcripts: { x: 'data: {"type":"response.created","sequence_number":0}\n\n' } });
  const { log, s } = await liveStream('resp_cancel_404');
  try {
    const reader = collect(fromEventLog(log, s.responseId, { owner: 'u' }));
    const e = await cancelResponse(s.responseId, { baseURL: provider.baseURL, apiKey: 'sk-test' }, { log, owner: 'u' }).then(() => undefined, (x: unknown) => x);
    expect(e).toMatchObject({ name: 'HTTPError', status: 404 });
    expect((await reader).error).toBeUndefined();
    expect((await log.state(s))?.end).toBe('cancelled');
    expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses/resp_cancel_404/cancel']);
  } finally {
    await log.close();
    await provider.close();
  }
});

test('a completed stream stays completed; a log that is closed gives the typed log error', async () => {
  const { log, s, token } = await liveStream('resp_cancel_done');
  const fetch = (async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
  await log.append(s, token, [completed(s.responseId, 3)]);
  await cancelResponse(s.responseId, { fetch, apiKey: 'sk-test' }, { log, owner: 'u' });
  expect((await log.state(s))?.end).toBe('completed');
  await log.close();
  const e = await cancelResponse(s.responseId, { fetch, apiKey: 'sk-test' }, { log, owner: 'u' }).then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(EventLogError);
  expect((e as EventLogError).reason).toBe('unavailable');
});
