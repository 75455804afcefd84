import { DecodeError, type ResponseStreamEventType } from '../../index';
import { ChatCompletionChunk, ResponsesClientEvent, responseEventCodecs, serverEventTable } from '../../lib/codecs';
import { decodeTyped } from '../../lib/events/decode';
import { responseEventTable } from '../../lib/events/responses';
import { decodeChunk } from '../../lib/decode/chat-sse';

type Json = Record<string, unknown>;
/** A realistic payload and one required field (dotted path) set to a value of the wrong type. */
interface Sample {
  readonly payload: Json;
  readonly broken: readonly [path: string, wrong: unknown];
}

const RESP = {
  id: 'resp_68cbd1f0a2e48190b1c4d2f7e35a0b6c', object: 'response', created_at: 1758200000, status: 'in_progress',
  model: 'gpt-5.4-nano', output: [], usage: null, error: null, incomplete_details: null, previous_response_id: null,
};
const MSG_ID = 'msg_68cbd1f3c5d88190a7e9b0c1d2e3f405';
const ITEM = { item_id: 'ci_68cbd9b9dbec8190b8c9d0e1f2a3b4c5', output_index: 1 };
const PART = { item_id: MSG_ID, output_index: 0, content_index: 0 };
const USAGE = { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 };
const TEXT = { type: 'output_text', annotations: [], logprobs: [], text: 'OK.' };

const lifecycle = (status: string, extra: Json = {}): Json => ({ response: { ...RESP, status, ...extra } });
const status = (p: 'item_id' | 'output_index'): Sample['broken'] => [p, p === 'item_id' ? 17 : '1'];

