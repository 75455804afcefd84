import { createParser } from 'eventsource-parser';
import { createSSEScanner } from '../../lib/codecs';
import {
  DecodeError, fromChatCompletionsSSE, fromResponsesSSE, StreamInterruptedError,
} from '../../index';
import { cutAt, readable, run, utf8 } from '../decode/sources';

// The event-stream parsing cases of the web-platform-tests EventSource suite (eventsource/format-*.any.js,
// format-*.htm, eventsource-from-readable-stream.any.js), rewritten for createSSEScanner: same kind of body,
// what a conforming EventSource dispatches for it, and where openai-rx deliberately differs.
//
// The WPT server (resources/message.py) sends `message` + "\n\n" + "\n", or `message` + "\n" with
// newline=none; the bodies below include that tail so that they are the bytes a browser sees.

type Msg = [event: string | undefined, data: string];
type Full = [event: string | undefined, data: string, unterminated: boolean];

function scanFull(chunks: readonly string[]): Full[] {
  const out: Full[] = [];
  const s = createSSEScanner((e, d, u) => out.push([e, d, u]));
  for (const c of chunks) s.feed(c);
  s.end();
  return out;
}
const scan = (chunks: readonly string[]): Msg[] => scanFull(chunks).map(([e, d]) => [e, d]);

/** What eventsource-parser (a WHATWG-conforming parser) dispatches for the body. */
function reference(body: string): Msg[] {
  const out: Msg[] = [];
  const p = createParser({ onEvent: (m) => out.push([m.event, m.data]) });
  p.feed(body);
  return out;
}

const wpt = (message: string): string => `${message}\n\n\n`;
const wptNoNewline = (message: string): string => `${message}\n`;
const long = 'x'.repeat(2048);

interface Case {
  readonly name: string;
  readonly body: string;
  readonly expected: Msg[];
}

