// The terminal response's `output` may leave out or reorder items that streamed: every operator matches
// its items to the streamed ones by id, never by list position, so no text appears twice or moves.
import { from, lastValueFrom, toArray, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, accumulateText, collectToolCalls, outputText, toChatChunks } from '../../operators/index';
import * as ev from './events';

const run = <T>(events: ResponseStreamEvent[], op: OperatorFunction<ResponseStreamEvent, T>) => lastValueFrom(from(events).pipe(op, toArray()));

const rs = (text: string, status = 'completed') => ({ id: 'rs_1', type: 'reasoning', status, summary: [{ type: 'summary_text', text }] });
const answer = ev.msg('msg_1', [ev.textPart('Hello')], 'completed');
const call = ev.fc('fc_1', 'call_1', 'f', '{"a":1}', 'completed');

/** A reasoning item at 0, the answer at 1 and a function call at 2, all streamed and closed; then `completed(output)`. */
const stream = (output: unknown[]): ResponseStreamEvent[] => [
  ev.created(),
  ev.itemAdded(0, { id: 'rs_1', type: 'reasoning', summary: [] }), ev.summaryDelta('rs_1', 0, 0, 'think'), ev.itemDone(0, rs('think')),
  ev.itemAdded(1, ev.msg('msg_1')), ev.partAdded('msg_1', 1, 0), ev.textDelta('msg_1', 1, 0, 'Hel'), ev.textDelta('msg_1', 1, 0, 'lo'),
  ev.textDone('msg_1', 1, 0, 'Hello'), ev.partDone('msg_1', 1, 0, ev.textPart('Hello')), ev.itemDone(1, answer),
  ev.itemAdded(2, ev.fc('fc_1', 'call_1', 'f')), ev.argsDelta('fc_1', 2, '{"a":1}'), ev.itemDone(2, call),
  ev.completed(output),
];

const SHAPES: Array<[string, unknown[]]> = [
  ['leaves out the reasoning item', [answer, call]],
  ['holds only the answer', [answer]],
  ['lists the items in another order', [call, answer, rs('think')]],
  ['is empty', []],
];

describe.each(SHAPES)('the final output %s', (_name, output) => {
  const events = stream(output);

  test('accumulateText: one final snapshot per part, at its own output_index', async () => {
    const finals = (await run(events, accumulateText({ kind: 'all' }))).filter((s) => s.done).map((s) => [s.kind, s.outputIndex, s.contentIndex, s.text]);
    expect(finals.sort()).toEqual([['output_text', 1, 0, 'Hello'], ['reasoning_summary_text', 0, 0, 'think']]);
  });

  test('outputText: the answer once', async () => {
    expect((await run(events, outputText())).at(-1)).toBe('Hello');
  });

  test('accumulateResponse: every item once, in output_index order, as the final output says it', async () => {
    const last = (await run(events, accumulateResponse())).at(-1)!;
    expect(last.status).toBe('completed');
    expect(last.output).toEqual([rs('think'), answer, call]);
  });

  test('collectToolCalls: the call once, at its own output_index', async () => {
    const calls = await run(events, collectToolCalls());
    expect(calls.map((c) => [c.type, c.outputIndex, c.state])).toEqual([['function_call', 2, 'complete']]);
  });

  test('toChatChunks: the answer once and the call once', async () => {
    const chunks = await run(events, toChatChunks());
    const deltas = chunks.map((c) => c.choices?.[0]?.delta as { content?: string | null; tool_calls?: Array<{ index: number; id?: string; function: { arguments: string } }> } | undefined);
    expect(deltas.map((d) => d?.content ?? '').join('')).toBe('Hello');
    const calls = deltas.flatMap((d) => d?.tool_calls ?? []);
    expect(calls.filter((t) => t.id !== undefined).map((t) => [t.index, t.id])).toEqual([[0, 'call_1']]);
    expect(calls.map((t) => t.function.arguments).join('')).toBe('{"a":1}');
  });
});

describe('items of the final output that never streamed', () => {
  test('placed after the streamed ones when their position is taken, at it when free', async () => {
    const late = ev.msg('msg_2', [ev.textPart(' Bye')], 'completed');
    const events = [ev.itemAdded(0, ev.msg('msg_1')), ev.textDelta('msg_1', 0, 0, 'Hi'), ev.completed([late, ev.msg('msg_1', [ev.textPart('Hi')], 'completed')])];
    const finals = (await run(events, accumulateText())).filter((s) => s.done).map((s) => [s.outputIndex, s.text]);
    expect(finals).toEqual([[0, 'Hi'], [1, ' Bye']]);
    expect((await run(events, outputText())).at(-1)).toBe('Hi Bye');
    expect((await run(events, accumulateResponse())).at(-1)!.output?.map((i) => i.id)).toEqual(['msg_1', 'msg_2']);
    // Nothing streamed: the positions are the output indexes.
    const terse = [ev.completed([ev.msg('a', [ev.textPart('A')], 'completed'), ev.msg('b', [ev.textPart('B')], 'completed')])];
    expect((await run(terse, outputText())).at(-1)).toBe('AB');
  });

  test('an item whose id rotated since it streamed takes its position when the item there is of its type', async () => {
    const events = [ev.textDelta('m_a', 0, 0, 'Hel'), ev.textDelta('m_b', 0, 0, 'lo'), ev.completed([ev.msg('m_z', [ev.textPart('Hello')], 'completed')])];
    expect((await run(events, accumulateText())).filter((s) => s.done).map((s) => [s.outputIndex, s.text])).toEqual([[0, 'Hello']]);
    expect((await run(events, accumulateResponse())).at(-1)!.output).toHaveLength(1);
  });
});
