import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { createSSEScanner, type SSELimits } from '../../lib/sse/scanner';
import { LimitExceededError } from '../../lib/errors';
import { params } from '../reliability/harness';

type Msg = [event: string | undefined, data: string, unterminated: boolean];

function scan(chunks: readonly string[], limits?: SSELimits, end = true): Msg[] {
  const out: Msg[] = [];
  const s = createSSEScanner((e, d, u) => out.push([e, d, u]), limits);
  for (const c of chunks) s.feed(c);
  if (end) s.end();
  return out;
}
const events = (chunks: readonly string[], limits?: SSELimits): Array<[string | undefined, string]> =>
  scan(chunks, limits).map(([e, d]) => [e, d]);

// Cases in the manner of the WHATWG EventSource format tests (web-platform-tests eventsource/format-*),
// written for this scanner: what a conforming EventSource dispatches for each body.
describe('WHATWG parsing rules', () => {
  test.each<[string, string, Array<[string | undefined, string]>]>([
    ['one BOM is stripped', '\uFEFFdata: 1\n\n', [[undefined, '1']]],
    ['a second BOM is data: the first line is an unknown field', '\uFEFF\uFEFFdata: 1\n\ndata: 2\n\n', [[undefined, '2']]],
    ['a BOM after the start is data', 'data: 1\n\n\uFEFFdata: 2\n\n', [[undefined, '1']]],
    ['comments are ignored', ':c\ndata: 1\n:c\n\n: x\n\n', [[undefined, '1']]],
    ['one leading space is removed, not two', 'data:  a\n\ndata:b\n\n', [[undefined, ' a'], [undefined, 'b']]],
    ['a field without colon is the field with an empty value', 'data\n\ndata\ndata\n\n', [[undefined, ''], [undefined, '\n']]],
    ['multi-line data joins with LF', 'data: a\ndata: b\n\n', [[undefined, 'a\nb']]],
    ['event names the next message only', 'event: x\ndata: 1\n\ndata: 2\n\n', [['x', '1'], [undefined, '2']]],
    ['an event with no data dispatches nothing and resets the name', 'event: x\n\ndata: 1\n\n', [[undefined, '1']]],
    ['an empty event name is the default', 'event:\ndata: 1\n\n', [[undefined, '1']]],
    ['id, retry and unknown fields are ignored', 'id: 1\nretry: 5\nfoo: bar\nDATA: no\ndata: 1\n\n', [[undefined, '1']]],
    ['CR, LF and CRLF line ends mix', 'data: a\rdata: b\r\ndata: c\n\r\n', [[undefined, 'a\nb\nc']]],
    ['a NUL and other controls are data', 'data: a\u0000b\u0007\n\n', [[undefined, 'a\u0000b\u0007']]],
    ['colons in the value are kept', 'data: a: b:c\n\n', [[undefined, 'a: b:c']]],
  ])('%s', (_name, body, expected) => {
    expect(events([body])).toEqual(expected);
  });

  test('the same BOM rules hold when the body arrives a character at a time', () => {
    expect(events([...'\uFEFF\uFEFFdata: 1\n\ndata: 2\n\n'])).toEqual([[undefined, '2']]);
    expect(events(['\uFEFF', 'data: 1\n\n'])).toEqual([[undefined, '1']]);
    expect(events(['', '\uFEFF', '\uFEFFdata: 1\n\n'])).toEqual([]);
  });
});

