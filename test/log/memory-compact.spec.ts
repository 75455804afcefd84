// The memory log keeps each event as its UTF-8 JSON in a byte array per stream (lib/log/memory-events.ts), not
// as objects: a reader gets equal events back, parsed again, with their stored text; and the heap does not grow
// with the events kept (a gateway's log otherwise had every event it kept copied and promoted by the GC).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { rawDataOf } from '../../lib/decode/raw-data';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { decodeResponsesSSE } from '../../lib/decode/responses-sse';
import { from } from 'rxjs';
import { run } from '../decode/sources';

jest.setTimeout(60_000);

const delta = (seq: number, text: string): ResponseStreamEvent =>
  ({ type: 'response.output_text.delta', sequence_number: seq, item_id: 'msg_1', output_index: 0, content_index: 0, delta: text }) as ResponseStreamEvent;

// Texts of 1- to 4-byte UTF-8 characters, escapes and lengths around the store's growth steps.
const TEXTS = ['a', 'é', '中文', '😀 emoji', 'line\nbreak "quoted" \\ back', '\u2028\u2029', 'x'.repeat(255), 'ü'.repeat(300), ''];

describe('memoryEventLog keeps events as their JSON', () => {
  test('reads give back equal events, with their stored text, at every cursor and limit', async () => {
    const log = memoryEventLog();
    const s = { responseId: 'resp_round', owner: 'u' };
    try {
      const { token } = await log.acquire(s, 60_000);
      const events = Array.from({ length: 200 }, (_, i) => delta(i, `${TEXTS[i % TEXTS.length]} ${i}`));
      // Appends of 1 to 7 events, so the store grows in the middle of some.
      for (let i = 0, n = 1; i < events.length; i += n, n = (n % 7) + 1) await log.append(s, token, events.slice(i, i + n));
      const all = await log.read(s, undefined);
      expect(all).toEqual(events);
      for (const e of all) expect(rawDataOf(e)).toBe(JSON.stringify(e));
      for (const after of [0, 1, 6, 63, 64, 198, 199, 500]) {
        expect(await log.read(s, after)).toEqual(events.filter((e) => (e.sequence_number as number) > after));
        expect(await log.read(s, after, 3)).toEqual(events.filter((e) => (e.sequence_number as number) > after).slice(0, 3));
      }
      expect(await log.read(s, undefined, 0)).toEqual([]);
      // Each read is new objects: a reader that edits its events does not edit the log's.
      (all[5] as { delta: string }).delta = 'edited';
      expect(((await log.read(s, 4, 1))[0] as { delta: string }).delta).toBe((events[5] as { delta: string }).delta);
    } finally {
      await log.close();
    }
  });

  test("the upstream's own text is what is stored and read back (not the event serialised again)", async () => {
    const log = memoryEventLog();
    const s = { responseId: 'resp_raw_text' };
    try {
      // Spacing and key order of the upstream's own, which JSON.stringify would not reproduce.
      const data = '{ "type" : "response.output_text.delta", "delta": "h\\u00e9 \u00e9", "sequence_number": 3, "item_id":"m","output_index":0,"content_index":0 }';
      // (No terminal event: the body ends as an interruption, after the event.)
      const { values: [e] } = await run(from([`event: response.output_text.delta\ndata: ${data}\n\n`]).pipe(decodeResponsesSSE({ keepRawData: true, validate: 'off' })));
      expect(rawDataOf(e!)).toBe(data);
      const { token } = await log.acquire(s, 60_000);
      await log.append(s, token, [e!]);
      const [back] = await log.read(s, undefined);
      expect(back).toEqual(e);
      expect(rawDataOf(back!)).toBe(data);
    } finally {
      await log.close();
    }
  });

  test('the events kept do not stay on the heap as objects', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const log = memoryEventLog();
    const N = 20_000;
    try {
      const scopes = Array.from({ length: 100 }, (_, i) => ({ responseId: `resp_heap_${i}` }));
      const tokens = await Promise.all(scopes.map(async (s) => (await log.acquire(s, 60_000)).token));
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < N; i++) {
        const k = i % scopes.length;
        await log.append(scopes[k]!, tokens[k]!, [delta(Math.floor(i / scopes.length), 'word '.repeat(40))]);
      }
      gc();
      const held = process.memoryUsage().heapUsed - before;
      // Each ~300 bytes of JSON: kept as objects (with their text) they held several times that on the heap.
      expect(held).toBeLessThan(N * 50);
      expect(await log.read(scopes[3]!, 198)).toEqual([delta(199, 'word '.repeat(40))]);
    } finally {
      await log.close();
    }
  });
});
