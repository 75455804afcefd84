// accumulateResponse copies only the path to what changed: unchanged items and parts are the same objects in
// every snapshot, a snapshot never changes once emitted, and long lists are built only when read.
import { from, lastValueFrom, toArray } from 'rxjs';
import type { Response } from '../../lib/events/response';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse } from '../../operators/accumulateResponse';
import * as ev from './events';

type Json = Record<string, unknown>;
const run = (events: ResponseStreamEvent[]) => lastValueFrom(from(events).pipe(accumulateResponse(), toArray()));
const items = (r: Response) => r.output as unknown as Json[];
const annotation = (i: number) => ({ type: 'url_citation', start_index: i, end_index: i + 1, url: `https://x.test/${i}`, title: `t${i}` });
const annotationAdded = (oi: number, ci: number, ai: number): ResponseStreamEvent =>
  ({ type: 'response.output_text.annotation.added', item_id: 'm', output_index: oi, content_index: ci, annotation_index: ai, annotation: annotation(ai), sequence_number: 0 }) as unknown as ResponseStreamEvent;

/** n messages, each opened, given two deltas and closed. */
function manyItems(n: number): ResponseStreamEvent[] {
  const out: ResponseStreamEvent[] = [ev.created()];
  for (let i = 0; i < n; i++) {
    out.push(ev.itemAdded(i, ev.msg(`m${i}`)), ev.partAdded(`m${i}`, i, 0), ev.textDelta(`m${i}`, i, 0, `a${i}`), ev.textDelta(`m${i}`, i, 0, `b${i}`));
    out.push(ev.itemDone(i, ev.msg(`m${i}`, [ev.textPart(`a${i}b${i}`)], 'completed')));
  }
  return out;
}

describe('accumulateResponse: structural sharing', () => {
  test.each([5, 100])('%s items: every snapshot keeps what it showed when emitted; unchanged items are the same object', async (n) => {
    const events = manyItems(n);
    const seen: string[] = [];
    const values: Response[] = [];
    await new Promise<void>((resolve, reject) =>
      from(events).pipe(accumulateResponse()).subscribe({ next: (r) => { values.push(r); seen.push(JSON.stringify(r)); }, error: reject, complete: resolve }));
    values.forEach((r, i) => expect(JSON.stringify(r)).toBe(seen[i]));
    const last = items(values[values.length - 1]!);
    expect(last.map((it) => (it['content'] as Json[])[0]!['text'])).toEqual(Array.from({ length: n }, (_, i) => `a${i}b${i}`));
    // item 0 closed long before the end: the very same object in the last snapshot and just after it closed
    const closedAt = values.findIndex((r) => items(r)[0]?.['status'] === 'completed');
    expect(items(values[closedAt]!)[0]).toBe(last[0]);
    expect(items(values[values.length - 2]!)[0]).toBe(last[0]);
  });

  test('a long output list is an enumerable accessor until read, then a plain array: emitting does not copy it', async () => {
    const values = await run(manyItems(40));
    const last = values[values.length - 1]!;
    const d = Object.getOwnPropertyDescriptor(last, 'output');
    expect(d?.enumerable).toBe(true);
    expect(typeof d?.get).toBe('function');
    expect(Array.isArray(last.output)).toBe(true);
    expect(last.output).toHaveLength(40);
    expect(Object.getOwnPropertyDescriptor(last, 'output')?.value).toBe(last.output); // built once
    expect(Object.keys(last)).toContain('output');
    expect(structuredClone(last).output).toHaveLength(40);
    const copy = { ...values[values.length - 2]! };
    expect(Array.isArray(copy.output)).toBe(true);
  });

  test('many content parts and annotations: each snapshot keeps its own, the last has them all, untouched parts are shared', async () => {
    const n = 80;
    const events: ResponseStreamEvent[] = [ev.created(), ev.itemAdded(0, ev.msg('m'))];
    for (let ci = 0; ci < n; ci++) events.push(ev.partAdded('m', 0, ci), ev.textDelta('m', 0, ci, `p${ci}`));
    for (let ai = 0; ai < n; ai++) events.push(annotationAdded(0, n - 1, ai));
    events.push(ev.textDelta('m', 0, n - 1, '!'));
    const seen: string[] = [];
    const values: Response[] = [];
    await new Promise<void>((resolve, reject) =>
      from(events).pipe(accumulateResponse()).subscribe({ next: (r) => { values.push(r); seen.push(JSON.stringify(r)); }, error: reject, complete: resolve }));
    values.forEach((r, i) => expect(JSON.stringify(r)).toBe(seen[i]));
    const content = (r: Response) => items(r)[0]!['content'] as Json[];
    const last = content(values[values.length - 1]!);
    expect(last.map((p) => p['text'])).toEqual([...Array.from({ length: n - 1 }, (_, i) => `p${i}`), `p${n - 1}!`]);
    expect(last[n - 1]!['annotations']).toEqual(Array.from({ length: n }, (_, i) => annotation(i)));
    expect(content(values[values.length - 2]!)[n - 1]!['text']).toBe(`p${n - 1}`);
    expect(content(values[values.length - 2]!)[0]).toBe(last[0]); // part 0 did not change
  });
});
