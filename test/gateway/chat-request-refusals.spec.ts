// chatRequestToResponses: every refusal is a 400 with an OpenAI-style error naming the param (a JSON path) and a code.
import { chatRequestToResponses } from '../../gateway/chat-request';
import { BASE as base, USER_HI, call, withCall } from './chat-bodies';

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

