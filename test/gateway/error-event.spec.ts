// The `event: error` a Responses stream ends with when its upstream fails after the start has no `id:`, on
// purpose: its sequence_number (one past the last event written) is the gateway's, not the upstream's, and the
// upstream may still send an event under that number (a background response goes on). A reconnect with the
// Last-Event-ID a browser holds (the last real event) gets that event; an `id:` would have skipped it.
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from '../../gateway/index';
import { parseTranscript, textTranscript } from '../../testing/index';
import { closeServer, listen } from './helpers';

jest.setTimeout(60_000);

const ID = 'resp_cut_midway';
const CUT = 6; // the upstream's first stream breaks after this many events
const DELTAS = 'one two three four five six seven eight'.split(/(?<= )/);
const transcript = parseTranscript(textTranscript({ responseId: ID, model: 'm', deltas: DELTAS, background: true }));
const foreground = parseTranscript(textTranscript({ responseId: 'resp_cut_foreground', model: 'm', deltas: DELTAS }));

/** SSE frames of a body: their fields by name. */
const framesOf = (text: string) =>
  text
    .split('\n\n')
    .filter((f) => f.trim() !== '' && !f.startsWith(':'))
    .map((f) => Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])) as Record<string, string>);

describe("the final error event's missing id", () => {
  let upstream: Awaited<ReturnType<typeof listen>>;
  let gateway: Gateway;
  let gatewayServer: Awaited<ReturnType<typeof listen>>;
  let origin: string;
  beforeAll(async () => {
    // A background response whose first stream breaks after CUT events; streamed again, it goes on from the cursor.
    upstream = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (req.method === 'POST') {
          const t = (JSON.parse(body) as { background?: boolean }).background ? transcript : foreground;
          res.write(t.events.slice(0, CUT).map((e) => e.raw).join(''));
          setTimeout(() => res.destroy(), 20);
          return;
        }
        const after = Number(url.searchParams.get('starting_after') ?? -1);
        res.end(transcript.events.slice(after + 1).map((e) => e.raw).join(''));
      });
    });
    gateway = createGateway({ upstream: { baseURL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` }, leaseMs: 200 });
    gatewayServer = await listen(gateway);
    origin = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeServer(gatewayServer);
    await gateway.close();
    await closeServer(upstream);
  });

  it('ends with event: error without id:, and a Last-Event-ID reconnect gets the event numbered as the error was', async () => {
    const first = await fetch(`${origin}/v1/responses`, {
      method: 'POST', headers: { authorization: 'Bearer sk-test-k', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input: 'Hi', stream: true, background: true }),
    });
    const frames = framesOf(await first.text());
    expect(frames.slice(0, CUT).map((f) => f['id'])).toEqual(Array.from({ length: CUT }, (_, i) => String(i)));
    const error = frames[CUT]!;
    expect(frames).toHaveLength(CUT + 1);
    expect(error['event']).toBe('error');
    expect(error['id']).toBeUndefined();
    expect(JSON.parse(error['data']!)).toMatchObject({ type: 'error', sequence_number: CUT });

    // What EventSource sends on reconnecting: the last id it saw (the last real event).
    const again = await fetch(`${origin}/v1/responses/${ID}?stream=true`, { headers: { authorization: 'Bearer sk-test-k', 'last-event-id': String(CUT - 1) } });
    expect(again.status).toBe(200);
    const rest = framesOf(await again.text());
    expect(rest[0]!['id']).toBe(String(CUT));
    expect(rest.map((f) => f['data'])).toEqual(transcript.events.slice(CUT).map((e) => e.data));
  });

  it('a foreground response cannot go on: the reconnect is answered with a JSON error (EventSource stops there)', async () => {
    const first = await fetch(`${origin}/v1/responses`, {
      method: 'POST', headers: { authorization: 'Bearer sk-test-k', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input: 'Hi', stream: true }),
    });
    const frames = framesOf(await first.text());
    expect(frames.map((f) => f['event'])).toEqual([...foreground.events.slice(0, CUT).map((e) => JSON.parse(e.data!).type), 'error']);
    expect(frames[CUT]!['id']).toBeUndefined();
    const again = await fetch(`${origin}/v1/responses/resp_cut_foreground?stream=true`, { headers: { authorization: 'Bearer sk-test-k', 'last-event-id': String(CUT - 1) } });
    expect(again.status).toBe(502);
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/stream/);
  });
});
