// An item-scoped event applies only to an item of the type it belongs to (README, Guarantees: wrong types);
// the hosted shell's output and client-executed tool searches.
import { from, lastValueFrom, toArray, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, accumulateText, collectToolCalls, outputText, toChatChunks, type ToolCall } from '../../operators/index';
import * as ev from './events';

const run = <T>(events: ResponseStreamEvent[], op: OperatorFunction<ResponseStreamEvent, T>) => lastValueFrom(from(events).pipe(op, toArray()));
const raw = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;

const fileSearch = { id: 'fs_1', type: 'file_search_call', status: 'in_progress', queries: [] };
const shellOut = (ci: number, d: Record<string, unknown>, oi = 0) => raw({ type: 'response.shell_call_output_content.delta', item_id: 'sho_1', output_index: oi, command_index: ci, delta: d });
const shellDone = (ci: number, output: unknown[], oi = 0) => raw({ type: 'response.shell_call_output_content.done', item_id: 'sho_1', output_index: oi, command_index: ci, output });
const customDelta = (oi: number, d: string) => raw({ type: 'response.custom_tool_call_input.delta', item_id: 'x', output_index: oi, delta: d });

describe('wrong-typed item events are ignored', () => {
  // A function call at 0, a message at 1 and a file search at 2, then events each aimed at another's type.
  const items = [ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'f')), ev.itemAdded(1, ev.msg('m')), ev.itemAdded(2, fileSearch)];
  const wrong = [
    ev.textDelta('fc_1', 0, 0, 'text at a call'), ev.refusalDelta('fc_1', 0, 0, 'no'), ev.summaryDelta('m', 1, 0, 'summary at a message'),
    ev.reasoningDelta('m', 1, 0, 'reasoning at a message'), ev.argsDelta('fs_1', 2, '{"x":'), ev.argsDelta('m', 1, '"y"}'), customDelta(1, 'input'),
    shellOut(0, { stdout: 'shell at a message' }, 1), ev.textDone('fc_1', 0, 0, 'done at a call'), ev.partAdded('fc_1', 0, 0),
  ];
  const right = [ev.textDelta('m', 1, 0, 'Hi'), ev.argsDelta('fc_1', 0, '{}')];
  const events = [ev.created(), ...items, ...wrong, ...right, ev.completed()];

  test('accumulateText and outputText', async () => {
    const snaps = await run(events, accumulateText({ kind: 'all' }));
    expect(snaps.map((s) => [s.kind, s.outputIndex, s.text, s.done])).toEqual([['output_text', 1, 'Hi', false], ['output_text', 1, 'Hi', true]]);
    expect(await run(events, outputText())).toEqual(['Hi']);
  });

  test('accumulateResponse: no value for them, and the items keep their shape', async () => {
    const values = await run(events, accumulateResponse());
    expect(values).toHaveLength(1 + items.length + right.length + 1);
    expect(values.at(-1)!.output).toEqual([
      { ...ev.fc('fc_1', 'call_1', 'f'), arguments: '{}' },
      { ...ev.msg('m'), content: [{ type: 'output_text', text: 'Hi', annotations: [] }] },
      fileSearch,
    ]);
  });

  test('collectToolCalls: partial values and the final arguments come from the call’s own events', async () => {
    const calls = await run([...events.slice(0, -1), ev.itemDone(0, ev.fc('fc_1', 'call_1', 'f', '{}', 'completed')), ev.completed()], collectToolCalls({ partial: true }));
    expect(calls.map((c) => [c.type, c.outputIndex, c.state, 'arguments' in c ? c.arguments : undefined])).toEqual([
      ['function_call', 0, 'partial', '{}'],
      ['function_call', 0, 'complete', '{}'],
    ]);
  });

  test('collectToolCalls: arguments aimed at a file search never make a function call', async () => {
    const calls = await run([ev.itemAdded(0, fileSearch), ev.argsDelta('fs_1', 0, '{}'), ev.itemDone(0, { ...fileSearch, status: 'completed' }), ev.completed()], collectToolCalls({ partial: true, incomplete: true }));
    expect(calls).toEqual([]);
  });

  test('toChatChunks: only the message’s text and the call’s arguments', async () => {
    const chunks = await run(events, toChatChunks());
    const deltas = chunks.map((c) => c.choices?.[0]?.delta as Record<string, unknown>);
    expect(deltas.filter((d) => 'content' in d && d['role'] === undefined).map((d) => d['content'])).toEqual(['Hi']);
    expect(deltas.some((d) => 'refusal' in d || 'reasoning_content' in d)).toBe(false);
    const args = deltas.flatMap((d) => (d['tool_calls'] as Array<{ function: { arguments: string } }> | undefined) ?? []).map((t) => t.function.arguments);
    expect(args.join('')).toBe('{}');
  });

  test('an item not announced takes the type of the first event aimed at it', async () => {
    const r = (await run([ev.textDelta('m', 0, 0, 'Hi'), ev.argsDelta('m', 0, '{}'), ev.summaryDelta('m', 0, 0, 'x')], accumulateResponse())).at(-1)!;
    expect(r.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Hi' })] })]);
    expect(r.output?.[0]).not.toHaveProperty('arguments');
  });
});