// Every case ends its last event with a blank line, so a conforming EventSource and openai-rx agree.
const cases: Case[] = [
  { name: 'format-bom: a leading BOM is stripped; a BOM later is part of a field name', body: wpt('\uFEFFdata:1\n\n\uFEFFdata:2\n\ndata:3'), expected: [[undefined, '1'], [undefined, '3']] },
  { name: 'format-bom-2: only one BOM is stripped; the second makes the first line an unknown field', body: wpt('\uFEFF\uFEFFdata:1\n\ndata:2\n\ndata:3'), expected: [[undefined, '2'], [undefined, '3']] },
  {
    name: 'format-comments: comments (empty, NUL, long) and every line end, between data lines',
    body: wptNoNewline(`data:1\r:\0\n:\r\ndata:2\n:${long}\rdata:3\n:data:fail\r:${long}\ndata:4\n`),
    expected: [[undefined, '1\n2\n3\n4']],
  },
  { name: 'format-field-data: empty data, data without colon, data twice', body: wpt('data:\n\ndata\ndata\n\ndata:test'), expected: [[undefined, ''], [undefined, '\n'], [undefined, 'test']] },
  { name: 'format-field-event: the name applies to its own event only', body: wpt('event:test\ndata:x\n\ndata:x'), expected: [['test', 'x'], [undefined, 'x']] },
  { name: 'format-field-event-empty: an empty name is the default type', body: wpt('event: \ndata:data'), expected: [[undefined, 'data']] },
  { name: 'an event name without data dispatches nothing and is reset at the blank line', body: 'event: lost\n\nevent: kept\ndata: 1\n\ndata: 2\n\n', expected: [['kept', '1'], [undefined, '2']] },
  { name: 'event without colon resets the name', body: 'event: a\nevent\ndata: 1\n\n', expected: [[undefined, '1']] },
  { name: 'the last event line wins', body: 'event: a\nevent: b\ndata: 1\n\n', expected: [['b', '1']] },
  { name: 'format-field-id / id-2 / id-3 / id-null: id fields (also with NUL, empty, no colon) do not touch data', body: 'id: 1\ndata: a\n\nid\ndata: b\n\nid: \0\0\ndata: c\n\nid:\ndata: d\n\n', expected: [[undefined, 'a'], [undefined, 'b'], [undefined, 'c'], [undefined, 'd']] },
  { name: 'format-field-retry / retry-bogus: retry fields of any value are dropped', body: 'retry: 5000\ndata: a\n\nretry: bogus\ndata: b\n\nretry\ndata: c\n\nretry: 1.5\ndata: d\n\n', expected: [[undefined, 'a'], [undefined, 'b'], [undefined, 'c'], [undefined, 'd']] },
  {
    name: 'format-field-parsing: only the exact lowercase name `data` counts; NUL kept; one space stripped',
    body: wptNoNewline('data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n'),
    expected: [[undefined, '\0\n 2\n1\n3\n\n4']],
  },
  {
    name: 'format-field-unknown: unknown fields, a line with a leading space, plain text and comments are ignored',
    body: wpt('data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test'),
    expected: [[undefined, 'test\n\ntest']],
  },
  { name: 'format-leading-space: a tab is not stripped; "data: " is empty data', body: wpt('data:\ttest\rdata: \ndata:test'), expected: [[undefined, '\ttest\n\ntest']] },
  { name: 'format-newlines: CRLF, LF and CR, the blank line made of CRLF + CR', body: wptNoNewline('data:test\r\ndata\ndata:test\r\n\r'), expected: [[undefined, 'test\n\ntest']] },
  { name: 'format-null-character: NUL as the whole data', body: wpt('data:\0\n'), expected: [[undefined, '\0']] },
  { name: 'from-readable-stream: CR, LF and CRLF events in one body', body: 'data: cr\r\rdata: lf\n\ndata: crlf\r\n\r\n', expected: [[undefined, 'cr'], [undefined, 'lf'], [undefined, 'crlf']] },
  { name: 'from-readable-stream: multi-line data, custom type, comment, id and retry', body: 'data: hello\ndata: world\n\nevent: custom\ndata: hi\n\n: this is a comment\nid: 42\nretry: 5000\ndata: end\n\n', expected: [[undefined, 'hello\nworld'], ['custom', 'hi'], [undefined, 'end']] },
  { name: 'from-readable-stream: an empty body dispatches nothing', body: '', expected: [] },
  { name: 'a colon inside the value is kept; a space before the colon makes another field', body: 'data: a: b\ndata : c\n\n', expected: [[undefined, 'a: b']] },
  { name: 'a lone U+2028 / U+2029 is data, not a line end', body: 'data: a\u2028b\u2029c\n\n', expected: [[undefined, 'a\u2028b\u2029c']] },
];

describe('WPT format cases through createSSEScanner', () => {
  test.each(cases)('$name', ({ body, expected }) => {
    expect(scan([body])).toEqual(expected);
  });

  test.each(cases)('$name: the same events when the body comes one character at a time', ({ body, expected }) => {
    expect(scan([...body])).toEqual(expected);
  });

  test.each(cases)('$name: the same events as eventsource-parser', ({ body, expected }) => {
    // eventsource-parser leaves the BOM to the byte decoder (a BOM in text is a field-name character to it),
    // so the two BOM cases are checked above only.
    if (body.startsWith('\uFEFF')) return;
    expect(reference(body)).toEqual(expected);
  });

  test('from-readable-stream: data split across chunks, inside the field name', () => {
    expect(scan(['da', 'ta: hel', 'lo\n\n'])).toEqual([[undefined, 'hello']]);
  });

  test('every event is complete, never marked as cut short, when its blank line came', () => {
    for (const { body } of cases) for (const [, , unterminated] of scanFull([body])) expect(unterminated).toBe(false);
  });
});

