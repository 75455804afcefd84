import { from, lastValueFrom, toArray } from 'rxjs';
import { accumulateResponse } from '../../operators/index';
import type { Response } from '../../lib/events/response';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromResponsesSSE } from '../../index';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';
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
    values.push(...(await valuesToEnd(fromResponsesSSE(sse).pipe(accumulateResponse()), responsesEnding(sse))));
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

describe('accumulateResponse: indices and malformed events', () => {
  const raw = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
  const delta = (oi: unknown, ci: unknown, d: unknown = 'x') => raw({ type: 'response.output_text.delta', item_id: 'm', output_index: oi, content_index: ci, delta: d, logprobs: [] });
  const texts = (r: Response) => (r.output ?? []).map((i) => (i as { content: Array<{ text: string }> }).content.map((p) => p.text));

  test('huge output indices: output holds the items in index order, nothing else', async () => {
    const r = await lastOf([ev.itemAdded(2 ** 32 - 2, ev.msg('b')), ev.itemAdded(1e9, ev.msg('a')), ev.itemAdded(0, ev.msg('z')), delta(1e9, 0, 'A')]);
    expect(r.output?.map((i) => i.id)).toEqual(['z', 'a', 'b']);
    expect(texts(r)).toEqual([[], ['A'], []]);
  });

  test('content indices with gaps: the content list stays dense and in index order', async () => {
    const r = await lastOf([ev.itemAdded(0, ev.msg('m')), delta(0, 0, 'a'), delta(0, 1e9, 'c'), delta(0, 5, 'b'), delta(0, 1e9, 'C'), delta(0, 0, 'A'), delta(0, Number.MAX_SAFE_INTEGER, 'd')]);
    expect(texts(r)).toEqual([['aA', 'b', 'cC', 'd']]);
    // A later authoritative item replaces the list (and its index map).
    const after = await lastOf([ev.itemAdded(0, ev.msg('m')), delta(0, 1e9, 'c'), ev.itemDone(0, ev.msg('m', [ev.textPart('x'), ev.textPart('y')], 'completed')), delta(0, 1, '!')]);
    expect(texts(after)).toEqual([['x', 'y!']]);
  });

  test('annotation and shell command indices with gaps stay dense too', async () => {
    const ann = (ai: number, url: string) => raw({ type: 'response.output_text.annotation.added', item_id: 'm', output_index: 0, content_index: 0, annotation_index: ai, annotation: { type: 'url_citation', url } });
    const r = await lastOf([ev.itemAdded(0, ev.msg('m', [ev.textPart('t')])), ann(1e9, 'b'), ann(0, 'a'), ann(2 ** 31 - 1, 'c'), ann(5, 'ab')]);
    const part = (r.output?.[0] as unknown as { content: Array<{ annotations: Array<{ url: string }> }> }).content[0]!;
    expect(part.annotations.map((a) => a.url)).toEqual(['a', 'ab', 'b', 'c']);
    const cmd = (type: string, ci: number, v: string) => raw({ type, output_index: 0, command_index: ci, ...(type.endsWith('.delta') ? { delta: v } : { command: v }) });
    const s = await lastOf([cmd('response.shell_call_command.added', 1e9, 'ls'), cmd('response.shell_call_command.delta', 1e9, ' -l'), cmd('response.shell_call_command.done', 3, 'pwd')]);
    expect((s.output?.[0] as unknown as { action: { commands: string[] } }).action.commands).toEqual(['pwd', 'ls -l']);
  });

  test('an index that is not a non-negative safe integer, or a malformed event, is ignored', async () => {
    const bad: unknown[] = ['__proto__', 'constructor', -1, 0.5, NaN, 2 ** 53, null, {}];
    const values = await run([
      ...bad.flatMap((b) => [raw({ type: 'response.output_item.added', output_index: b, item: ev.msg('x') }), delta(b, 0), delta(0, b)]),
      null as unknown as ResponseStreamEvent, raw({ type: 'response.content_part.added', output_index: 0, content_index: 0 }), delta(0, 0, 7),
      raw({ type: 'response.function_call_arguments.delta', output_index: 0 }), raw({ type: 'response.web_search_call.searching', output_index: '__proto__' }),
      delta(0, 0, 'ok'),
    ]);
    expect(values).toHaveLength(1);
    expect(texts(values[0]!)).toEqual([['ok']]);
    expect(Object.getPrototypeOf(values[0]!.output)).toBe(Array.prototype);
    expect(Object.prototype.hasOwnProperty.call(Array.prototype, 'id')).toBe(false);
  });
});
