import { from, lastValueFrom, toArray } from 'rxjs';
import { collectToolCalls, type CollectToolCallsOptions, type ToolCall } from '../../operators/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromResponsesSSE } from '../../index';
import { fixture, payloads } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';
import * as ev from './events';

const run = (events: ResponseStreamEvent[], options?: CollectToolCallsOptions) => lastValueFrom(from(events).pipe(collectToolCalls(options), toArray()));

const weather = [
  ev.created(), ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')),
  ev.argsDelta('fc_1', 0, '{"city":'), ev.argsDelta('fc_1', 0, '"Paris"}'), ev.argsDone('fc_1', 0, '{"city":"Paris"}', 'get_weather'),
  ev.itemDone(0, ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Paris"}', 'completed')),
];

describe('collectToolCalls', () => {
  test('one value per call when its item closes, with parsed arguments', async () => {
    const out = await run([...weather, ev.completed([ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Paris"}', 'completed')])]);
    expect(out).toEqual([
      expect.objectContaining({
        type: 'function_call', state: 'complete', outputIndex: 0, itemId: 'fc_1', status: 'completed', callId: 'call_1', name: 'get_weather',
        arguments: '{"city":"Paris"}', parsed: { ok: true, value: { city: 'Paris' } },
      }),
    ]);
  });

  test('a malformed argument string is reported on the value, not thrown', async () => {
    const out = await run([ev.itemAdded(0, ev.fc('f', 'c', 'n')), ev.itemDone(0, ev.fc('f', 'c', 'n', '{"a":', 'completed')), ev.completed()]);
    expect(out).toHaveLength(1);
    const call = out[0] as Extract<ToolCall, { type: 'function_call' }>;
    expect(call.arguments).toBe('{"a":');
    expect(call.parsed?.ok).toBe(false);
    expect(call.parsed?.ok === false && call.parsed.error).toBeInstanceOf(SyntaxError);
  });

  test('the closed item is authoritative over the .done event and the deltas', async () => {
    const out = await run([
      ev.argsDelta('f', 0, '{"x":1'), ev.argsDone('f', 0, '{"x":12}', 'n'), ev.itemDone(0, ev.fc('f', 'c', 'n', '{"x":123}', 'completed')), ev.completed(),
    ]);
    expect(out.map((c) => 'arguments' in c && c.arguments)).toEqual(['{"x":123}']);
  });

  test('partial values after every delta with { partial: true }', async () => {
    const out = await run([...weather, ev.completed()], { partial: true });
    expect(out.map((c) => [c.state, 'arguments' in c ? c.arguments : undefined])).toEqual([
      ['partial', '{"city":'], ['partial', '{"city":"Paris"}'], ['complete', '{"city":"Paris"}'],
    ]);
    expect(out[0]).not.toHaveProperty('parsed');
  });

  test('completion order, interleaved calls, rotated item ids', async () => {
    const out = await run([
      ev.itemAdded(0, ev.fc('a', 'ca', 'first')), ev.itemAdded(1, ev.fc('b', 'cb', 'second')),
      ev.argsDelta('a1', 0, '{"n":'), ev.argsDelta('b1', 1, '{}'), ev.argsDelta('a2', 0, '1}'),
      ev.itemDone(1, ev.fc('b', 'cb', 'second', '{}', 'completed')), ev.itemDone(0, ev.fc('a', 'ca', 'first', '{"n":1}', 'completed')), ev.completed(),
    ]);
    expect(out.map((c) => [c.outputIndex, 'name' in c && c.name])).toEqual([[1, 'second'], [0, 'first']]);
  });

  test('a call cut off is left out by default, flagged incomplete with { incomplete: true }', async () => {
    const cut = [ev.itemAdded(0, ev.fc('f', 'c', 'n')), ev.argsDelta('f', 0, '{"a":')];
    expect(await run(cut)).toEqual([]);
    expect(await run([...cut, ev.incomplete()])).toEqual([]);
    expect(await run([...cut, ev.failed()])).toEqual([]);
    const flagged = await run([...cut, ev.incomplete([ev.fc('f', 'c', 'n', '{"a":', 'incomplete')])], { incomplete: true });
    expect(flagged.map((c) => [c.state, 'arguments' in c && c.arguments])).toEqual([['incomplete', '{"a":']]);
    const cutOff = await run(cut, { incomplete: true });
    expect(cutOff.map((c) => c.state)).toEqual(['incomplete']);
  });

  test('an item closed with status "incomplete" is not complete', async () => {
    const events = [ev.itemAdded(0, ev.fc('f', 'c', 'n')), ev.itemDone(0, ev.fc('f', 'c', 'n', '{', 'incomplete')), ev.incomplete()];
    expect(await run(events)).toEqual([]);
    expect((await run(events, { incomplete: true })).map((c) => c.state)).toEqual(['incomplete']);
  });

  test('a call only in the completed response output is emitted once', async () => {
    const item = ev.fc('f', 'c', 'n', '{}', 'completed');
    const out = await run([ev.argsDelta('f', 0, '{}'), ev.completed([item])]);
    expect(out.map((c) => [c.state, c.item])).toEqual([['complete', item]]);
  });

  test('hosted calls only with { hosted: true }, with their status', async () => {
    const ws = { id: 'ws', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } };
    const events = [ev.itemAdded(0, { ...ws, status: 'in_progress' }), ev.itemDone(0, ws), ev.completed()];
    expect(await run(events)).toEqual([]);
    expect(await run(events, { hosted: true })).toEqual([expect.objectContaining({ type: 'web_search_call', state: 'complete', status: 'completed' })]);
  });

  test('transcripts: function, custom, MCP and client calls equal the closed items', async () => {
    const collect = async (name: string, options?: CollectToolCallsOptions) => {
      const out: ToolCall[] = [];
      out.push(...(await valuesToEnd(fromResponsesSSE(fixture(name)).pipe(collectToolCalls(options)), responsesEnding(fixture(name)))));
      return out;
    };
    const fcs = await collect('function-calls');
    expect(fcs.map((c) => c.type === 'function_call' && [c.callId, c.name, c.parsed])).toEqual([
      ['call_Xk2mP9qR4sT7vW1y', 'get_weather', { ok: true, value: { city: 'Paris', unit: 'c' } }],
      ['call_Bn8cD3eF6gH0jK5l', 'get_weather', { ok: true, value: { city: 'Tokyo', unit: 'c' } }],
    ]);
    const custom = await collect('custom-tool');
    const customItem = payloads(fixture('custom-tool')).find((p) => p['type'] === 'response.output_item.done')?.['item'] as { input: string };
    expect(custom.map((c) => c.type === 'custom_tool_call' && c.input)).toEqual([customItem.input]);
    expect((await collect('mcp')).map((c) => c.type)).toEqual(['mcp_call', 'mcp_approval_request']);
    expect((await collect('second-provider')).map((c) => c.type)).toEqual(['mcp_call']);
    expect((await collect('second-provider', { hosted: true })).map((c) => c.type)).toEqual(['web_search_call', 'web_search_call', 'mcp_call']);
    expect((await collect('forward-compat')).map((c) => c.type === 'apply_patch_call' && c.callId)).toEqual(['call_Zp4xQ8wE2rT6yU0i']);
    expect(await collect('incomplete')).toEqual([]);
  });
});

describe('collectToolCalls: indices and malformed events', () => {
  const raw = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;

  test('a huge output index is one call; a non-index one, or a delta that is not a string, is ignored', async () => {
    const out = await lastValueFrom(
      from([
        ev.itemAdded(1e9, ev.fc('fc_1', 'call_1', 'f')), ev.argsDelta('fc_1', 1e9, '{"a"'),
        raw({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1e9, delta: 5 }),
        raw({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: '__proto__', delta: 'junk' }),
        raw({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: -1, delta: 'junk' }),
        ev.argsDelta('fc_1', 1e9, ':1}'), raw({ type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1e9, arguments: { no: 1 } }),
        null as unknown as ResponseStreamEvent, raw({ type: 'response.output_item.done', output_index: '__proto__', item: ev.fc('fc_2', 'call_2', 'g', '{}', 'completed') }),
        ev.completed(),
      ]).pipe(collectToolCalls({ incomplete: true }), toArray()),
    );
    expect(out.map((c) => [c.type, c.state, c.outputIndex, c.type === 'function_call' && c.arguments])).toEqual([['function_call', 'incomplete', 1e9, '{"a":1}']]);
  });
});
