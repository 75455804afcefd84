// 1,000 concurrent streams through one gateway (real loopback sockets both sides, the in-memory log): the
// upstream holds every stream after its first event until all 1,000 are open in the gateway at once, then
// lets them run; every client gets exactly the events the upstream sent for its response. No timing is asserted.
import { lastValueFrom, toArray } from 'rxjs';
import { streamResponse } from '../../lib/http/transports';
import { startHarness, words, type Harness } from './helpers';

jest.setTimeout(600_000);

const N = 1000;
let h: Harness;
let release!: () => void;
beforeAll(async () => {
  h = await startHarness({ provider: { answer: words(20), hold: new Promise<void>((r) => (release = r)) } });
});
afterAll(async () => {
  release();
  await h.close();
});

it(`${N} concurrent streams: all open at once, each client gets its own response's events, exactly once, in order`, async () => {
  const streams = Promise.all(
    Array.from({ length: N }, (_, i) =>
      lastValueFrom(streamResponse({ model: 'fake-model', input: `client ${i}` }, { baseURL: h.baseURL, apiKey: `sk-test-client-${String(i).padStart(4, '0')}` }).pipe(toArray())),
    ),
  );
  // Watched, not timed: the loop ends when all of them are open (or the test's own timeout fails it).
  while (h.gateway.metrics().streams.clients < N) await new Promise((r) => setTimeout(r, 50));
  expect(h.gateway.metrics().streams).toEqual({ clients: N, producers: N });
  release();

  const ids = new Set<string>();
  for (const events of await streams) {
    const id = (events[0] as { response: { id: string } }).response.id;
    ids.add(id);
    expect(events).toEqual(h.provider.responses.get(id)!.events);
  }
  expect(ids.size).toBe(N);
  const perStream = h.provider.responses.values().next().value!.events.length;
  expect(h.gateway.metrics().events.total).toBe(N * perStream);
  while (h.gateway.metrics().streams.clients + h.gateway.metrics().streams.producers > 0) await new Promise((r) => setTimeout(r, 20));
});
