// chatRequestToResponses: every mapping (a chat request → the exact Responses request) and every refusal
// (a chat request → a 400 naming the param), then properties over generated requests.
import fc from 'fast-check';
import { chatRequestToResponses, type ResponsesCreateRequest } from '../../lib/gateway/chat-request';

const USER_HI = { role: 'user', content: 'hi' };
const ITEM_HI = { type: 'message', role: 'user', content: 'hi' };
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
const withCall = (id = 'call_1') => [USER_HI, { role: 'assistant', content: null, tool_calls: [call(id, 'f', '{}')] }];

function mapped(body: Record<string, unknown>): { request: ResponsesCreateRequest; includeUsage: boolean } {
  const r = chatRequestToResponses(body);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.error.body)}`);
  return r;
}

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

const base = { model: 'gpt-test', messages: [USER_HI] };
/** [case, request body, param, code] */
const refusals: Array<[string, unknown, string, string]> = ([
  ['no model', { messages: [USER_HI] }, 'model', 'missing_required_parameter'],
  ['a model that is a number', { model: 4, messages: [USER_HI] }, 'model', 'invalid_type'],
  ['no messages', { model: 'm' }, 'messages', 'missing_required_parameter'],
  ['messages that are a string', { model: 'm', messages: 'hi' }, 'messages', 'invalid_type'],
  ['empty messages', { model: 'm', messages: [] }, 'messages', 'invalid_value'],
  ['an unknown parameter', { ...base, frobnicate: true }, 'frobnicate', 'unknown_parameter'],
  ['a message that is a string', { model: 'm', messages: ['hi'] }, 'messages[0]', 'invalid_type'],
  ['a message without role', { model: 'm', messages: [{ content: 'hi' }] }, 'messages[0].role', 'missing_required_parameter'],
  ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', 'invalid_value'],
  ['a legacy function message', { model: 'm', messages: [USER_HI, { role: 'function', name: 'f', content: 'x' }] }, 'messages[1].role', 'unsupported_value'],
  ['an unknown message field', { model: 'm', messages: [{ role: 'user', content: 'x', mood: 'happy' }] }, 'messages[0].mood', 'unknown_parameter'],
  ['user content that is a number', { model: 'm', messages: [{ role: 'user', content: 3 }] }, 'messages[0].content', 'invalid_type'],
  ['user content missing', { model: 'm', messages: [{ role: 'user' }] }, 'messages[0].content', 'missing_required_parameter'],
  [
    'an unmappable user part type',
    { model: 'm', messages: [USER_HI, USER_HI, { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'video_url', video_url: 'v' }] }] },
    'messages[2].content[1].type', 'invalid_value',
  ],
  ['a part without type', { model: 'm', messages: [{ role: 'user', content: [{ text: 'x' }] }] }, 'messages[0].content[0].type', 'missing_required_parameter'],
  ['an image in a system message', { model: 'm', messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'u' } }] }] }, 'messages[0].content[0].type', 'invalid_value'],
  ['an image in a tool message', { model: 'm', messages: [...withCall('c'), { role: 'tool', tool_call_id: 'c', content: [{ type: 'image_url', image_url: { url: 'u' } }] }] }, 'messages[2].content[0].type', 'invalid_value'],
  ['an image in an assistant message', { model: 'm', messages: [USER_HI, { role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'u' } }] }] }, 'messages[1].content[0].type', 'invalid_value'],
  ['a text part without text', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text', 'missing_required_parameter'],
  ['an image_url without url', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages[0].content[0].image_url.url', 'missing_required_parameter'],
  ['an unknown image detail', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u', detail: 'ultra' } }] }] }, 'messages[0].content[0].image_url.detail', 'invalid_value'],
  ['an audio part (the Responses API takes no audio input)', { model: 'm', messages: [USER_HI, { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }] }, 'messages[1].content[0].type', 'unsupported_value'],
  ['a cache breakpoint of an unknown mode', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', prompt_cache_breakpoint: { mode: 'auto' } }] }] }, 'messages[0].content[0].prompt_cache_breakpoint.mode', 'invalid_value'],
  ['an unknown verbosity', { ...base, verbosity: 'chatty' }, 'verbosity', 'invalid_value'],
  ['a file with neither data nor id', { model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }] }, 'messages[0].content[0].file.file_data', 'missing_required_parameter'],
  ['an assistant audio reference', { model: 'm', messages: [USER_HI, { role: 'assistant', content: null, audio: { id: 'audio_1' } }] }, 'messages[1].audio', 'unsupported_parameter'],
  ['an assistant legacy function_call', { model: 'm', messages: [USER_HI, { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }, 'messages[1].function_call', 'unsupported_parameter'],
  ['an assistant with neither content nor tool calls', { model: 'm', messages: [USER_HI, { role: 'assistant', content: null }] }, 'messages[1].content', 'missing_required_parameter'],
  ['a tool call of an unknown type', { model: 'm', messages: [USER_HI, { role: 'assistant', tool_calls: [{ id: 'c', type: 'mcp' }] }] }, 'messages[1].tool_calls[0].type', 'invalid_value'],
  ['a tool call without id', { model: 'm', messages: [USER_HI, { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] }, 'messages[1].tool_calls[0].id', 'missing_required_parameter'],
  ['tool call arguments that are an object', { model: 'm', messages: [USER_HI, { role: 'assistant', tool_calls: [call('c', 'f', {} as unknown as string)] }] }, 'messages[1].tool_calls[0].function.arguments', 'invalid_type'],
  ['tool_calls that are an object', { model: 'm', messages: [USER_HI, { role: 'assistant', tool_calls: {} }] }, 'messages[1].tool_calls', 'invalid_type'],
  ['a tool message answering no earlier call', { model: 'm', messages: [...withCall('c'), { role: 'tool', tool_call_id: 'other', content: 'x' }] }, 'messages[2].tool_call_id', 'unsupported_value'],
  ['a tool message before its call', { model: 'm', messages: [USER_HI, { role: 'tool', tool_call_id: 'c', content: 'x' }, withCall('c')[1]] }, 'messages[1].tool_call_id', 'unsupported_value'],
  ['a tool message without tool_call_id', { model: 'm', messages: [...withCall('c'), { role: 'tool', content: 'x' }] }, 'messages[2].tool_call_id', 'missing_required_parameter'],
  ['n > 1', { ...base, n: 2 }, 'n', 'unsupported_value'],
  ['logit_bias', { ...base, logit_bias: { '50256': -100 } }, 'logit_bias', 'unsupported_parameter'],
  ['logprobs', { ...base, logprobs: true }, 'logprobs', 'unsupported_value'],
  ['top_logprobs', { ...base, top_logprobs: 3 }, 'top_logprobs', 'unsupported_value'],
  ['frequency_penalty', { ...base, frequency_penalty: 0.5 }, 'frequency_penalty', 'unsupported_value'],
  ['presence_penalty', { ...base, presence_penalty: -1 }, 'presence_penalty', 'unsupported_value'],
  ['seed', { ...base, seed: 42 }, 'seed', 'unsupported_parameter'],
  ['stop as a string', { ...base, stop: 'END' }, 'stop', 'unsupported_parameter'],
  ['stop as a list', { ...base, stop: ['END'] }, 'stop', 'unsupported_parameter'],
  ['stop as a number', { ...base, stop: 3 }, 'stop', 'invalid_type'],
  ['audio output modality', { ...base, modalities: ['text', 'audio'] }, 'modalities[1]', 'unsupported_value'],
  ['audio output', { ...base, audio: { voice: 'alloy', format: 'mp3' } }, 'audio', 'unsupported_parameter'],
  ['a prediction', { ...base, prediction: { type: 'content', content: 'x' } }, 'prediction', 'unsupported_parameter'],
  ['legacy functions', { ...base, functions: [{ name: 'f' }] }, 'functions', 'unsupported_parameter'],
  ['legacy function_call', { ...base, function_call: 'auto' }, 'function_call', 'unsupported_parameter'],
  ['web_search_options', { ...base, web_search_options: {} }, 'web_search_options', 'unsupported_parameter'],
  ['max_tokens and max_completion_tokens that disagree', { ...base, max_tokens: 5, max_completion_tokens: 6 }, 'max_tokens', 'invalid_value'],
  ['a fractional max_tokens', { ...base, max_tokens: 1.5 }, 'max_tokens', 'invalid_type'],
  ['a temperature string', { ...base, temperature: 'hot' }, 'temperature', 'invalid_type'],
  ['a metadata value that is a number', { ...base, metadata: { a: 1 } }, 'metadata.a', 'invalid_type'],
  ['an unknown stream_options field', { ...base, stream_options: { include_usage: true, chunked: 1 } }, 'stream_options.chunked', 'unknown_parameter'],
  ['include_usage that is a string', { ...base, stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage', 'invalid_type'],
  ['a hosted tool type', { ...base, tools: [{ type: 'web_search' }] }, 'tools[0].type', 'invalid_value'],
  ['a function tool without function', { ...base, tools: [{ type: 'function' }] }, 'tools[0].function', 'missing_required_parameter'],
  ['a function tool without name', { ...base, tools: [{ type: 'function', function: { name: 'a' } }, { type: 'function', function: {} }] }, 'tools[1].function.name', 'missing_required_parameter'],
  ['parameters that are a string', { ...base, tools: [{ type: 'function', function: { name: 'a', parameters: '{}' } }] }, 'tools[0].function.parameters', 'invalid_type'],
  ['a grammar without syntax', { ...base, tools: [{ type: 'custom', custom: { name: 'g', format: { type: 'grammar', grammar: { definition: 'x' } } } }] }, 'tools[0].custom.format.grammar.syntax', 'missing_required_parameter'],
  ['an unknown tool_choice string', { ...base, tool_choice: 'sometimes' }, 'tool_choice', 'invalid_value'],
  ['a function tool_choice without function', { ...base, tool_choice: { type: 'function' } }, 'tool_choice.function', 'missing_required_parameter'],
  ['a tool_choice of a hosted tool', { ...base, tool_choice: { type: 'file_search' } }, 'tool_choice.type', 'invalid_value'],
  ['allowed_tools without mode', { ...base, tool_choice: { type: 'allowed_tools', allowed_tools: { tools: [] } } }, 'tool_choice.allowed_tools.mode', 'missing_required_parameter'],
  ['an unknown response_format type', { ...base, response_format: { type: 'xml' } }, 'response_format.type', 'invalid_value'],
  ['a json_schema without schema', { ...base, response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'response_format.json_schema.schema', 'missing_required_parameter'],
  ['a json_schema without name', { ...base, response_format: { type: 'json_schema', json_schema: { schema: {} } } }, 'response_format.json_schema.name', 'missing_required_parameter'],
] as Array<[string, unknown, string, string]>).map(([name, body, param, code]) => [`${name} → ${param}`, body, param, code]);

describe('chatRequestToResponses: refusals are 400s naming the param', () => {
  it.each(refusals)('%s', (_name, body, param, code) => {
    const r = chatRequestToResponses(body);
    if (r.ok) throw new Error(`mapped: ${JSON.stringify(r.request)}`);
    expect(r.error.status).toBe(400);
    expect(r.error.body.error).toEqual({ message: expect.stringContaining(`'${param}'`), type: 'invalid_request_error', param, code });
  });

  it.each([[[]], [null], ['hi'], [3]])('a body that is not an object (%j) → param null', (body) => {
    const r = chatRequestToResponses(body);
    if (r.ok) throw new Error('mapped');
    expect(r.error.body.error).toEqual({ message: expect.stringContaining('JSON object'), type: 'invalid_request_error', param: null, code: 'invalid_type' });
  });

  it('messages never quote user content', () => {
    const secretish = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const r = chatRequestToResponses({ model: 'm', messages: [{ role: 'user', content: [{ type: secretish }] }] });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain('abcdefghijklmnop');
  });
});

// Generated conversations a real client could send: every one maps, and the items keep calls and results paired.
const text = fc.string({ maxLength: 12 });
const id = fc.stringMatching(/^call_[a-z0-9]{1,8}$/);
const textParts = fc.array(text.map((t) => ({ type: 'text', text: t })), { minLength: 1, maxLength: 3 });
const userPart = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({ url: fc.webUrl(), detail: fc.constantFrom('auto', 'low', 'high') }).map((image_url) => ({ type: 'image_url', image_url })),
  fc.constant({ type: 'file', file: { file_id: 'file-1' } }),
);
const plain = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'developer'), content: fc.oneof(text, textParts) }),
  fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.array(userPart, { minLength: 1, maxLength: 4 })) }),
  fc.record({ role: fc.constant('assistant'), content: fc.oneof(text, textParts) }),
);
// An assistant turn with 1–3 parallel calls followed by their results, in any order.
const toolTurn = fc
  .uniqueArray(id, { minLength: 1, maxLength: 3 })
  .chain((ids) => fc.tuple(fc.constant(ids), fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }), fc.constantFrom(null, '', 'Let me check.')))
  .map(([ids, order, content]) => [
    { role: 'assistant', content, tool_calls: ids.map((c) => call(c, 'f', '{"x":1}')) },
    ...order.map((c) => ({ role: 'tool', tool_call_id: c, content: `result ${c}` })),
  ]);
const conversation = fc
  .array(fc.oneof(plain.map((m) => [m]), toolTurn), { minLength: 1, maxLength: 6 })
  .map((turns) => [USER_HI, ...turns.flat()]);
const params = fc.record(
  {
    stream: fc.boolean(), temperature: fc.double({ min: 0, max: 2, noNaN: true }), top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    max_tokens: fc.nat(4096), tool_choice: fc.constantFrom('auto', 'none', 'required'), parallel_tool_calls: fc.boolean(),
    response_format: fc.constantFrom({ type: 'text' }, { type: 'json_object' }), reasoning_effort: fc.constantFrom('low', 'medium', 'high'),
    tools: fc.constant([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]),
    stream_options: fc.record({ include_usage: fc.boolean() }),
  },
  { requiredKeys: [] },
);

describe('chatRequestToResponses: properties', () => {
  const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261130;

  it('every generated valid request maps; calls precede their results, one output per tool message', () => {
    fc.assert(
      fc.property(conversation, params, (messages, p) => {
        const r = chatRequestToResponses({ model: 'gpt-test', messages, ...p });
        if (!r.ok) throw new Error(JSON.stringify(r.error.body));
        const input = r.request.input;
        const seen = new Set<string>();
        let outputs = 0;
        for (const item of input) {
          if (item.type === 'function_call') seen.add(item.call_id);
          if (item.type === 'function_call_output') {
            expect(seen.has(item.call_id)).toBe(true);
            outputs++;
          }
        }
        expect(outputs).toBe(messages.filter((m) => m.role === 'tool').length);
        const calls = messages.flatMap((m) => ('tool_calls' in m ? m.tool_calls : []));
        expect(input.filter((i) => i.type === 'function_call')).toHaveLength(calls.length);
        expect(JSON.parse(JSON.stringify(r.request))).toEqual(r.request);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('any JSON value as a body, as messages or as a message maps or is a 400, and never throws', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const body = fc.oneof(
      json,
      json.map((messages) => ({ model: 'm', messages })),
      fc.array(json, { maxLength: 4 }).map((messages) => ({ model: 'm', messages })),
      fc.dictionary(fc.constantFrom('model', 'messages', 'tools', 'tool_choice', 'response_format', 'stop', 'n', 'metadata'), json).map((o) => ({ ...base, ...o })),
    );
    fc.assert(
      fc.property(body, (b) => {
        const r = chatRequestToResponses(b);
        if (!r.ok) {
          expect(r.error.status).toBe(400);
          expect(r.error.body.error.type).toBe('invalid_request_error');
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// Compile-time: the shapes the mapping builds are the official SDK's Responses wire types, and every top-level
// field it sets is a Responses field. (Not checked: the output_text / refusal parts of an assistant message that
// holds a refusal, which the SDK's input union lists only with an item id.) A mismatch fails `tsc` and ts-jest.
type Writable<T> = T extends ReadonlyArray<infer U> ? Array<Writable<U>> : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
type Keys<T> = T extends unknown ? keyof T : never;
/** A is assignable to B and names no field B lacks (structural assignability alone allows extra fields). */
type Is<A, B> = [Writable<A>] extends [B] ? ([Keys<A>] extends [Keys<B>] ? true : false) : false;
type Mapped = import('../../lib/gateway/chat-request').ResponsesCreateRequest;
type Item = Mapped['input'][number];
type Content = import('../../lib/gateway/chat-request').ResponsesInputContent;
type R = typeof import('openai/resources/responses/responses') extends unknown ? import('openai/resources/responses/responses').ResponseCreateParamsBase : never;
type SDKItem = import('openai/resources/responses/responses').ResponseInputItem;
const wire: Array<true> = [
  true satisfies Is<Extract<Item, { type: 'function_call' }>, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'custom_tool_call' }>, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'function_call_output' | 'custom_tool_call_output' }> & { type: 'function_call_output' }, SDKItem>,
  true satisfies Is<Extract<Item, { type: 'function_call_output' | 'custom_tool_call_output' }> & { type: 'custom_tool_call_output' }, SDKItem>,
  true satisfies Is<{ type: 'message'; role: 'system' | 'developer' | 'user'; content: string | Content[] }, SDKItem>,
  true satisfies Is<{ type: 'message'; role: 'assistant'; content: string }, SDKItem>,
  true satisfies Is<NonNullable<Mapped['tools']>[number], import('openai/resources/responses/responses').Tool>,
  true satisfies Is<NonNullable<Mapped['tool_choice']>, NonNullable<R['tool_choice']>>,
  true satisfies Is<NonNullable<Mapped['text']>, NonNullable<R['text']>>,
  true satisfies ([keyof Mapped] extends [keyof R] ? true : false),
];

it('the mapped shapes are the SDK wire types (checked by tsc)', () => expect(wire.every((w) => w)).toBe(true));
