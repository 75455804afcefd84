// Custom tool calls through the chat bridge: toChatChunks streams them as a Chat Completions provider does
// (tool calls of type "custom"), so the official SDK, over a loopback HTTP server, ends with the same
// message as from a hand-written provider stream of the same calls; and they round-trip through fromChatChunks.
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { from, last, lastValueFrom, toArray, type Observable } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, collectToolCalls, fromChatChunks, toChatChunks, toChatSSE } from '../../operators/index';
import { CHAT_USAGE, CREATED_AT, MODEL, RESPONSE_ID, USAGE, call, customCall, ev } from './build';
import { startChatServer } from './server';

/** A provider's chunk, with the metadata toChatChunks copies from the response. */
const pc = (delta: Record<string, unknown>, finish: string | null = null) =>
  ({ id: RESPONSE_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as ChatCompletionChunk;
const usage = { id: RESPONSE_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, choices: [], usage: CHAT_USAGE } as unknown as ChatCompletionChunk;
const first = (index: number, id: string, name: string, role = false) =>
  pc({ ...(role ? { role: 'assistant', content: null, refusal: null } : {}), tool_calls: [{ index, id, type: 'custom', custom: { name, input: '' } }] });
const piece = (index: number, input: string) => pc({ tool_calls: [{ index, custom: { input } }] });

const sql = customCall('call_C', 'run_sql', 'SELECT 1;');
const time = call('call_F', 'get_time', '{"tz":"UTC"}');

/** Each case: the Responses events toChatChunks reads, and what a chat provider streams for the same answer. */
const CASES: Record<string, { events: ResponseStreamEvent[]; provider: ChatCompletionChunk[] }> = {
  'streamed in pieces': {
    events: [
      ev.created(), ev.customAdded(0, 'call_C', 'run_sql'), ev.input(0, 'SELECT ', 'call_C'), ev.input(0, '1;', 'call_C'),
      ev.inputDone(0, 'SELECT 1;', 'call_C'), ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;'), ev.completed({ output: [sql], usage: USAGE }),
    ],
    provider: [first(0, 'call_C', 'run_sql', true), piece(0, 'SELECT '), piece(0, '1;'), pc({}, 'tool_calls'), usage],
  },
  'input only in .done': {
    events: [ev.created(), ev.customAdded(0, 'call_C', 'run_sql'), ev.inputDone(0, 'SELECT 1;', 'call_C'), ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;'), ev.completed({ output: [sql], usage: USAGE })],
    provider: [first(0, 'call_C', 'run_sql', true), piece(0, 'SELECT 1;'), pc({}, 'tool_calls'), usage],
  },
  'only in the terminal output': {
    events: [ev.created(), ev.completed({ output: [sql], usage: USAGE })],
    provider: [first(0, 'call_C', 'run_sql', true), piece(0, 'SELECT 1;'), pc({}, 'tool_calls'), usage],
  },
  'a function call and a custom call': {
    events: [
      ev.created(), ev.callAdded(0, 'call_F', 'get_time'), ev.args(0, '{"tz":', 'call_F'), ev.customAdded(1, 'call_C', 'run_sql'),
      ev.input(1, 'SELECT 1;', 'call_C'), ev.args(0, '"UTC"}', 'call_F'), ev.callDone(0, 'call_F', 'get_time', '{"tz":"UTC"}'),
      ev.customDone(1, 'call_C', 'run_sql', 'SELECT 1;'), ev.completed({ output: [time, sql], usage: USAGE }),
    ],
    provider: [
      pc({ role: 'assistant', content: null, refusal: null, tool_calls: [{ index: 0, id: 'call_F', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
      pc({ tool_calls: [{ index: 0, function: { arguments: '{"tz":' } }] }),
      first(1, 'call_C', 'run_sql'), piece(1, 'SELECT 1;'),
      pc({ tool_calls: [{ index: 0, function: { arguments: '"UTC"}' } }] }),
      pc({}, 'tool_calls'), usage,
    ],
  },
  'two custom calls sharing a call_id': {
    events: [
      ev.created(),
      { ...ev.customAdded(0, 'call_same', 'a'), item: { ...customCall('call_same', 'a', ''), id: 'ctc_a', status: 'in_progress' } } as ResponseStreamEvent,
      { ...ev.input(0, 'one'), item_id: 'ctc_a' } as ResponseStreamEvent,
      { ...ev.customAdded(1, 'call_same', 'b'), item: { ...customCall('call_same', 'b', ''), id: 'ctc_b', status: 'in_progress' } } as ResponseStreamEvent,
      { ...ev.input(1, 'two'), item_id: 'ctc_b' } as ResponseStreamEvent,
      { ...ev.input(0, '!'), item_id: 'ctc_a' } as ResponseStreamEvent,
      ev.completed({ output: [{ ...customCall('call_same', 'a', 'one!'), id: 'ctc_a' }, { ...customCall('call_same', 'b', 'two'), id: 'ctc_b' }], usage: USAGE }),
    ],
    provider: [first(0, 'call_same', 'a', true), piece(0, 'one'), first(1, 'call_same', 'b'), piece(1, 'two'), piece(0, '!'), pc({}, 'tool_calls'), usage],
  },
};

let server: Awaited<ReturnType<typeof startChatServer>>;
let baseURL: string;

beforeAll(async () => {
  // model `bridge:<case>` serves the case's Responses events through toChatChunks, `provider:<case>` its chat
  // chunks as written, `again:<case>` those chunks through fromChatChunks and back through toChatChunks.
  server = await startChatServer(({ url, params }) => {
    const [side, name] = params.model.split(/:(.*)/s) as [string, string];
    const c = CASES[name];
    if (url !== '/v1/chat/completions' || !params.stream || c === undefined || !['bridge', 'provider', 'again'].includes(side)) return undefined;
    const includeUsage = params.stream_options?.include_usage === true;
    const chunks$ = side === 'bridge' ? from(c.events).pipe(toChatChunks({ includeUsage }))
      : side === 'again' ? from(c.provider).pipe(fromChatChunks(), toChatChunks({ includeUsage }))
      : from(c.provider);
    return chunks$.pipe(toChatSSE({ onError: 'event' }));
  });
  baseURL = server.baseURL;
});
afterAll(() => server.close());

async function sdkFinal(model: string): Promise<ChatCompletion> {
  const client = new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0 });
  const stream = client.chat.completions.stream({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [
      { type: 'custom', custom: { name: 'run_sql' } },
      { type: 'custom', custom: { name: 'a' } },
      { type: 'custom', custom: { name: 'b' } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
    ],
    stream_options: { include_usage: true },
  });
  return stream.finalChatCompletion();
}

const final = <T>(o: Observable<T>) => lastValueFrom(o.pipe(last()));

describe('toChatChunks: custom tool calls, read by the official SDK', () => {
  it.each(Object.keys(CASES))('%s: the final message equals the one from a chat provider streaming the same calls', async (name) => {
    const [bridge, provider] = await Promise.all([sdkFinal(`bridge:${name}`), sdkFinal(`provider:${name}`)]);
    expect(bridge).toEqual(provider);
    const calls = bridge.choices[0]!.message.tool_calls ?? [];
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((t) => t.type === 'custom').length).toBeGreaterThan(0);
    expect(bridge.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('the SDK message holds the custom call as { id, type: "custom", custom: { name, input } }', async () => {
    const final = await sdkFinal('bridge:streamed in pieces');
    expect(final.choices[0]!.message).toMatchObject({ role: 'assistant', content: null, refusal: null });
    expect(final.choices[0]!.message.tool_calls).toEqual([{ id: 'call_C', type: 'custom', custom: { name: 'run_sql', input: 'SELECT 1;' } }]);
    expect(final.usage).toEqual(CHAT_USAGE);
  });
});

describe('toChatChunks → fromChatChunks: custom tool calls round-trip', () => {
  type Call = { type: string; name: string; callId: string; input?: string; arguments?: string };
  const callsOf = (output: readonly unknown[]): Call[] => output.map((i) => {
    const it = i as Record<string, string>;
    const base = { type: it['type']!, name: it['name']!, callId: it['call_id']! };
    return it['type'] === 'custom_tool_call' ? { ...base, input: it['input']! } : { ...base, arguments: it['arguments']! };
  });

  it.each(Object.keys(CASES))('%s: the same custom_tool_call items (name, call id, input), beside function calls', async (name) => {
    const { events } = CASES[name]!;
    const want = callsOf((await final(from(events).pipe(accumulateResponse()))).output ?? []);
    expect(want.some((c) => c.type === 'custom_tool_call')).toBe(true);
    const back = await final(from(events).pipe(toChatChunks(), fromChatChunks(), accumulateResponse()));
    expect(callsOf(back.output ?? [])).toEqual(want);
    const collected = await lastValueFrom(from(events).pipe(toChatChunks(), fromChatChunks(), collectToolCalls(), toArray()));
    expect(collected.map((c) => ({ type: c.type, name: (c as { name: string }).name, callId: (c as { callId: string }).callId, ...(c.type === 'custom_tool_call' ? { input: c.input } : { arguments: (c as { arguments: string }).arguments }) }))).toEqual(want);
  });

  it.each(Object.keys(CASES))('%s: a chat provider\'s stream through fromChatChunks → toChatChunks gives the SDK the same message', async (name) => {
    const [again, provider] = await Promise.all([sdkFinal(`again:${name}`), sdkFinal(`provider:${name}`)]);
    expect(again.choices).toEqual(provider.choices);
    expect(again.usage).toEqual(provider.usage);
  });
});