describe('accumulateResponse: the hosted shell’s output', () => {
  const added = ev.itemAdded(0, { id: 'sho_1', type: 'shell_call_output', call_id: 'call_sh', status: 'in_progress', output: [] });
  const output = (r: { output?: unknown[] }) => (r.output?.[0] as { output: unknown[] }).output;

  test('stdout and stderr grow with the deltas, per command; .done replaces the command’s content', async () => {
    const values = await run(
      [added, shellOut(0, { stdout: 'total 8\n' }), shellOut(0, { stdout: 'a.txt\n', stderr: 'warn\n' }), shellOut(1, { stdout: '/tmp\n' }),
        shellDone(0, [{ stdout: 'total 8\na.txt\n', stderr: 'warn\n', outcome: { type: 'exit', exit_code: 0 } }])],
      accumulateResponse(),
    );
    expect(values.map(output)).toEqual([
      [],
      [{ stdout: 'total 8\n', stderr: '' }],
      [{ stdout: 'total 8\na.txt\n', stderr: 'warn\n' }],
      [{ stdout: 'total 8\na.txt\n', stderr: 'warn\n' }, { stdout: '/tmp\n', stderr: '' }],
      [{ stdout: 'total 8\na.txt\n', stderr: 'warn\n', outcome: { type: 'exit', exit_code: 0 } }, { stdout: '/tmp\n', stderr: '' }],
    ]);
  });

  test('without its added item: a shell_call_output placeholder; malformed deltas are ignored', async () => {
    const values = await run([shellOut(0, { stdout: 'x' }), shellOut(0, { stdout: 7 }), raw({ ...shellOut(0, {}), delta: 'x' }), shellDone(0, []), shellOut(-1, { stdout: 'y' })], accumulateResponse());
    expect(values).toHaveLength(1);
    expect(values[0]!.output).toEqual([{ id: 'sho_1', type: 'shell_call_output', status: 'in_progress', output: [{ stdout: 'x', stderr: '' }] }]);
  });

  test('the closed item and the final response are authoritative', async () => {
    const closed = { id: 'sho_1', type: 'shell_call_output', call_id: 'call_sh', status: 'completed', output: [{ stdout: 'ok\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] };
    const r = (await run([added, shellOut(0, { stdout: 'o' }), ev.itemDone(0, closed), ev.completed([closed])], accumulateResponse())).at(-1)!;
    expect(r.output).toEqual([closed]);
  });
});

describe('collectToolCalls: tool_search_call', () => {
  const search = (execution: string, status = 'completed') => ({ id: 'ts_1', type: 'tool_search_call', call_id: 'call_ts', execution, arguments: { query: 'weather tools' }, status });

  test('a client-executed search is a call the application answers', async () => {
    const calls = await run([ev.itemAdded(0, search('client', 'in_progress')), ev.itemDone(0, search('client')), ev.completed([search('client')])], collectToolCalls());
    expect(calls).toEqual([
      { type: 'tool_search_call', state: 'complete', outputIndex: 0, itemId: 'ts_1', status: 'completed', item: search('client'), callId: 'call_ts', execution: 'client', arguments: { query: 'weather tools' } },
    ]);
    const t: ToolCall = calls[0]!;
    if (t.type === 'tool_search_call') expect(t.arguments).toEqual({ query: 'weather tools' });
  });

  test('a server-executed search only with { hosted: true }; an unfinished client one only with { incomplete: true }', async () => {
    const server = [ev.itemAdded(0, search('server', 'in_progress')), ev.itemDone(0, search('server')), ev.completed([search('server')])];
    expect(await run(server, collectToolCalls())).toEqual([]);
    expect((await run(server, collectToolCalls({ hosted: true }))).map((c) => [c.type, c.state])).toEqual([['tool_search_call', 'complete']]);
    const cut = [ev.itemAdded(0, search('client', 'in_progress')), ev.incomplete()];
    expect(await run(cut, collectToolCalls())).toEqual([]);
    expect((await run(cut, collectToolCalls({ incomplete: true }))).map((c) => [c.type, c.state])).toEqual([['tool_search_call', 'incomplete']]);
  });
});
