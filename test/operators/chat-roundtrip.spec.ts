// fromChatChunks → toChatChunks → fromChatChunks keeps every tool call's name, id and arguments, however the
// provider spread them over fragments: a name in pieces (also after a first fragment in OpenAI's shape,
// `arguments: ""`), an id on a later fragment (also after the arguments began), calls without an id.
import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { toChatChunks } from '../../operators/toChatChunks';

type Json = Record<string, unknown>;
type Fragment = { index?: number; id?: string; type?: string; function?: Json; custom?: Json };
const chunk = (delta: Json, finish: string | null = null) =>
  ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
const tools = (...fs: Fragment[]) => chunk({ tool_calls: fs });

/** The closed call items: [call_id, name, arguments or input]. */
const callsOf = (events: ResponseStreamEvent[]) =>
  events
    .filter((e) => e.type === 'response.output_item.done')
    .map((e) => (e as unknown as { item: Json }).item)
    .filter((i) => i['type'] === 'function_call' || i['type'] === 'custom_tool_call')
    .map((i) => [i['call_id'], i['name'], i['arguments'] ?? i['input']]);

/** The first chat fragment of each call, as a chat client binds the call's identity there. */
const firstFragments = (chunks: ChatCompletionChunk[]) => {
  const seen = new Map<number, Fragment>();
  for (const c of chunks) for (const f of ((c.choices?.[0]?.delta as { tool_calls?: Fragment[] } | undefined)?.tool_calls ?? [])) if (!seen.has(f.index!)) seen.set(f.index!, f);
  return [...seen.values()].map((f) => [f.id, (f.function ?? f.custom)?.['name']]);
};

async function roundTrip(chunks: ChatCompletionChunk[]) {
  const first = await lastValueFrom(from(chunks).pipe(fromChatChunks(), toArray()));
  const chat = await lastValueFrom(from(first).pipe(toChatChunks(), toArray()));
  const second = await lastValueFrom(from(chat).pipe(fromChatChunks(), toArray()));
  return { first: callsOf(first), chat, second: callsOf(second) };
}

describe('tool calls through fromChatChunks → toChatChunks → fromChatChunks', () => {
  test.each<[string, ChatCompletionChunk[], unknown[][]]>([
    ['a name in pieces after a first fragment in OpenAI\'s shape', [
      tools({ index: 0, id: 'call_1', type: 'function', function: { name: 'get_', arguments: '' } }),
      tools({ index: 0, function: { name: 'weather', arguments: '' } }),
      tools({ index: 0, function: { arguments: '{"city":"Oslo"}' } }),
      chunk({}, 'tool_calls'),
    ], [['call_1', 'get_weather', '{"city":"Oslo"}']]],
    ['the id on the fragment after the arguments began', [
      tools({ index: 0, function: { name: 'f', arguments: '{"a"' } }),
      tools({ index: 0, id: 'call_late', function: { arguments: ':1}' } }),
      chunk({}, 'tool_calls'),
    ], [['call_late', 'f', '{"a":1}']]],
    ['the last name piece with the first arguments', [
      tools({ index: 0, id: 'call_2', function: { name: 'get_' } }),
      tools({ index: 0, function: { name: 'time', arguments: '{}' } }),
      chunk({}, 'tool_calls'),
    ], [['call_2', 'get_time', '{}']]],
    ['two calls, the second opened first in index order, each with its id late', [
      tools({ index: 1, function: { name: 'b', arguments: '' } }),
      tools({ index: 1, id: 'call_b', function: { arguments: '{"b":1}' } }),
      tools({ index: 0, function: { name: 'a_', arguments: '' } }),
      tools({ index: 0, id: 'call_a', function: { name: 'x', arguments: '{}' } }),
      chunk({}, 'tool_calls'),
    ], [['call_b', 'b', '{"b":1}'], ['call_a', 'a_x', '{}']]],
    ['a custom call, its name in pieces and its id late', [
      tools({ index: 0, type: 'custom', custom: { name: 'ex', input: '' } }),
      tools({ index: 0, custom: { name: 'ec' } }),
      tools({ index: 0, id: 'call_c', custom: { input: 'ls -la' } }),
      chunk({}, 'tool_calls'),
    ], [['call_c', 'exec', 'ls -la']]],
  ])('%s', async (_, chunks, expected) => {
    const { first, chat, second } = await roundTrip(chunks);
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
    // The chat client gets the whole name and the real id on each call's first chunk.
    expect(firstFragments(chat)).toEqual(expected.map(([id, name]) => [id, name]));
  });

  /** A call's fragments: name pieces (some with `arguments: ""`), then argument pieces; its id on any of them, or on none. */
  const call = fc.record({
    // A piece that starts with the name so far reads as the whole name resent (as some providers do): not a piece.
    name: fc.array(fc.stringMatching(/^[a-z_]{1,4}$/), { minLength: 1, maxLength: 3 }).filter((ps) => ps.every((p, i) => i === 0 || !p.startsWith(ps.slice(0, i).join('')))),
    args: fc.array(fc.stringMatching(/^[a-z0-9{}":,]{1,5}$/), { minLength: 0, maxLength: 3 }),
    emptyArgsField: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    idAt: fc.option(fc.nat(6), { nil: undefined }),
    custom: fc.boolean(),
  });

  test('property: names, ids and arguments survive the round trip, and reach the chat client on each call\'s first chunk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 3 }), fc.boolean(), async (calls, indexed) => {
        const chunks: ChatCompletionChunk[] = [];
        const expected: unknown[][] = [];
        calls.forEach((c, k) => {
          const body = c.custom ? 'custom' : 'function';
          const argKey = c.custom ? 'input' : 'arguments';
          const frags: Fragment[] = [
            ...c.name.map((piece, i) => ({ [body]: { name: piece, ...(c.emptyArgsField[i] ? { [argKey]: '' } : {}) } })),
            ...c.args.map((piece) => ({ [body]: { [argKey]: piece } })),
          ];
          frags[0]!.type = c.custom ? 'custom' : 'function';
          const id = `call_${k}`;
          // Without an index, a call is told apart by its id: it comes on the first fragment.
          const at = indexed ? c.idAt : 0;
          if (at !== undefined) frags[Math.min(at, frags.length - 1)]!.id = id;
          for (const f of frags) chunks.push(tools(indexed ? { index: k, ...f } : f));
          expected.push([at === undefined ? `call_chatcmpl_1_${k}` : id, c.name.join(''), c.args.join('')]);
        });
        chunks.push(chunk({}, 'tool_calls'));
        const { first, chat, second } = await roundTrip(chunks);
        expect(first).toEqual(expected);
        expect(second).toEqual(first);
        expect(firstFragments(chat)).toEqual(first.map(([id, name]) => [id, name]));
      }),
      { numRuns: 200 },
    );
  });
});
