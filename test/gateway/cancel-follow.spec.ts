// A cancel ends every reader of a background response with the cancellation, never with the interruption a
// cut body looks like: a client that started it and a follower (GET ?stream=true), both with resumeFrom,
// end after their last event with a terminal `response.cancelled` and a `ResponseCancelledError` (not
// retryable), after 0 reconnects. Through the gateway (memory log; this instance or another sharing the log)
// and straight to the fake provider.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Observable, take, toArray } from 'rxjs';
import { createGateway, type Gateway } from '../../gateway/index';
import { cancelResponse } from '../../lib/log/cancel';
import { memoryEventLog } from '../../lib/log/memory';
import { ResponseCancelledError } from '../../lib/errors';
import { retrieveResponseStream, streamResponse, type ResponsesStreamConfig } from '../../lib/http/transports';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { resumeFrom, type ResumeCursor } from '../../operators/resumeFrom';
import { startFakeProvider, type FakeProvider } from '../../testing/index';
import { closeServer, listen, words } from './helpers';

jest.setTimeout(60_000);

let provider: FakeProvider;
const log = memoryEventLog();
const gateways: Gateway[] = [];
const servers: Server[] = [];
let a: string;
let b: string;

async function instance(): Promise<string> {
  const g = createGateway({ upstream: { baseURL: provider.baseURL }, log });
  const s = await listen(g);
  gateways.push(g);
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  // 30 s of answer at 10 ms an event: however loaded the machine, the cancel comes long before its end.
  provider = await startFakeProvider({ answer: words(3000), eventDelayMs: 10 });
  a = await instance();
  b = await instance();
});
afterAll(async () => {
  for (const s of servers) await closeServer(s);
  for (const g of gateways) await g.close();
  await provider.close();
  await log.close();
});

interface Outcome {
  readonly events: ResponseStreamEvent[];
  readonly error: unknown;
  readonly completed: boolean;
  readonly reconnects: ResumeCursor[];
}

/** Runs `source` through resumeFrom (reconnecting with `retrieveResponseStream` on `config`) to its end. */
function run(source: Observable<ResponseStreamEvent>, config: ResponsesStreamConfig, seen?: (e: ResponseStreamEvent) => void): { readonly done: Promise<Outcome> } {
  const events: ResponseStreamEvent[] = [];
  const reconnects: ResumeCursor[] = [];
  const reconnect = (c: ResumeCursor) => {
    reconnects.push(c);
    return retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);
  };
  const done = new Promise<Outcome>((resolve) => {
    source.pipe(resumeFrom(reconnect, { delayMs: 0 })).subscribe({
      next: (e) => {
        events.push(e);
        seen?.(e);
      },
      error: (error: unknown) => resolve({ events, error, completed: false, reconnects }),
      complete: () => resolve({ events, error: undefined, completed: true, reconnects }),
    });
  });
  return { done };
}

function expectCancelled(o: Outcome, id: string): void {
  expect(o.reconnects).toEqual([]);
  const last = o.events[o.events.length - 1]!;
  expect(last.type).toBe('response.cancelled');
  expect((last as unknown as { response: { id: string; status: string } }).response).toMatchObject({ id, status: 'cancelled' });
  expect(o.error).toBeInstanceOf(ResponseCancelledError);
  expect(o.error).toMatchObject({ retryable: false, code: 'response_cancelled', responseId: id });
  // Numbered one past the last event before it: a reader's cursor never goes back.
  const seqs = o.events.map((e) => e.sequence_number as number);
  expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  expect(new Set(seqs).size).toBe(seqs.length);
}

describe.each([
  ['through the gateway, cancelled on the instance streaming it', () => [a, a, a]],
  ['through the gateway, followed and cancelled on another instance sharing the log', () => [a, b, b]],
  ['straight to the fake provider', () => [provider.baseURL, provider.baseURL, provider.baseURL]],
])('a background response %s', (_, urls) => {
  it('ends its starter and a follower with response.cancelled and ResponseCancelledError, after 0 reconnects', async () => {
    const [via, followVia, cancelVia] = urls();
    const config = (baseURL: string): ResponsesStreamConfig => ({ baseURL, apiKey: 'sk-test-cancel-follow' });
    let id: string | undefined;
    let deltas = 0;
    let started!: () => void;
    const going = new Promise<void>((resolve) => (started = resolve));
    const starter = run(streamResponse({ model: 'fake-model', input: 'Hi', background: true }, config(via!)), config(via!), (e) => {
      if (e.type === 'response.created') id = (e as { response: { id: string } }).response.id;
      if (e.type === 'response.output_text.delta' && ++deltas === 3) started();
    });
    await going;
    let followed!: () => void;
    const following = new Promise<void>((resolve) => (followed = resolve));
    const follower = run(retrieveResponseStream(id!, { startingAfter: 0 }, config(followVia!)), config(followVia!), (e) => {
      if (e.type === 'response.output_text.delta') followed();
    });
    await following;
    await cancelResponse(id!, config(cancelVia!));
    const [s, f] = await Promise.all([starter.done, follower.done]);
    expectCancelled(s, id!);
    expectCancelled(f, id!);
    expect(s.events.length).toBeLessThan(provider.responses.get(id!)!.events.length);
  });
});

it('a reader that comes back after the cancel gets the cancellation at once, not an empty interrupted body', async () => {
  const config: ResponsesStreamConfig = { baseURL: a, apiKey: 'sk-test-cancel-follow' };
  const head = await firstValueFrom(streamResponse({ model: 'fake-model', input: 'Hi', background: true }, config).pipe(take(6), toArray()));
  const id = (head[0] as unknown as { response: { id: string } }).response.id;
  await cancelResponse(id, config);
  const later = await run(retrieveResponseStream(id, { startingAfter: 2 }, config), config).done;
  expectCancelled(later, id);
});

it('a log that cannot give the response so far still ends the reader with the cancel (the response reduced to its id)', async () => {
  const inner = memoryEventLog();
  // The whole-stream read (what was generated, for the cancelled response) fails; paged reads work.
  const flaky = { ...inner, read: (s: Parameters<typeof inner.read>[0], after?: number, limit?: number) => (after === undefined && limit === undefined ? Promise.reject(new Error('read failed')) : inner.read(s, after, limit)) };
  const g = createGateway({ upstream: { baseURL: provider.baseURL }, log: flaky });
  const s = await listen(g);
  try {
    const config: ResponsesStreamConfig = { baseURL: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, apiKey: 'sk-test-cancel-follow' };
    const head = await firstValueFrom(streamResponse({ model: 'fake-model', input: 'Hi', background: true }, config).pipe(take(6), toArray()));
    const id = (head[0] as unknown as { response: { id: string } }).response.id;
    await cancelResponse(id, config);
    const later = await run(retrieveResponseStream(id, { startingAfter: 2 }, config), config).done;
    expectCancelled(later, id);
  } finally {
    await closeServer(s);
    await g.close();
    await inner.close();
  }
});
