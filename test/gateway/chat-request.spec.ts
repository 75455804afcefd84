// chatRequestToResponses: every mapping (a chat request → the exact Responses request), and the mapped shapes
// checked against the official SDK's Responses wire types. Refusals: chat-request-refusals.spec.ts; generated
// requests: chat-request.property.spec.ts.
import type { ResponseCreateParamsBase, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import type { ResponsesCreateRequest, ResponsesInputContent } from '../../gateway/chat-request';
import { ITEM_HI, USER_HI, call, mapped } from './chat-bodies';

describe('chatRequestToResponses: messages → input items', () => {
  const cases: Array<[string, unknown[], unknown[]]> = [
    ['a user string', [USER_HI], [ITEM_HI]],
    ['a system message stays a system message', [{ role: 'system', content: 'Be brief.' }, USER_HI], [{ type: 'message', role: 'system', content: 'Be brief.' }, ITEM_HI]],
    [
      'developer text parts → input_text parts',
      [{ role: 'developer', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }] }, USER_HI],
      [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'A' }, { type: 'input_text', text: 'B' }] }, ITEM_HI],
    ],
    [
      'several system / developer messages keep their places, mid-conversation too',
      [{ role: 'system', content: 's1' }, USER_HI, { role: 'assistant', content: 'yo' }, { role: 'developer', content: 'd2' }, { role: 'user', content: 'again' }],
      [
        { type: 'message', role: 'system', content: 's1' }, ITEM_HI, { type: 'message', role: 'assistant', content: 'yo' },
        { type: 'message', role: 'developer', content: 'd2' }, { type: 'message', role: 'user', content: 'again' },
      ],
    ],
    [
      'user text and image_url parts (detail defaults to auto, a bare URL string is accepted)',
      [{ role: 'user', content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
        { type: 'image_url', image_url: 'https://example.com/b.png' },
      ] }],
      [{ type: 'message', role: 'user', content: [
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
        { type: 'input_image', image_url: 'https://example.com/b.png', detail: 'auto' },
      ] }],
    ],
    [
      'file → input_file (file_data + filename, or file_id)',
      [{ role: 'user', content: [
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
        { type: 'file', file: { file_id: 'file-123' } },
      ] }],
      [{ type: 'message', role: 'user', content: [
        { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
        { type: 'input_file', file_id: 'file-123' },
      ] }],
    ],
    [
      'prompt_cache_breakpoint on input parts is kept',
      [{ role: 'user', content: [{ type: 'text', text: 'long', prompt_cache_breakpoint: { mode: 'explicit', ttl: '30m' } }] }],
      [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'long', prompt_cache_breakpoint: { mode: 'explicit', ttl: '30m' } }] }],
    ],
    ['an assistant string', [USER_HI, { role: 'assistant', content: 'Hello!' }], [ITEM_HI, { type: 'message', role: 'assistant', content: 'Hello!' }]],
    [
      'assistant text parts → one string (the form every Responses provider takes)',
      [USER_HI, { role: 'assistant', content: [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }] }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: 'Hello' }],
    ],
    ['an empty assistant string without tool calls stays', [USER_HI, { role: 'assistant', content: '' }], [ITEM_HI, { type: 'message', role: 'assistant', content: '' }]],
    [
      'assistant text and refusal parts → output_text and refusal',
      [USER_HI, { role: 'assistant', content: [{ type: 'text', text: 'Partly: ' }, { type: 'refusal', refusal: 'no.' }] }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Partly: ', annotations: [] }, { type: 'refusal', refusal: 'no.' }] }],
    ],
    [
      'an assistant refusal field (content null) → a refusal part',
      [USER_HI, { role: 'assistant', content: null, refusal: "I can't." }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: "I can't." }] }],
    ],
    [
      'an assistant string with a refusal field → output_text then refusal',
      [USER_HI, { role: 'assistant', content: 'Well', refusal: 'no' }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Well', annotations: [] }, { type: 'refusal', refusal: 'no' }] }],
    ],
    [
      'parallel tool calls (content null) → function_call items, then tool messages → function_call_output items',
      [
        USER_HI,
        { role: 'assistant', content: null, tool_calls: [call('call_a', 'get_weather', '{"city":"Paris"}'), call('call_b', 'get_time', '{"tz":"CET"}')] },
        { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
        { role: 'tool', tool_call_id: 'call_a', content: [{ type: 'text', text: 'sunny' }] },
      ],
      [
        ITEM_HI,
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{"tz":"CET"}' },
        { type: 'function_call_output', call_id: 'call_b', output: '12:00' },
        { type: 'function_call_output', call_id: 'call_a', output: [{ type: 'input_text', text: 'sunny' }] },
      ],
    ],
    [
      "empty content beside tool calls is no message; text beside them comes first",
      [USER_HI, { role: 'assistant', content: '', tool_calls: [call('c1', 'f', '{}')] }, { role: 'tool', tool_call_id: 'c1', content: 'r' },
        { role: 'assistant', content: 'Checking.', tool_calls: [call('c2', 'f', '{}')] }, { role: 'tool', tool_call_id: 'c2', content: 'r2' }],
      [ITEM_HI, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'r' },
        { type: 'message', role: 'assistant', content: 'Checking.' }, { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c2', output: 'r2' }],
    ],
    [
      'a tool call without type is a function call (as older clients send it)',
      [USER_HI, { role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '' } }] }, { role: 'tool', tool_call_id: 'c1', content: '' }],
      [ITEM_HI, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '' }, { type: 'function_call_output', call_id: 'c1', output: '' }],
    ],
    [
      'custom tool calls and their results → custom_tool_call / custom_tool_call_output',
      [USER_HI, { role: 'assistant', content: null, tool_calls: [{ id: 'ct_1', type: 'custom', custom: { name: 'sql', input: 'SELECT 1' } }] },
        { role: 'tool', tool_call_id: 'ct_1', content: '1' }],
      [ITEM_HI, { type: 'custom_tool_call', call_id: 'ct_1', name: 'sql', input: 'SELECT 1' }, { type: 'custom_tool_call_output', call_id: 'ct_1', output: '1' }],
    ],
    [
      "a participant's name and an echoed reasoning_content are ignored",
      [{ role: 'user', name: 'ann', content: 'hi' }, { role: 'assistant', name: 'bot', content: 'ok', reasoning_content: 'thought', tool_calls: [call('c1', 'f', '')] },
        { role: 'tool', name: 'f', tool_call_id: 'c1', content: 'r' }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: 'ok' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '' },
        { type: 'function_call_output', call_id: 'c1', output: 'r' }],
    ],
    [
      "the SDK's final message pushed back as it is (parsed, annotations, parsed_arguments are ignored)",
      [USER_HI, { role: 'assistant', content: 'See [1].', refusal: null, parsed: null, annotations: [{ type: 'url_citation', url_citation: { url: 'https://a' } }],
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}', parsed_arguments: { a: 1 } } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' }],
      [ITEM_HI, { type: 'message', role: 'assistant', content: 'See [1].' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'c1', output: 'r' }],
    ],
  ];
  it.each(cases)('%s', (_name, messages, input) => {
    expect(mapped({ model: 'gpt-test', messages }).request).toEqual({ model: 'gpt-test', input, store: false });
  });
});