describe('where openai-rx deliberately differs from an EventSource', () => {
  // format-data-before-final-empty-line: a browser discards an event the body ends inside (no blank line
  // after it). openai-rx delivers it, marked unterminated, and the protocol decoders judge it: a complete
  // terminal event completes the stream, anything else ends in StreamInterruptedError. A cut body must not
  // look like a complete one, and a provider that omits the final blank line still works.
  test('format-data-before-final-empty-line: the last event is delivered, marked unterminated', () => {
    const body = wptNoNewline('retry:1000\ndata:test1\n\nid:test\ndata:test2');
    expect(reference(body)).toEqual([[undefined, 'test1']]);
    expect(scanFull([body])).toEqual([[undefined, 'test1', false], [undefined, 'test2', true]]);
    expect(scanFull(['data: tail'])).toEqual([[undefined, 'tail', true]]);
    expect(scanFull(['data: tail\r'])).toEqual([[undefined, 'tail', true]]);
  });

  test('the unterminated last event through the Responses decoder: a whole terminal event completes', async () => {
    const created = '{"type":"response.created","response":{"id":"resp_w1","status":"in_progress","output":[]}}';
    const done = '{"type":"response.completed","response":{"id":"resp_w1","status":"completed","output":[]}}';
    const out = await run(fromResponsesSSE(`data: ${created}\n\ndata: ${done}\n`));
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
    expect(out.completed).toBe(true);
  });

  test('invalid UTF-8: a browser decodes it as U+FFFD, openai-rx ends with a DecodeError', async () => {
    const bytes = new Uint8Array([...utf8('data: {"type":"response.created","response":{"id":"r'), 0xc3, 0x28, ...utf8('"}}\n\n')]);
    expect(new TextDecoder().decode(bytes)).toContain('\uFFFD');
    const out = await run(fromResponsesSSE(bytes));
    expect(out.error).toBeInstanceOf(DecodeError);
  });

  test('format-mime-*: the decoders read a body whatever its Content-Type says (a browser fails the connection)', async () => {
    const chunk = '{"id":"chatcmpl-w","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}';
    const res = new Response(`data: ${chunk}\n\ndata: [DONE]\n\n`, { headers: { 'content-type': 'text/x-bogus' } });
    const out = await run(fromChatCompletionsSSE(res));
    expect(out.completed).toBe(true);
    expect(out.values).toHaveLength(1);
  });

  test('a stream that errors: a browser fires `error`, openai-rx ends with a StreamInterruptedError', async () => {
    const broken = new ReadableStream<Uint8Array>({ start: (c) => c.error(new Error('stream error')) });
    const out = await run(fromResponsesSSE(broken));
    expect(out.values).toEqual([]);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
  });
});

describe('encoding (format-utf-8, from-readable-stream BOM)', () => {
  const event = '{"type":"response.created","response":{"id":"resp_utf","status":"in_progress","output":[],"note":"ok…"}}';
  const terminal = '{"type":"response.completed","response":{"id":"resp_utf","status":"completed","output":[]}}';

  test('always UTF-8, whatever charset the Content-Type names', async () => {
    const res = new Response(utf8(`data: ${event}\n\ndata: ${terminal}\n\n`).slice().buffer as ArrayBuffer, { headers: { 'content-type': 'text/event-stream;charset=windows-1252' } });
    const out = await run(fromResponsesSSE(res));
    expect(out.completed).toBe(true);
    expect(out.values[0]).toMatchObject({ response: { note: 'ok…' } });
  });

  test('a leading UTF-8 BOM in bytes is stripped, also when its bytes arrive one at a time', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(`data: ${event}\n\ndata: ${terminal}\n\n`)]);
    for (const source of [bytes, readable(cutAt(bytes, [1, 2, 3, 4, 5]))]) {
      const out = await run(fromResponsesSSE(source));
      expect(out.completed).toBe(true);
      expect(out.values).toHaveLength(2);
    }
  });
});
