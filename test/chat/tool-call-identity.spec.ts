// toChatChunks gives a chat client each tool call's whole name and real id on the call's first chunk (the
// official SDK binds a call's identity there), and keeps calls that share a call_id apart.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { toChatChunks } from '../../operators/toChatChunks';
import * as ev from '../operators/events';
import { sdkFinal } from './sdk-final';

type ToolDelta = { index: number; id?: string; function?: { name?: string; arguments?: string } };
const toolDeltas = (chunks: ChatCompletionChunk[]): ToolDelta[] =>
  chunks.flatMap((c) => ((c.choices?.[0]?.delta as { tool_calls?: ToolDelta[] } | undefined)?.tool_calls ?? []));
/** The first chunk of each call, by chat index. */
const firstOf = (chunks: ChatCompletionChunk[]) => {
  const m = new Map<number, ToolDelta>();
  for (const d of toolDeltas(chunks)) if (!m.has(d.index)) m.set(d.index, d);
  return [...m.values()];
};

const calls = (c: ChatCompletion) => (c.choices[0]?.message.tool_calls ?? []).map((t) => {
  const f = (t as { id: string; function: { name: string; arguments: string } });
  return [f.id, f.function.name, f.function.arguments];
});
const toChat = (events: ResponseStreamEvent[]) => lastValueFrom(from(events).pipe(toChatChunks(), toArray()));

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
const roundTrip = (chunks: ChatCompletionChunk[]) => lastValueFrom(from(chunks).pipe(fromChatChunks(), toChatChunks(), toArray()));

describe('toChatChunks: tool call identity', () => {
  test('a call whose added item has no name or id yet waits for them: the first chunk carries the .done name and the closed item\'s id', async () => {
    const out = await toChat([
      ev.created(),
      ev.itemAdded(0, { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '' }),
      ev.argsDelta('fc_1', 0, '{"city":'),
      ev.argsDelta('fc_1', 0, '"Oslo"}'),
      ev.argsDone('fc_1', 0, '{"city":"Oslo"}', 'get_weather'),
      ev.itemDone(0, ev.fc('fc_1', 'call_real', 'get_weather', '{"city":"Oslo"}', 'completed')),
      ev.completed([ev.fc('fc_1', 'call_real', 'get_weather', '{"city":"Oslo"}', 'completed')]),
    ]);
    expect(firstOf(out)).toEqual([{ index: 0, id: 'call_real', type: 'function', function: { name: 'get_weather', arguments: '' } }]);
    expect(calls(await sdkFinal(out))).toEqual([['call_real', 'get_weather', '{"city":"Oslo"}']]);
  });

  test('a name streamed in pieces by a chat provider reaches the client whole, on the first chunk (fromChatChunks → toChatChunks)', async () => {
    const out = await roundTrip([
      chatChunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_B', function: { name: 'get_' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { name: 'time' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"tz":' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: '"UTC"}' } }] }),
      chatChunk({}, 'tool_calls'),
    ]);
    expect(firstOf(out).map((d) => [d.id, d.function?.name])).toEqual([['call_B', 'get_time']]);
    expect(toolDeltas(out).filter((d) => d.function?.name !== undefined)).toHaveLength(1);
    expect(calls(await sdkFinal(out))).toEqual([['call_B', 'get_time', '{"tz":"UTC"}']]);
  });

  test('a tool call id sent on a later fragment is used rather than a made-up one (fromChatChunks → toChatChunks)', async () => {
    const out = await roundTrip([
      chatChunk({ role: 'assistant', tool_calls: [{ index: 0, function: { name: 'f' } }] }),
      chatChunk({ tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '{}' } }] }),
      chatChunk({}, 'tool_calls'),
    ]);
    expect(firstOf(out).map((d) => d.id)).toEqual(['call_late']);
    expect(calls(await sdkFinal(out))).toEqual([['call_late', 'f', '{}']]);
  });

  test('two calls sharing one call_id keep their own arguments', async () => {
    const a = ev.fc('fc_a', 'call_same', 'f', '{"a":1}', 'completed');
    const b = ev.fc('fc_b', 'call_same', 'g', '{"b":2}', 'completed');
    const out = await toChat([
      ev.created(),
      ev.itemAdded(0, ev.fc('fc_a', 'call_same', 'f')),
      ev.argsDelta('fc_a', 0, '{"a":'),
      ev.itemAdded(1, ev.fc('fc_b', 'call_same', 'g')),
      ev.argsDelta('fc_b', 1, '{"b":2}'),
      ev.argsDelta('fc_a', 0, '1}'),
      ev.itemDone(0, a),
      ev.itemDone(1, b),
      ev.completed([a, b]),
    ]);
    expect(calls(await sdkFinal(out))).toEqual([['call_same', 'f', '{"a":1}'], ['call_same', 'g', '{"b":2}']]);
  });
});