describe('chatRequestToResponses: parameters', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['stream', { stream: true }, { stream: true }],
    ['stream_options.include_obfuscation → stream_options', { stream: true, stream_options: { include_obfuscation: false } }, { stream: true, stream_options: { include_obfuscation: false } }],
    ['max_tokens → max_output_tokens', { max_tokens: 64 }, { max_output_tokens: 64 }],
    ['max_completion_tokens → max_output_tokens', { max_completion_tokens: 32 }, { max_output_tokens: 32 }],
    ['max_tokens and max_completion_tokens that agree', { max_tokens: 8, max_completion_tokens: 8 }, { max_output_tokens: 8 }],
    ['temperature and top_p', { temperature: 0.2, top_p: 0.9 }, { temperature: 0.2, top_p: 0.9 }],
    ['user, metadata', { user: 'u-1', metadata: { k: 'v' } }, { user: 'u-1', metadata: { k: 'v' } }],
    ['store: true', { store: true }, { store: true }],
    ["no store → store: false (Chat's default, not Responses')", { store: null }, { store: false }],
    ['parallel_tool_calls', { parallel_tool_calls: false }, { parallel_tool_calls: false }],
    ['reasoning_effort → reasoning.effort', { reasoning_effort: 'low' }, { reasoning: { effort: 'low' } }],
    ['verbosity → text.verbosity', { verbosity: 'high' }, { text: { verbosity: 'high' } }],
    ['response_format text → text.format', { response_format: { type: 'text' } }, { text: { format: { type: 'text' } } }],
    ['response_format json_object → text.format', { response_format: { type: 'json_object' } }, { text: { format: { type: 'json_object' } } }],
    [
      'response_format json_schema → text.format (flattened), with verbosity',
      { verbosity: 'low', response_format: { type: 'json_schema', json_schema: { name: 'out', description: 'd', schema: { type: 'object' }, strict: true } } },
      { text: { format: { type: 'json_schema', name: 'out', description: 'd', schema: { type: 'object' }, strict: true }, verbosity: 'low' } },
    ],
    [
      'shared parameters pass as they are',
      { service_tier: 'flex', safety_identifier: 'h1', prompt_cache_key: 'pk', prompt_cache_retention: '24h', prompt_cache_options: { mode: 'explicit' },
        moderation: { model: 'omni-moderation-latest' } },
      { service_tier: 'flex', safety_identifier: 'h1', prompt_cache_key: 'pk', prompt_cache_retention: '24h', prompt_cache_options: { mode: 'explicit' },
        moderation: { model: 'omni-moderation-latest' } },
    ],
    [
      'function tools → Responses function tools (flattened)',
      { tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true } }] },
      { tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true }] },
    ],
    [
      "a function without parameters or strict: an empty parameter list, strict false (Chat's default, not Responses')",
      { tools: [{ type: 'function', function: { name: 'noop' } }] },
      { tools: [{ type: 'function', name: 'noop', parameters: { type: 'object', properties: {} }, strict: false }] },
    ],
    [
      'custom tools, with text and grammar formats',
      { tools: [
        { type: 'custom', custom: { name: 'free' } },
        { type: 'custom', custom: { name: 't', description: 'x', format: { type: 'text' } } },
        { type: 'custom', custom: { name: 'g', format: { type: 'grammar', grammar: { definition: 'start: "a"', syntax: 'lark' } } } },
      ] },
      { tools: [
        { type: 'custom', name: 'free' },
        { type: 'custom', name: 't', description: 'x', format: { type: 'text' } },
        { type: 'custom', name: 'g', format: { type: 'grammar', definition: 'start: "a"', syntax: 'lark' } },
      ] },
    ],
    ["tool_choice 'none'", { tool_choice: 'none' }, { tool_choice: 'none' }],
    ["tool_choice 'auto'", { tool_choice: 'auto' }, { tool_choice: 'auto' }],
    ["tool_choice 'required'", { tool_choice: 'required' }, { tool_choice: 'required' }],
    ['tool_choice function', { tool_choice: { type: 'function', function: { name: 'f' } } }, { tool_choice: { type: 'function', name: 'f' } }],
    ['tool_choice custom', { tool_choice: { type: 'custom', custom: { name: 'g' } } }, { tool_choice: { type: 'custom', name: 'g' } }],
    [
      'tool_choice allowed_tools',
      { tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'f' } }, { type: 'custom', custom: { name: 'g' } }] } } },
      { tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'f' }, { type: 'custom', name: 'g' }] } },
    ],
    [
      'neutral values of chat-only parameters are accepted and dropped',
      { n: 1, logit_bias: {}, logprobs: false, top_logprobs: 0, frequency_penalty: 0, presence_penalty: 0, seed: null, stop: [], modalities: ['text'],
        audio: null, prediction: null, functions: null, function_call: null, web_search_options: null },
      {},
    ],
    ['nulls read as not set', { temperature: null, top_p: null, max_tokens: null, stop: null, tools: null, tool_choice: null, response_format: null, metadata: null }, {}],
  ];
  it.each(cases)('%s', (_name, params, want) => {
    expect(mapped({ model: 'gpt-test', messages: [USER_HI], ...params }).request).toEqual({ model: 'gpt-test', input: [ITEM_HI], store: false, ...want });
  });

  it('stream_options.include_usage is for toChatChunks, not the upstream request', () => {
    const on = mapped({ model: 'm', messages: [USER_HI], stream: true, stream_options: { include_usage: true } });
    expect(on.includeUsage).toBe(true);
    expect(on.request).not.toHaveProperty('stream_options');
    expect(mapped({ model: 'm', messages: [USER_HI], stream: true }).includeUsage).toBe(false);
  });

  it('a metadata key named __proto__ stays a key', () => {
    const body = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"__proto__":"x","a":"b"}}') as Record<string, unknown>;
    expect(JSON.stringify(mapped(body).request.metadata)).toBe('{"__proto__":"x","a":"b"}');
  });
});

