// The gateway's SSE frame: the upstream's own data text when the decoder kept it (not serialised again), the
// event serialised when it has none or when it spans lines (one `data:` line per frame).
import { fromResponsesSSE } from '../../index';
import { sseFrame } from '../../gateway/sse-frame';
import { run } from '../decode/sources';

const one = '{ "type": "response.output_text.delta", "sequence_number": 3, "item_id": "m", "output_index": 0, "content_index": 0, "delta": "\\u00e9" }';
const multi = '{"type": "response.output_text.delta", "sequence_number": 4,\n"item_id": "m", "output_index": 0, "content_index": 0, "delta": "x"}';
const body = `event: response.output_text.delta\ndata: ${one}\n\nevent: response.output_text.delta\ndata: ${multi.replace('\n', '\ndata: ')}\n\n`;

test('a kept text is forwarded as it came; a multi-line one, or none, is serialised', async () => {
  const { values } = await run(fromResponsesSSE(body, { keepRawData: true }));
  expect(values).toHaveLength(2);
  expect(sseFrame(values[0]!)).toBe(`id: 3\nevent: response.output_text.delta\ndata: ${one}\n\n`);
  expect(sseFrame(values[1]!)).toBe(`id: 4\nevent: response.output_text.delta\ndata: ${JSON.stringify(values[1])}\n\n`);
  const copy = { ...values[0]! };
  expect(sseFrame(copy)).toBe(`id: 3\nevent: response.output_text.delta\ndata: ${JSON.stringify(copy)}\n\n`);
});

test("a frame's event: line is the event's type, or `message` for a type that would forge fields, every time", () => {
  const frame = (type: unknown, seq = 1): string => sseFrame({ type, sequence_number: seq } as never);
  for (let round = 0; round < 2; round++) {
    // Each asked twice in a row and in turn: the heads are cached per type and the last one is reused.
    for (const [type, line] of [
      ['response.output_text.delta', 'event: response.output_text.delta'],
      ['response.output_text.delta', 'event: response.output_text.delta'],
      ['x\ndata: forged', 'event: message'],
      ['x\ndata: forged', 'event: message'],
      ['a\rb', 'event: message'],
      ['', 'event: '],
      ['', 'event: '],
      [undefined, 'event: message'],
      [7, 'event: message'],
      ['t'.repeat(100), `event: ${'t'.repeat(100)}`],
    ] as const) {
      expect(frame(type)).toBe(`id: 1\n${line}\ndata: ${JSON.stringify({ type, sequence_number: 1 })}\n\n`);
    }
  }
});
