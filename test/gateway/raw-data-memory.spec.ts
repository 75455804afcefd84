// The gateway decodes with keepRawData and keeps the events in its memory log, which charges each event the
// length of its kept text (maxBytes). That text must hold only the event's own JSON: a slice of the network
// chunk it came in would keep the whole chunk alive (V8's sliced strings), everything else in it included,
// so a log of small events could hold many times its maxBytes.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { from } from 'rxjs';
import { decodeResponsesSSE } from '../../lib/decode/responses-sse';
import { rawDataOf } from '../../lib/decode/raw-data';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { run } from '../decode/sources';

jest.setTimeout(60_000);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CHUNKS = 300;
const PADDING = 200_000; // a comment line in each chunk, beside one small event

function chunk(i: number): string {
  const data = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"word ${i}","sequence_number":${i + 1}}`;
  return `: ${String(i).padEnd(PADDING, '.')}\nevent: response.output_text.delta\ndata: ${data}\n\n`;
}

test("an event kept in the memory log holds its own text, not the chunk it came in", async () => {
  const log = memoryEventLog();
  const scope = { responseId: 'resp_raw', owner: 'u' };
  try {
    const { token } = await log.acquire(scope, 60_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    const chunks = Array.from({ length: CHUNKS }, (_, i) => chunk(i));
    const { values, error } = await run(from(chunks).pipe(decodeResponsesSSE({ keepRawData: true })));
    chunks.length = 0;
    expect(error).toBeDefined(); // no terminal event: the body ends as an interruption
    await log.append(scope, token, values);
    values.length = 0;
    gc();
    const held = process.memoryUsage().heapUsed - before;

    const stored = await log.read(scope, undefined);
    expect(stored).toHaveLength(CHUNKS);
    const raw = stored.map((e: ResponseStreamEvent) => rawDataOf(e));
    expect(raw[7]).toBe(JSON.stringify(JSON.parse(raw[7]!)));
    expect(JSON.parse(raw[7]!)).toEqual(stored[7]);
    // The chunks are 60 MB; the events and their texts well under 1 MB. A quarter of the chunks is far from both.
    expect(held).toBeLessThan((CHUNKS * PADDING) / 4);
  } finally {
    await log.close();
  }
});
