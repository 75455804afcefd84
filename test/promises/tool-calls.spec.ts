// collectToolCalls for the call types that had no test of their own: the client-executed shell, local shell
// and computer calls, and the hosted file search, code interpreter and image generation calls (recorded
// transcripts; emitted only with { hosted: true }).
import { from, lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE, type ResponseStreamEvent } from '../../index.js';
import { collectToolCalls, type CollectToolCallsOptions, type ToolCall } from '../../operators';
import { fixture, payloads } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';
import * as ev from '../operators/events';

const run = (events: ResponseStreamEvent[], options?: CollectToolCallsOptions): Promise<ToolCall[]> => lastValueFrom(from(events).pipe(collectToolCalls(options), toArray()));

const shell = (status: string) => ({ id: 'sh_1', type: 'shell_call', call_id: 'call_sh', status, action: { commands: ['ls -la'], timeout_ms: 1000, max_output_length: null } });
const localShell = (status: string) => ({ id: 'ls_1', type: 'local_shell_call', call_id: 'call_ls', status, action: { type: 'exec', command: ['echo', 'hi'], env: {} } });
const computer = (status: string) => ({ id: 'cu_1', type: 'computer_call', call_id: 'call_cu', status, action: { type: 'click', x: 10, y: 20, button: 'left' }, pending_safety_checks: [] });

describe('client-executed calls: shell, local shell, computer', () => {
  test.each([
    ['shell_call', shell, 'call_sh'],
    ['local_shell_call', localShell, 'call_ls'],
    ['computer_call', computer, 'call_cu'],
  ] as const)('%s: one complete call when its item closes, with its call_id and the closed item', async (type, make, callId) => {
    const done = make('completed');
    const out = await run([ev.created(), ev.itemAdded(0, make('in_progress')), ev.itemDone(0, done), ev.completed([done])]);
    expect(out).toEqual([expect.objectContaining({ type, state: 'complete', callId, outputIndex: 0, itemId: done.id, status: 'completed', item: done })]);
  });

  test.each([
    ['shell_call', shell],
    ['local_shell_call', localShell],
    ['computer_call', computer],
  ] as const)('%s cut off before it closed: left out, or flagged with { incomplete: true }', async (type, make) => {
    const events = [ev.created(), ev.itemAdded(0, make('in_progress'))];
    expect(await run(events)).toEqual([]);
    expect(await run(events, { incomplete: true })).toEqual([expect.objectContaining({ type, state: 'incomplete' })]);
  });

  test('several client calls in one response: in output order, each once', async () => {
    const items = [shell('completed'), computer('completed'), localShell('completed')];
    const events = [ev.created(), ...items.flatMap((it, i) => [ev.itemAdded(i, { ...it, status: 'in_progress' }), ev.itemDone(i, it)]), ev.completed(items)];
    expect((await run(events)).map((c) => [c.type, c.outputIndex])).toEqual([['shell_call', 0], ['computer_call', 1], ['local_shell_call', 2]]);
  });
});

describe('hosted calls in recorded transcripts: file search, code interpreter, image generation', () => {
  test.each([
    ['file-search', 'file_search_call'],
    ['code-interpreter', 'code_interpreter_call'],
    ['image-generation', 'image_generation_call'],
  ])('%s: with { hosted: true } each closed %s item once, as closed; without, none', async (name, type) => {
    const sse = fixture(name);
    const closed = payloads(sse)
      .filter((p) => p['type'] === 'response.output_item.done' && (p['item'] as { type: string }).type === type)
      .map((p) => ({ outputIndex: p['output_index'], item: p['item'] as { id: string; status: string } }));
    expect(closed.length).toBeGreaterThan(0);
    const hosted = await valuesToEnd(fromResponsesSSE(sse).pipe(collectToolCalls({ hosted: true })), responsesEnding(sse));
    expect(hosted.filter((c) => c.type === type)).toEqual(
      closed.map(({ outputIndex, item }) => expect.objectContaining({ type, state: 'complete', outputIndex, itemId: item.id, status: item.status, item })),
    );
    const plain = await valuesToEnd(fromResponsesSSE(sse).pipe(collectToolCalls()), responsesEnding(sse));
    expect(plain.filter((c) => c.type === type)).toEqual([]);
  });

  test('hosted calls have no callId (the platform ran them; there is nothing to answer)', async () => {
    const sse = fixture('code-interpreter');
    const calls = await valuesToEnd(fromResponsesSSE(sse).pipe(collectToolCalls({ hosted: true })), responsesEnding(sse));
    for (const c of calls.filter((x) => x.type === 'code_interpreter_call')) expect(c).not.toHaveProperty('callId');
  });
});
