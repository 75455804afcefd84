// Issue 23: the test server read a CRLF transcript's single `\r\n` as two line ends (a 10-event file served
// 21 "events" and the official SDK failed with "malformed server-sent event JSON"). Transcripts are read by
// the decoders' SSE scanner now: whatever the line ends, comments, BOM or layout, the server serves the events
// a client decoding the file itself reads, and the official SDK reads them.
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE, retrieveResponseStream, streamResponse } from '../../index';
import { createSSEScanner } from '../../lib/sse/scanner';
import { parseTranscript, startTestServer, textTranscript, type TestServer } from '../../testing/index';

const LF = textTranscript({ responseId: 'resp_crlf', deltas: ['Line ', 'ends ', 'are ', 'one.'] });
const payloads = parseTranscript(LF).events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
const blocks = LF.split('\n\n').filter((b) => b !== '');

/** The same events written another way: every line end `eol` (a function of the line's index for mixed ends). */
const withEnds = (eol: (i: number) => string, text = LF) => {
  let i = 0;
  return text.replace(/\n/g, () => eol(i++));
};
/** Each event's JSON split over two `data:` lines (SSE joins them with LF, JSON reads it as whitespace). */
const multiLine = blocks.map((b) => b.replace(/^data: (.*?),"/m, 'data: $1,\ndata: "')).join('\n\n') + '\n\n';

const VARIANTS: Array<[string, string]> = [
  ['LF', LF],
  ['CRLF', withEnds(() => '\r\n')],
  ['CR', withEnds(() => '\r')],
  ['mixed line ends', withEnds((i) => ['\r\n', '\n', '\r'][i % 3]!)],
  ['comments, id and retry lines', `: keep-alive\n\n${blocks.map((b, i) => `: ${i}\nid: ${i}\n${b}\nretry: 10`).join('\n\n')}\n\n: bye\n`],
  ['multi-line data', multiLine],
  ['multi-line data, CRLF', withEnds(() => '\r\n', multiLine)],
  ['a last event without its blank line', LF.replace(/\n\n$/, '')],
  ['a last event without its blank line, CRLF', withEnds(() => '\r\n').replace(/\r\n\r\n$/, '\r\n')],
  ['a BOM, CRLF', `\uFEFF${withEnds(() => '\r\n')}`],
];

/** The messages the decoders' scanner reads in `text` (data, unterminated). */
const messagesOf = (text: string) => {
  const out: Array<[string, boolean]> = [];
  const s = createSSEScanner((_e, d, u) => out.push([d, u]));
  s.feed(text);
  s.end();
  return out;
};
const decoded = (sse: string) => lastValueFrom(fromResponsesSSE(sse).pipe(toArray()));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(VARIANTS)('a transcript with %s', (_name, sse) => {
  test('is read as the events the decoder reads in the file, each event\'s text a whole event', async () => {
    expect(await decoded(sse)).toEqual(payloads);
    const t = parseTranscript(sse);
    expect(t.events).toHaveLength(payloads.length);
    expect(t.events.map((e) => e.payload)).toEqual(payloads);
    expect(t.responseId).toBe('resp_crlf');
    // Served one at a time or sliced for a resume, each event's text is exactly that event.
    for (const e of t.events) expect(messagesOf(e.raw)).toEqual([[e.data, false]]);
    expect(await decoded(t.events.map((e) => e.raw).join(''))).toEqual(payloads);
  });

  test('startTestServer serves those events, counted as events, to this library and to the official SDK', async () => {
    server = await startTestServer({ transcripts: { t: sse } });
    const ours = await lastValueFrom(streamResponse({ model: 't', input: 'x' }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(toArray()));
    expect(ours).toEqual(payloads);
    expect(server.requests[0]).toMatchObject({ eventsSent: payloads.length, outcome: 'completed' });

    const sdk = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const stream = await sdk.responses.create({ model: 't', input: 'x', stream: true });
    const seen: unknown[] = [];
    for await (const e of stream) seen.push(e);
    expect(seen).toEqual(payloads);

    // Resumed after a sequence number: the events after it.
    const after = await lastValueFrom(retrieveResponseStream('resp_crlf', { startingAfter: 3 }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(toArray()));
    expect(after).toEqual(payloads.slice(4));
  });
});

test('a comment-only block is no event: it goes out with the event after it', () => {
  const t = parseTranscript(`: OPENROUTER PROCESSING\r\n\r\n${withEnds(() => '\r\n')}`);
  expect(t.events).toHaveLength(payloads.length);
  expect(t.events[0]!.raw.startsWith(': OPENROUTER PROCESSING\r\n\r\nevent: response.created\r\n')).toBe(true);
});
