// scanSSEText: a whole SSE text read by the decoders' scanner, with where each line and message lies in it
// (what the test servers' transcripts and the CLI's captures are read with).
import fc from 'fast-check';
import { createSSEScanner } from '../../lib/sse/scanner';
import { scanSSEText, sseMessagesOf, wholeMessageText, type SSETextLine } from '../../lib/sse/text';
import { params } from '../reliability/harness';

type Msg = [event: string | undefined, data: string, unterminated: boolean];

/** What the decoders' scanner dispatches for the text, fed at once. */
function scanner(text: string): Msg[] {
  const out: Msg[] = [];
  const s = createSSEScanner((e, d, u) => out.push([e, d, u]));
  s.feed(text);
  s.end();
  return out;
}
const read = (text: string): Msg[] => sseMessagesOf(text).map((m) => [m.event, m.data, m.unterminated]);
function lines(text: string): SSETextLine[] {
  const out: SSETextLine[] = [];
  scanSSEText(text, { onMessage: () => undefined, onLine: (l) => out.push(l) });
  return out;
}

describe('scanSSEText', () => {
  test.each<[string, string]>([
    ['LF', 'event: a\ndata: 1\n\ndata: 2\n\n'],
    ['CRLF', 'event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n'],
    ['CR', 'event: a\rdata: 1\r\rdata: 2\r\r'],
    ['mixed', 'event: a\r\ndata: 1\n\rdata: 2\r\n\n'],
    ['comments, id and retry', ': hi\nid: 1\nretry: 5\ndata: 1\n: mid\n\n: only a comment\n\n'],
    ['multi-line data', 'data: a\r\ndata: b\rdata: c\n\n'],
    ['a last event without its blank line', 'data: 1\n\ndata: 2'],
    ['a last event with a line end but no blank line (CR)', 'data: 1\r\rdata: 2\r'],
    ['a BOM', '\uFEFFdata: 1\r\n\r\n'],
    ['two BOMs: the second is data', '\uFEFF\uFEFFdata: 1\n\ndata: 2\n\n'],
  ])('%s: the messages the scanner dispatches', (_name, text) => {
    expect(read(text)).toEqual(scanner(text));
    expect(read(text).length).toBeGreaterThan(0);
  });

  test('one CRLF is one line end: ten CRLF events are ten messages on 20 lines, each data line numbered as an editor does', () => {
    const body = Array.from({ length: 10 }, (_, i) => `data: {"n":${i}}\r\n\r\n`).join('');
    const messages = sseMessagesOf(body);
    expect(messages.map((m) => m.data)).toEqual(Array.from({ length: 10 }, (_, i) => `{"n":${i}}`));
    expect(messages.map((m) => m.firstDataLine)).toEqual(Array.from({ length: 10 }, (_, i) => 2 * i + 1));
    expect(lines(body)).toHaveLength(20);
  });

  test('lines: numbered, their field named, the last one marked when the text ends inside it', () => {
    expect(lines('\uFEFFevent: a\r\ndata\r: c\n\nx-y: 1\rdata: 2').map((l) => [l.number, l.text, l.field, l.terminated])).toEqual([
      [1, 'event: a', 'event', true],
      [2, 'data', 'data', true],
      [3, ': c', '', true],
      [4, '', undefined, true],
      [5, 'x-y: 1', 'x-y', true],
      [6, 'data: 2', 'data', false],
    ]);
  });

  test('messages: where each starts and ends, its first line and data lines', () => {
    const text = ': c\r\n\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3';
    const [a, b] = sseMessagesOf(text);
    expect(text.slice(a!.start, a!.end)).toBe(': c\r\n\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\n');
    expect([a!.line, a!.firstDataLine, a!.lastDataLine]).toEqual([3, 4, 5]);
    expect(text.slice(b!.start, b!.end)).toBe('data: 3');
    expect([b!.line, b!.firstDataLine, b!.lastDataLine, b!.unterminated]).toEqual([7, 7, 7, true]);
  });

  const line = fc.oneof(
    fc.constantFrom('', '', ':', ': ping', 'data', 'data:', 'event', 'event: e', 'id: 1', 'retry: 10', 'da', 'x: 1', '\uFEFF'),
    fc.tuple(fc.constantFrom('data:', 'data: ', 'event: ', ':'), fc.string({ maxLength: 6 })).map(([a, b]) => a + b.replace(/[\r\n]/g, '')),
  );
  const eol = fc.constantFrom('\n', '\r', '\r\n');
  const body = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(line, eol), { maxLength: 25 }), fc.constantFrom('', 'data: tail', '\r', ': t'))
    .map(([bom, ls, tail]) => `${bom ? '\uFEFF' : ''}${ls.map(([l, e]) => l + e).join('')}${tail}`);

  test('any text: the scanner\'s messages; the messages\' texts are disjoint, in order, and each reads alone as itself', () => {
    fc.assert(
      fc.property(body, (text) => {
        const messages = sseMessagesOf(text);
        expect(messages.map((m) => [m.event, m.data, m.unterminated])).toEqual(scanner(text));
        let at = 0;
        for (const m of messages) {
          expect(m.start).toBeGreaterThanOrEqual(at);
          expect(m.end).toBeGreaterThanOrEqual(m.start);
          at = m.end;
          // Made whole, a message is read back as that message alone, terminated, wherever it is put.
          const whole = wholeMessageText(text, m);
          expect(scanner(`data: x\n\n${whole}${whole}`)).toEqual([[undefined, 'x', false], [m.event, m.data, false], [m.event, m.data, false]]);
        }
        // Every line end the scanner sees is one line: as many lines as an editor shows.
        const shown = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
        expect(lines(text).map((l) => l.text)).toEqual(shown[shown.length - 1] === '' ? shown.slice(0, -1) : shown);
      }),
      params(300),
    );
  });
});