describe('delivery', () => {
  test('a chunk ending in CR delivers the event it completes at once', () => {
    const out: Msg[] = [];
    const s = createSSEScanner((e, d, u) => out.push([e, d, u]));
    s.feed('event: response.completed\rdata: {}\r\r');
    expect(out).toEqual([['response.completed', '{}', false]]);
    // The LF of a CRLF split across chunks is not a second (blank) line.
    s.feed('\ndata: 2\r');
    s.feed('\n');
    expect(out).toHaveLength(1);
    s.feed('\r\n');
    expect(out).toEqual([['response.completed', '{}', false], [undefined, '2', false]]);
  });

  test('a CRLF split across chunks ends one line, not two', () => {
    expect(events(['data: 1\r', '\ndata: 2\r', '\n\r', '\n'])).toEqual([[undefined, '1\n2']]);
  });

  test('a last event without its blank line is delivered at the end, marked unterminated', () => {
    expect(scan(['data: 1\n\ndata: 2'])).toEqual([[undefined, '1', false], [undefined, '2', true]]);
    expect(scan(['data: 1\n\ndata: 2\n'])).toEqual([[undefined, '1', false], [undefined, '2', true]]);
    expect(scan(['data: 1\n\n: trailing comment'])).toEqual([[undefined, '1', false]]);
  });
});

describe('limits', () => {
  test('comments and unknown fields do not count against maxEventSize, in any chunking', () => {
    const noise = `: ${'x'.repeat(5000)}\nx-unknown: ${'y'.repeat(5000)}\nid: ${'z'.repeat(5000)}\n`;
    const body = `${noise}data: 1\n${noise}data: 2\n\n`;
    for (const size of [1, 7, 100, 4096, body.length]) {
      const chunks = body.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
      expect(events(chunks, { maxEventSize: 100 })).toEqual([[undefined, '1\n2']]);
    }
  });

  test('data over maxEventSize fails, also while its line is still arriving', () => {
    expect(() => scan([`data: ${'a'.repeat(101)}\n\n`], { maxEventSize: 100 })).toThrow(LimitExceededError);
    expect(() => scan(['data: 1\n'.repeat(60)], { maxEventSize: 100 }, false)).toThrow(LimitExceededError);
    expect(() => scan(['data: ', 'a'.repeat(200)], { maxEventSize: 100 }, false)).toThrow(LimitExceededError);
    expect(events([`data: ${'a'.repeat(100)}\n\n`], { maxEventSize: 100 })).toEqual([[undefined, 'a'.repeat(100)]]);
  });

  test('maxLineLength holds for every kind of line, in any chunking', () => {
    for (const line of [`data: ${'a'.repeat(200)}`, `: ${'a'.repeat(200)}`, `foo: ${'a'.repeat(200)}`]) {
      expect(() => scan([`${line}\n\n`], { maxLineLength: 100 })).toThrow(LimitExceededError);
      expect(() => scan([...line], { maxLineLength: 100 }, false)).toThrow(LimitExceededError);
    }
    expect(events([`data: ${'a'.repeat(94)}\n\n`], { maxLineLength: 100 })).toHaveLength(1);
  });
});

describe('against eventsource-parser as an oracle', () => {
  const reference = (body: string): Array<[string | undefined, string]> => {
    const out: Array<[string | undefined, string]> = [];
    const p = createParser({ onEvent: (m) => out.push([m.event, m.data]) });
    p.feed(body);
    return out;
  };
  const line = fc.oneof(
    fc.constantFrom('', ':', ': ping', 'data', 'data:', 'event', 'event:', 'id: 1', 'retry: 10', 'da', 'eventx: 1'),
    fc.tuple(fc.constantFrom('data:', 'data: ', 'event: ', 'x: ', ':'), fc.string({ unit: 'grapheme', maxLength: 8 })).map(([a, b]) => a + b.replace(/[\r\n]/g, '')),
  );
  const eol = fc.constantFrom('\n', '\r', '\r\n');

  test('any body, in any chunking, gives the events a conforming parser gives', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(line, eol), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (lines, cuts) => {
        // Ends in a blank LF line, so that both parsers have seen every event end.
        const body = `${lines.map(([l, e]) => l + e).join('')}\n\n`;
        const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i, all) => body.slice(from, all[i + 1] ?? body.length));
        expect(events(chunks)).toEqual(reference(body));
      }),
      params(500),
    );
  });
});