// Compile-time: the shapes the mapping builds are the official SDK's Responses wire types, and every top-level
// field it sets is a Responses field. (Not checked: the output_text / refusal parts of an assistant message that
// holds a refusal, which the SDK's input union lists only with an item id.) A mismatch fails `tsc` and ts-jest.
type Writable<T> = T extends ReadonlyArray<infer U> ? Array<Writable<U>> : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
type Keys<T> = T extends unknown ? keyof T : never;
/** A is assignable to B and names no field B lacks (structural assignability alone allows extra fields). */
type Is<A, B> = [Writable<A>] extends [B] ? ([Keys<A>] extends [Keys<B>] ? true : false) : false;
type Mapped = ResponsesCreateRequest;
type Item = Mapped['input'][number];
type Content = ResponsesInputContent;
type R = ResponseCreateParamsBase;
type SDKItem = ResponseInputItem;
const wire: Array<true> = [
  true satisfies Is<Extract<Item, { type: 'function_call' }>, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'custom_tool_call' }>, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'function_call_output' | 'custom_tool_call_output' }> & { type: 'function_call_output' }, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'function_call_output' | 'custom_tool_call_output' }> & { type: 'custom_tool_call_output' }, SDKItem>,
  true satisfies Is<{ type: 'message'; role: 'system' | 'developer' | 'user'; content: string | Content[] }, SDKItem>,
  true satisfies Is<{ type: 'message'; role: 'assistant'; content: string }, SDKItem>,
  true satisfies Is<NonNullable<Mapped['tools']>[number], Tool>,
  true satisfies Is<NonNullable<Mapped['tool_choice']>, NonNullable<R['tool_choice']>>,
  true satisfies Is<NonNullable<Mapped['text']>, NonNullable<R['text']>>,
  true satisfies ([keyof Mapped] extends [keyof R] ? true : false),
];

it('the mapped shapes are the SDK wire types (checked by tsc)', () => expect(wire.every((w) => w)).toBe(true));
