// An OpenAI-compatible upstream that sends its Responses events without `sequence_number`: the gateway
// numbers them (0, 1, 2, … in the order received), so that every SSE event still carries `id: <n>`, the log
// keeps them in order, and a reconnect with Last-Event-ID (or starting_after) resumes after the right one.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { createGateway, type Gateway } from '../../gateway/index';
import { startTestServer, type TestServer } from '../../testing/index';
import { sseOf, transcript } from '../chat/build';
import { closeServer, listen } from './helpers';

let upstream: TestServer;
let gateway: Gateway;
let server: Server;
let baseURL: string;
// What the upstream sends: a whole answer, no sequence numbers.
const sent = transcript({ text: ['Hel', 'lo', ', ', 'world'] }).map((e) => {
  const { sequence_number: _, ...rest } = e as { sequence_number?: number } & Record<string, unknown>;
  return rest as { type: string } & Record<string, unknown>;
});

beforeAll(async () => {
  upstream = await startTestServer({ transcripts: { 'no-seq': sseOf(sent) }, chatFromResponses: false });
  gateway = createGateway({ upstream: { baseURL: upstream.baseURL } });
  server = await listen(gateway);
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await closeServer(server);
  await gateway.close();
  await upstream.close();
});

const headers = { authorization: 'Bearer sk-test-noseq-0', 'content-type': 'application/json' };
const frames = (text: string) => text.split('\n\n').filter((f) => f.trim() !== '');
const eventsOf = async (text: string) =>
  lastValueFrom(fromResponsesSSE(new Response(text, { headers: { 'content-type': 'text/event-stream' } }), { errorEvents: 'value' }).pipe(toArray()));

it('numbers the events in the order received: every SSE event has id: <n>, and a Last-Event-ID resume gets the rest', async () => {
  expect(sent.every((e) => !('sequence_number' in e))).toBe(true);
  const res = await fetch(`${baseURL}/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'no-seq', input: 'Hi', stream: true }) });
  const text = await res.text();
  const all = frames(text);
  expect(all).toHaveLength(sent.length);
  all.forEach((f, i) => expect(f.startsWith(`id: ${i}\nevent: ${sent[i]!.type}\n`)).toBe(true));
  const events = await eventsOf(text);
  expect(events).toEqual(sent.map((e, i) => ({ ...e, sequence_number: i })));

  const id = (events[0] as { response: { id: string } }).response.id;
  const resumed = await fetch(`${baseURL}/responses/${id}?stream=true`, { headers: { ...headers, 'last-event-id': '3' } });
  expect(await eventsOf(await resumed.text())).toEqual(events.slice(4));
});