// Every documented event: the Record type makes the compiler list any event left out.
const SAMPLES: Record<ResponseStreamEventType, Sample> = {
  'response.created': { payload: lifecycle('in_progress'), broken: ['response.id', 42] },
  'response.queued': { payload: lifecycle('queued', { background: true }), broken: ['response.status', 1] },
  'response.in_progress': { payload: lifecycle('in_progress'), broken: ['response.output', {}] },
  'response.completed': {
    payload: lifecycle('completed', { output: [{ id: MSG_ID, type: 'message', status: 'completed', role: 'assistant', content: [TEXT] }], usage: USAGE }),
    broken: ['response.usage.output_tokens', '3'],
  },
  'response.failed': { payload: lifecycle('failed', { error: { code: 'server_error', message: 'The server had an error' } }), broken: ['response.error.message', 500] },
  'response.incomplete': { payload: lifecycle('incomplete', { incomplete_details: { reason: 'max_output_tokens' } }), broken: ['response.incomplete_details.reason', 7] },
  'response.output_item.added': {
    payload: { output_index: 0, item: { id: MSG_ID, type: 'message', status: 'in_progress', content: [], role: 'assistant', phase: 'final_answer' } },
    broken: ['item.role', 1],
  },
  'response.output_item.done': {
    payload: { output_index: 0, item: { id: 'fc_1', type: 'function_call', status: 'completed', arguments: '{"city":"Paris"}', call_id: 'call_Xk2m', name: 'get_weather' } },
    broken: ['item.arguments', { city: 'Paris' }],
  },
  'response.content_part.added': { payload: { ...PART, part: { ...TEXT, text: '' } }, broken: ['content_index', '0'] },
  'response.content_part.done': { payload: { ...PART, part: { type: 'refusal', refusal: 'I can’t help with that.' } }, broken: ['part.refusal', null] },
  'response.output_text.delta': { payload: { ...PART, delta: 'OK', logprobs: [], obfuscation: 'tcI6fDMDcuuDp0' }, broken: ['delta', 7] },
  'response.output_text.done': { payload: { ...PART, text: 'OK.', logprobs: [] }, broken: ['text', null] },
  'response.output_text.annotation.added': {
    payload: { ...PART, annotation_index: 0, annotation: { type: 'url_citation', start_index: 0, end_index: 3, url: 'https://example.com', title: 'Example' } },
    broken: ['annotation.type', 3],
  },
  'response.refusal.delta': { payload: { ...PART, delta: 'I’m sorry', obfuscation: 'aB3' }, broken: ['delta', 1] },
  'response.refusal.done': { payload: { ...PART, refusal: 'I’m sorry, I can’t help.' }, broken: ['refusal', false] },
  'response.reasoning_summary_part.added': {
    payload: { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
    broken: ['part.text', 0],
  },
  'response.reasoning_summary_part.done': {
    payload: { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '**Plan**' } },
    broken: ['summary_index', 'x'],
  },
  'response.reasoning_summary_text.delta': { payload: { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: '**Plan', obfuscation: 'Zx' }, broken: ['delta', []] },
  'response.reasoning_summary_text.done': { payload: { item_id: 'rs_1', output_index: 0, summary_index: 0, text: '**Plan**' }, broken: ['text', 1] },
  'response.reasoning_text.delta': { payload: { item_id: 'rs_2', output_index: 0, content_index: 0, delta: 'We need', obfuscation: 'Qq' }, broken: ['content_index', null] },
  'response.reasoning_text.done': { payload: { item_id: 'rs_2', output_index: 0, content_index: 0, text: 'We need Paris.' }, broken: ['text', {}] },
  'response.function_call_arguments.delta': { payload: { item_id: 'fc_1', output_index: 0, delta: '{"city"', obfuscation: 'r2' }, broken: ['item_id', 1] },
  'response.function_call_arguments.done': { payload: { item_id: 'fc_1', output_index: 0, name: 'get_weather', arguments: '{"city":"Paris"}' }, broken: ['arguments', { city: 'Paris' }] },
  'response.custom_tool_call_input.delta': { payload: { item_id: 'ctc_1', output_index: 0, delta: 'SELECT', obfuscation: 'k9' }, broken: ['delta', 0] },
  'response.custom_tool_call_input.done': { payload: { item_id: 'ctc_1', output_index: 0, input: 'SELECT 1;' }, broken: ['input', null] },
  'response.file_search_call.in_progress': { payload: { ...ITEM }, broken: status('item_id') },
  'response.file_search_call.searching': { payload: { ...ITEM }, broken: status('output_index') },
  'response.file_search_call.completed': { payload: { ...ITEM }, broken: status('item_id') },
  'response.web_search_call.in_progress': { payload: { ...ITEM }, broken: status('output_index') },
  'response.web_search_call.searching': { payload: { ...ITEM }, broken: status('item_id') },
  'response.web_search_call.completed': { payload: { ...ITEM }, broken: status('output_index') },
  'response.code_interpreter_call.in_progress': { payload: { ...ITEM }, broken: status('item_id') },
  'response.code_interpreter_call.interpreting': { payload: { ...ITEM }, broken: status('output_index') },
  'response.code_interpreter_call.completed': { payload: { ...ITEM }, broken: status('item_id') },
  'response.code_interpreter_call_code.delta': { payload: { ...ITEM, delta: 'import math', obfuscation: 'p0' }, broken: ['delta', 1] },
  'response.code_interpreter_call_code.done': { payload: { ...ITEM, code: 'import math\nprint(1)' }, broken: ['code', null] },
  'response.image_generation_call.in_progress': { payload: { ...ITEM }, broken: status('output_index') },
  'response.image_generation_call.generating': { payload: { ...ITEM }, broken: status('item_id') },
  'response.image_generation_call.completed': { payload: { ...ITEM }, broken: status('output_index') },
  'response.image_generation_call.partial_image': {
    payload: { ...ITEM, partial_image_index: 0, partial_image_b64: 'iVBORw0KGgo=', size: '1024x1024', quality: 'low', background: 'opaque', output_format: 'png' },
    broken: ['partial_image_b64', 1],
  },
  'response.mcp_call.in_progress': { payload: { ...ITEM }, broken: status('item_id') },
  'response.mcp_call.completed': { payload: { ...ITEM }, broken: status('output_index') },
  'response.mcp_call.failed': { payload: { ...ITEM }, broken: status('item_id') },
  'response.mcp_call_arguments.delta': { payload: { ...ITEM, delta: '{"repoName"', obfuscation: 'w1' }, broken: ['delta', true] },
  'response.mcp_call_arguments.done': { payload: { ...ITEM, arguments: '{"repoName":"ReactiveX/rxjs"}' }, broken: ['arguments', {}] },
  'response.mcp_list_tools.in_progress': { payload: { ...ITEM }, broken: status('output_index') },
  'response.mcp_list_tools.completed': { payload: { ...ITEM }, broken: status('item_id') },
  'response.mcp_list_tools.failed': { payload: { ...ITEM }, broken: status('output_index') },
  'response.shell_call_command.added': { payload: { output_index: 0, command_index: 0, command: 'ls -la' }, broken: ['command', 1] },
  'response.shell_call_command.delta': { payload: { output_index: 0, command_index: 0, delta: 'ls', obfuscation: 'tt' }, broken: ['delta', 1] },
  'response.shell_call_command.done': { payload: { output_index: 0, command_index: 0, command: 'ls -la' }, broken: ['command_index', '0'] },
  'response.shell_call_output_content.delta': { payload: { item_id: 'sh_1', output_index: 0, command_index: 0, delta: { stdout: 'total 8\n' } }, broken: ['delta.stdout', 8] },
  'response.shell_call_output_content.done': {
    payload: { item_id: 'sh_1', output_index: 0, command_index: 0, output: [{ stdout: 'total 8\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
    broken: ['output', 'total 8'],
  },
  'response.compaction.compacting': { payload: { item_id: 'cmp_1', output_index: 0 }, broken: status('item_id') },
  'response.audio.delta': { payload: { delta: 'UklGRiQAAABXQVZF', response_id: RESP.id }, broken: ['delta', 1] },
  'response.audio.done': { payload: { response_id: RESP.id }, broken: ['sequence_number', '4'] },
  'response.audio.transcript.delta': { payload: { delta: 'Hello', response_id: RESP.id }, broken: ['delta', null] },
  'response.audio.transcript.done': { payload: { response_id: RESP.id }, broken: ['sequence_number', '4'] },
  error: { payload: { code: 'rate_limit_exceeded', message: 'Rate limit reached', param: null }, broken: ['message', 429] },
};

const SEQ = 4;
/** The wire payload: `type` first, unknown keys at the top and inside, `sequence_number` last. */
function wire(type: string, s: Sample): Json {
  return { type, ...s.payload, x_future_key: { nested: [1, 2] }, sequence_number: SEQ };
}
function setPath(obj: Json, path: string, value: unknown): Json {
  const copy = structuredClone(obj);
  const keys = path.split('.');
  let at: Json = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Json;
  at[keys[keys.length - 1]!] = value;
  return copy;
}
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

const TYPES = Object.keys(SAMPLES) as ResponseStreamEventType[];

describe('Responses SSE event codecs', () => {
  test('the table holds exactly the 59 documented types, each sampled here', () => {
    expect(Object.keys(responseEventCodecs)).toHaveLength(59);
    expect(responseEventTable.size).toBe(59);
    expect(new Set(TYPES)).toEqual(new Set(Object.keys(responseEventCodecs)));
  });

  describe.each(TYPES)('%s', (type) => {
    const sample = SAMPLES[type];

    test('a realistic payload decodes strictly to the same object, unknown keys kept', () => {
      const u = wire(type, sample);
      const snapshot = structuredClone(u);
      const decoded = decodeTyped(u, responseEventTable, 'strict', type);
      expect(decoded).toBe(u);
      expect(decoded).toEqual(snapshot);
      expect((decoded as Json)['x_future_key']).toEqual({ nested: [1, 2] });
      expect(responseEventCodecs[type].is(u)).toBe(true);
    });

    test('a wrong-typed required field fails with a DecodeError naming type, sequence_number and path', () => {
      const [path, wrong] = sample.broken;
      const u = setPath(wire(type, sample), path, wrong);
      const e = thrown(() => decodeTyped(u, responseEventTable, 'strict', type));
      expect(e).toBeInstanceOf(DecodeError);
      const d = e as DecodeError;
      expect(d.eventType).toBe(type);
      expect(d.path).toBe(path);
      expect(d.message).toContain(`event type ${JSON.stringify(type)}`);
      expect(d.message).toContain(`at ${path}`);
      if (path !== 'sequence_number') {
        expect(d.sequenceNumber).toBe(SEQ);
        expect(d.message).toContain(`sequence_number ${SEQ}`);
      }
      expect(responseEventCodecs[type].is(u)).toBe(false);
      // validate 'off' lets the same payload through untouched.
      expect(decodeTyped(u, responseEventTable, 'off', type)).toBe(u);
    });
  });

  test('nested unknown keys inside items, parts and the Response survive decoding', () => {
    const u = {
      type: 'response.completed',
      response: { ...RESP, status: 'completed', usage: { ...USAGE, x_units: 2 }, output: [{ id: MSG_ID, type: 'message', role: 'assistant', content: [{ ...TEXT, x_part: 1 }], x_item: true }] },
      sequence_number: 9,
    };
    const decoded = decodeTyped(u, responseEventTable, 'strict', 'response.completed') as typeof u;
    expect(decoded.response.output[0]!.x_item).toBe(true);
    expect(decoded.response.output[0]!.content[0]!.x_part).toBe(1);
    expect(decoded.response.usage.x_units).toBe(2);
  });

  test('an unknown output item type inside a known event passes; a known one with a bad field does not', () => {
    const future = { type: 'response.output_item.added', output_index: 0, item: { id: 'wdg_1', type: 'widget_render_call', widget: 1 }, sequence_number: 3 };
    expect(decodeTyped(future, responseEventTable, 'strict')).toBe(future);
    const bad = { type: 'response.output_item.added', output_index: 0, item: { id: 'mcp_1', type: 'mcp_call', server_label: 'x', name: 'y', arguments: 5 }, sequence_number: 3 };
    const e = thrown(() => decodeTyped(bad, responseEventTable, 'strict')) as DecodeError;
    expect(e.path).toBe('item.arguments');
  });

  test.each([
    [
      'shell_call_output',
      { id: 'sho_1', type: 'shell_call_output', call_id: 'call_sh', status: 'completed', max_output_length: 1024, output: [{ stdout: 'ok\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
      ['output', 'ok'],
    ],
    ['shell_call_output, as added (no output yet)', { id: 'sho_1', type: 'shell_call_output', call_id: 'call_sh', status: 'in_progress' }, ['status', 1]],
    [
      'tool_search_call',
      { id: 'ts_1', type: 'tool_search_call', call_id: 'call_ts', execution: 'client', arguments: { query: 'weather' }, status: 'completed', created_by: 'model' },
      ['execution', true],
    ],
    ['tool_search_call, server-run (call_id null)', { id: 'ts_2', type: 'tool_search_call', call_id: null, execution: 'server', arguments: {}, status: 'completed' }, ['call_id', 7]],
  ] as const)('output item %s decodes strictly as it is; a wrong-typed field fails at its path', (_name, item, [field, wrong]) => {
    const added = { type: 'response.output_item.added', output_index: 0, item, sequence_number: 3 };
    expect(decodeTyped(added, responseEventTable, 'strict')).toBe(added);
    const bad = { ...added, item: { ...item, [field]: wrong } };
    expect((thrown(() => decodeTyped(bad, responseEventTable, 'strict')) as DecodeError).path).toBe(`item.${field}`);
  });

  test('an undocumented event type passes through as it is', () => {
    const u = { type: 'response.apply_patch_call_operation_diff.delta', item_id: 'apc_1', output_index: 0, delta: 1, sequence_number: 6 };
    expect(decodeTyped(u, responseEventTable, 'strict', u.type)).toBe(u);
  });

  test('sequence_number is optional (providers that omit it)', () => {
    const u = { type: 'response.output_text.delta', ...PART, delta: 'OK' };
    expect(decodeTyped(u, responseEventTable, 'strict')).toBe(u);
  });

  test('an `event:` name that differs from data.type is a DecodeError', () => {
    const u = wire('response.output_text.delta', SAMPLES['response.output_text.delta']);
    const e = thrown(() => decodeTyped(u, responseEventTable, 'strict', 'response.output_text.done')) as DecodeError;
    expect(e).toBeInstanceOf(DecodeError);
    expect(e.message).toContain('response.output_text.done');
    expect(e.path).toBe('type');
  });
});

describe('WebSocket client events', () => {
  const ok = (u: unknown) => ResponsesClientEvent.decode(u)._tag === 'Right';

  test('response.create with every POST field, a stream_id and generate:false', () => {
    const u = { type: 'response.create', stream_id: 'lane-1.a_B', generate: false, model: 'gpt-5.4-nano', input: 'Hi', store: false, tools: [] };
    const r = ResponsesClientEvent.decode(u);
    expect(r._tag).toBe('Right');
    expect(ok({ type: 'response.create', model: 'gpt-5.4-nano' })).toBe(true);
    expect(ok({ type: 'response.create', generate: 'false' })).toBe(false);
  });

  test.each([
    ['a', true],
    ['A-z_0.9', true],
    ['x'.repeat(256), true],
    ['x'.repeat(257), false],
    ['', false],
    ['has space', false],
    ['slash/lane', false],
    ['lané', false],
    [42, false],
  ])('stream_id %p valid: %p', (id, valid) => {
    expect(ok({ type: 'response.create', stream_id: id })).toBe(valid);
    expect(ok({ type: 'response.steer', stream_id: id, previous_response_id: 'resp_1', input: [] })).toBe(valid);
  });

  test('response.steer needs previous_response_id', () => {
    expect(ok({ type: 'response.steer', previous_response_id: 'resp_1', input: [{ role: 'user', content: 'shorter' }] })).toBe(true);
    expect(ok({ type: 'response.steer', input: [] })).toBe(false);
  });

  test('response.inject needs response_id and an input array', () => {
    expect(ok({ type: 'response.inject', response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_1', output: '{}' }] })).toBe(true);
    expect(ok({ type: 'response.inject', response_id: 'resp_1', input: 'x' })).toBe(false);
    expect(ok({ type: 'response.inject', input: [] })).toBe(false);
  });

  test('an unknown client event type is refused', () => {
    expect(ok({ type: 'response.cancel' })).toBe(false);
    expect(ok({ type: 7 })).toBe(false);
    expect(ok(null)).toBe(false);
  });
});

describe('WebSocket server events', () => {
  const decode = (u: Json) => decodeTyped(u, serverEventTable, 'strict', u['type'] as string);
  const steer = { input: [{ role: 'user', content: 'Be brief' }], previous_response_id: 'resp_1' };

  test.each<[string, Json, string, unknown]>([
    ['response.steer.accepted', { steer, stream_id: 'lane-a' }, 'steer', 'x'],
    ['response.steer.pending', { steer, reason: 'waiting_for_required_input', required_input: [{ type: 'function_call_output', call_id: 'call_1' }], stream_id: 'lane-a' }, 'reason', 3],
    ['response.steer.failed', { steer, error: { type: 'invalid_request_error', code: 'response_already_completed', message: 'too late' } }, 'error', 'boom'],
    ['response.inject.created', { stream_id: 'lane-b' }, 'stream_id', 9],
    ['response.inject.failed', { error: { code: 'response_not_active', message: 'not active' }, stream_id: 'lane-b' }, 'error', []],
    ['error', { status: 400, stream_id: 'lane-c', error: { type: 'invalid_request_error', code: 'invalid_stream_id', message: 'bad stream_id', param: 'stream_id' } }, 'error.message', 1],
  ])('%s decodes, and a wrong field fails at its path', (type, fields, path, wrong) => {
    const u = { type, ...fields, x_unknown: true, sequence_number: 12 };
    expect(decode(u)).toBe(u);
    const e = thrown(() => decode(setPath(u, path, wrong))) as DecodeError;
    expect(e).toBeInstanceOf(DecodeError);
    expect(e.path).toBe(path);
    expect(e.eventType).toBe(type);
  });

  test('the SSE `error` shape is accepted on the WebSocket too', () => {
    const u = { type: 'error', code: 'websocket_connection_limit_reached', message: 'Connection limit reached', param: null, sequence_number: 3 };
    expect(decode(u)).toBe(u);
  });

  test('SSE events come through with a stream_id echo', () => {
    const u = { type: 'response.output_text.delta', ...PART, delta: 'OK', stream_id: 'lane-a', sequence_number: 4 };
    expect(decode(u)).toBe(u);
  });
});

describe('Chat Completions chunk', () => {
  const base = { id: 'chatcmpl-CHt3xT9kQ2mV7pL4wR8sN1bY6zA0', object: 'chat.completion.chunk', created: 1758200000, model: 'gpt-4.1-nano-2025-04-14', service_tier: 'default', system_fingerprint: 'fp_7c2e1b4a9d' };

  test.each<[string, Json]>([
    ['first chunk', { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], usage: null, obfuscation: 'GO7oM1GH' }],
    ['choice without delta', { ...base, choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['usage chunk', { ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 1, total_tokens: 12, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } }],
    ['tool_calls', { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }, { index: 1, function: { arguments: '{"ci' } }] }, finish_reason: null }] }],
    ['reasoning_content', { ...base, choices: [{ index: 0, delta: { content: null, reasoning_content: 'Think' }, finish_reason: null }] }],
  ])('%s decodes to the same object', (_name, u) => {
    expect(decodeChunk(u, 'strict', 3)).toBe(u);
    expect(ChatCompletionChunk.is(u)).toBe(true);
  });

  test.each<[string, string, unknown]>([
    // Perplexity sends `object: "chat.completion"` on every chunk: any string is accepted, a number is not.
    ['object', 'object', 7],
    ['created', 'created', '1758200000'],
    ['choices', 'choices', {}],
    ['usage.total_tokens', 'usage', { prompt_tokens: 1, completion_tokens: 1, total_tokens: '2' }],
  ])('a wrong %s fails with a DecodeError at its path', (path, key, wrong) => {
    const u = { ...base, choices: [], [key]: wrong };
    const e = thrown(() => decodeChunk(u, 'strict', 3)) as DecodeError;
    expect(e).toBeInstanceOf(DecodeError);
    expect(e.path).toBe(path);
    expect(e.message).toContain('chat.completion.chunk');
    expect(decodeChunk(u, 'off', 3)).toBe(u);
  });

  test('a tool call fragment with a non-number index fails at its path (no index at all is a dialect: Mistral, Gemini)', () => {
    const u = { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: '0', function: { arguments: '{' } }] } }] };
    expect(decodeChunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] } }] }, 'strict', 5)).toBeDefined();
    const e = thrown(() => decodeChunk(u, 'strict', 5)) as DecodeError;
    expect(e.path).toBe('choices.0.delta.tool_calls.0.index');
    expect(e.sequenceNumber).toBe(5);
  });
});
