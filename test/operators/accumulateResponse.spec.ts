import { from, lastValueFrom, toArray } from 'rxjs';
import { accumulateResponse } from '../../operators/index';
import type { Response } from '../../lib/events/response';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromResponsesSSE } from '../../lib/index';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';
import * as ev from './events';

const run = (events: ResponseStreamEvent[]) => lastValueFrom(from(events).pipe(accumulateResponse(), toArray()));
const lastOf = async (events: ResponseStreamEvent[]) => (await run(events)).at(-1)!;

describe('accumulateResponse', () => {
  test('emits the response so far after every event that changes it; values are not mutated later', async () => {
    const out = await run([
      ev.created(), ev.itemAdded(0, ev.msg('m')), ev.partAdded('m', 0, 0), ev.textDelta('m', 0, 0, 'He'), ev.unknownEvent(), ev.textDelta('m', 0, 0, 'llo'),
    ]);
    expect(out).toHaveLength(5);
    expect(out.map((r) => (r.output?.[0] as { content?: Array<{ text: string }> } | undefined)?.content?.[0]?.text)).toEqual([undefined, undefined, '', 'He', 'Hello']);
    expect(out[4]).toMatchObject({ id: 'resp_1', status: 'in_progress' });
  });

  test('assembles every kind of streamed content from deltas alone', async () => {
    const r = await lastOf([
      ev.created(), ev.textDelta('m', 0, 0, 'a'), ev.textDelta('m', 0, 0, 'b'), ev.refusalDelta('m', 0, 1, 'no'),
      ev.summaryDelta('r', 1, 0, 's'), ev.reasoningDelta('r', 1, 0, 't'), ev.argsDelta('f', 2, '{"k":'), ev.argsDelta('f', 2, '1}'),
    ]);
    expect(r.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'output_text', text: 'ab' }), { type: 'refusal', refusal: 'no' }] }),
      expect.objectContaining({ type: 'reasoning', summary: [{ type: 'summary_text', text: 's' }], content: [{ type: 'reasoning_text', text: 't' }] }),
      expect.objectContaining({ type: 'function_call', arguments: '{"k":1}' }),
    ]);
  });

  test('response.completed with an empty output: built from the output_item.done items', async () => {
    const item = ev.msg('m', [ev.textPart('Hello')], 'completed');
    const r = await lastOf([ev.created(), ev.itemAdded(0, ev.msg('m')), ev.textDelta('m', 0, 0, 'Hel'), ev.itemDone(0, item), ev.completed([])]);
    expect(r).toMatchObject({ status: 'completed', usage: { total_tokens: 3 } });
    expect(r.output).toEqual([item]);
  });

  test('a resume seam continues the same state; another response id starts afresh', async () => {
    const first = [ev.created(), ev.itemAdded(0, ev.msg('m')), ev.textDelta('m', 0, 0, 'Hel')];
    const resumed = [ev.inProgress(), ev.textDelta('m', 0, 0, 'lo'), ev.textDone('m', 0, 0, 'Hello')];
    const r = await lastOf([...first, ...resumed]);
    expect((r.output?.[0] as { content: Array<{ text: string }> }).content[0]?.text).toBe('Hello');
    const other = await lastOf([...first, ev.created('resp_2')]);
    expect(other).toMatchObject({ id: 'resp_2', output: [] });
  });

  test('rotated item ids and interleaved items', async () => {
    const r = await lastOf([ev.textDelta('a1', 0, 0, 'x'), ev.textDelta('b1', 1, 0, 'y'), ev.textDelta('a2', 0, 0, 'z')]);
    expect(r.output?.map((i) => (i as { content: Array<{ text: string }> }).content[0]?.text)).toEqual(['xz', 'y']);
  });

  test.each(responsesFixtures())('%s: the last value equals the final response', async (name) => {
    const sse = fixture(name);
    const ps = payloads(sse);
    const values: Response[] = [];
    await new Promise<void>((resolve) => fromResponsesSSE(sse).pipe(accumulateResponse()).subscribe({ next: (v) => values.push(v), error: () => resolve(), complete: resolve }));
    const terminal = ps.filter((p) => ['response.completed', 'response.incomplete', 'response.failed'].includes(p['type'] as string)).at(-1);
    if (terminal === undefined) return;
    expect(values.at(-1)).toEqual(terminal['response']);
    // Before the terminal event, the assembled output already holds every closed item.
    const closed = ps
      .filter((p) => p['type'] === 'response.output_item.done')
      .sort((a, b) => (a['output_index'] as number) - (b['output_index'] as number))
      .map((p) => p['item']);
    if (closed.length > 0) expect(values.at(-2)?.output).toEqual(closed);
  });

  test.each(responsesFixtures())('%s: with output [] on the terminal event, the output is rebuilt', async (name) => {
    const ps = payloads(fixture(name));
    const i = ps.findIndex((p) => p['type'] === 'response.completed');
    if (i < 0) return;
    const expected = (ps[i]!['response'] as { output: unknown[] }).output;
    const emptied = ps.map((p, j) => (j === i ? { ...p, response: { ...(p['response'] as object), output: [] } } : p));
    const r = await lastOf(emptied as unknown as ResponseStreamEvent[]);
    expect(r.output).toEqual(expected);
  });
});
