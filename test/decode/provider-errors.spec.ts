import { fromChatCompletionsSSE, fromResponsesSSE, ResponseStreamError } from '../../index';
import { run } from './sources';

// Errors providers report inside a stream, in the shapes seen in the wild. Each must end the stream with a
// ResponseStreamError carrying the provider's message, code and param: never a DecodeError that loses
// them, never a normal completion.

const created = 'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}\n\n';
const chunk = 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n';

interface Case {
  readonly name: string;
  readonly sse: string;
  readonly expected: { errorCode: string | null; message: string; param?: string | null };
}

const shapes: Case[] = [
  {
    name: 'event: error with the flat OpenAI error object (type is the error type, no sequence_number)',
    sse: 'event: error\ndata: {"message":"The server had an error","code":null,"param":null,"type":"server_error"}\n\n',
    expected: { errorCode: 'server_error', message: 'The server had an error', param: null },
  },
  {
    name: 'event: error with the reference shape but no sequence_number and a numeric code',
    sse: 'event: error\ndata: {"type":"error","code":429,"message":"Rate limit reached","param":"model"}\n\n',
    expected: { errorCode: '429', message: 'Rate limit reached', param: 'model' },
  },
  {
    name: 'data: {"error": {…}} without event: error',
    sse: 'data: {"error":{"message":"Invalid API parameter","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}\n\n',
    expected: { errorCode: 'invalid_value', message: 'Invalid API parameter', param: 'temperature' },
  },
  {
    name: 'data: {"error": {…}} with event: error and Groq failed_generation',
    sse: 'event: error\ndata: {"error":{"message":"Failed to call a function.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<function=x>"}}\n\n',
    expected: { errorCode: 'tool_use_failed', message: 'Failed to call a function.', param: null },
  },
  {
    name: 'an OpenRouter chunk: id and provider beside the error, with choices',
    sse: 'data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","provider":"Upstream","error":{"code":502,"message":"Provider returned error","metadata":{"raw":"x"}},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}\n\n',
    expected: { errorCode: '502', message: 'Provider returned error', param: null },
  },
  {
    name: 'data: {"error": "text"}',
    sse: 'data: {"error":"upstream overloaded"}\n\n',
    expected: { errorCode: null, message: 'upstream overloaded', param: null },
  },
  {
    name: 'event: error with a JSON string payload',
    sse: 'event: error\ndata: "Internal error"\n\n',
    expected: { errorCode: null, message: 'Internal error', param: null },
  },
  {
    name: 'event: error with plain text',
    sse: 'event: error\ndata: upstream timed out\n\n',
    expected: { errorCode: null, message: 'upstream timed out', param: null },
  },
];

describe.each([
  ['Responses', (body: string) => run(fromResponsesSSE(created + body))],
  ['Chat Completions', (body: string) => run(fromChatCompletionsSSE(`${chunk}${body}data: [DONE]\n\n`))],
])('%s surface', (_surface, decode) => {
  test.each(shapes)('$name', async ({ sse, expected }) => {
    const out = await decode(sse);
    expect(out.completed).toBe(false);
    expect(out.error).toBeInstanceOf(ResponseStreamError);
    const { message, ...fields } = expected;
    expect(out.error).toMatchObject({ eventType: 'error', ...fields });
    expect((out.error as ResponseStreamError).message).toBe(`error: ${fields.errorCode ? `${fields.errorCode}: ` : ''}${message}`);
  });
});

describe('Responses: the error is also emitted as an event in the reference shape', () => {
  test('with the provider details kept under error', async () => {
    const out = await run(fromResponsesSSE(`${created}${shapes[3]!.sse}`));
    expect(out.values[1]).toEqual({
      type: 'error', code: 'tool_use_failed', message: 'Failed to call a function.', param: null,
      error: { message: 'Failed to call a function.', type: 'invalid_request_error', code: 'tool_use_failed', failed_generation: '<function=x>' },
    });
  });

  test("errorEvents: 'value' emits it and completes", async () => {
    const out = await run(fromResponsesSSE(`${created}${shapes[0]!.sse}`, { errorEvents: 'value' }));
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'error']);
    expect(out.completed).toBe(true);
  });

  test('a very long provider message is cut', async () => {
    const out = await run(fromResponsesSSE(`${created}event: error\ndata: ${'x'.repeat(100_000)}\n\n`));
    expect((out.error as ResponseStreamError).message.length).toBeLessThan(2100);
  });
});

describe('what is not a provider error', () => {
  test('a chat chunk with "error": null is a chunk', async () => {
    const out = await run(fromChatCompletionsSSE(`${chunk.replace('"choices"', '"error":null,"choices"')}data: [DONE]\n\n`));
    expect(out.error).toBeUndefined();
    expect(out.values).toHaveLength(1);
  });

  test('malformed JSON without event: error stays a DecodeError', async () => {
    const out = await run(fromChatCompletionsSSE(`${chunk}data: {"id":\n\n`));
    expect(out.error).toMatchObject({ name: 'DecodeError' });
  });
});

// `event: error` says the stream failed, whatever its data: a payload of no documented shape (missing,
// extra or mistyped fields, a list, a scalar, nothing at all) still ends it with the provider's words, and a
// generic message when it has none (a scalar or a list of no error objects is the provider's text, as sent). The class of input, on both surfaces and in every validate/sequence mode.
interface Irregular {
  readonly data: string;
  readonly message: string;
  readonly errorCode?: string | null;
  readonly param?: string | null;
}
const GENERIC = 'stream error';
const irregular: Irregular[] = [
  { data: '{"message":"x","code":"y"}', message: 'x', errorCode: 'y' },
  { data: '{"error":"a string"}', message: 'a string', errorCode: null },
  { data: '{"error":{"message":"m"}}', message: 'm', errorCode: null, param: null },
  { data: '{"error":{"message":"m","code":"c","param":"p","extra":{"deep":[1]}}}', message: 'm', errorCode: 'c', param: 'p' },
  { data: '{"error":{"message":"m","code":123,"param":["x"]}}', message: 'm', errorCode: '123', param: null },
  { data: '{"type":"error","code":"c","error":{"message":"nested"}}', message: 'nested', errorCode: 'c' },
  { data: '{"type":"error","message":"m","sequence_number":-1}', message: 'm' },
  { data: '{"type":"error","message":"m","sequence_number":1.5}', message: 'm' },
  { data: '{"type":"error","message":"m","sequence_number":"7"}', message: 'm' },
  { data: '{"type":"error","message":"m","sequence_number":0}', message: 'm' },
  { data: '{"type":"error","message":"m","sequence_number":99}', message: 'm' },
  { data: '{"type":"error","message":{"text":"m"},"code":{"x":1}}', message: GENERIC, errorCode: null },
  { data: '{"message":""}', message: GENERIC },
  { data: '{"message":"   "}', message: GENERIC },
  { data: '{"error":{}}', message: GENERIC, errorCode: null },
  { data: '{"error":true}', message: GENERIC },
  { data: '{"error":[{"message":"first of a list","code":"c1"}]}', message: 'first of a list', errorCode: 'c1' },
  { data: '[{"error":{"message":"in a list","code":"c2"}}]', message: 'in a list', errorCode: 'c2' },
  { data: '{}', message: GENERIC, errorCode: null },
  { data: 'null', message: 'null', errorCode: null },
  { data: '[]', message: '[]' },
  { data: '[1,2]', message: '[1,2]' },
  { data: 'true', message: 'true' },
  { data: '""', message: GENERIC },
  { data: '42', message: '42' },
  // Nothing through a prototype: `__proto__` is a plain key of the payload, not where its message is.
  { data: '{"__proto__":{"message":"inherited","code":"inh"}}', message: GENERIC, errorCode: null },
];

describe.each([
  ['Responses', (body: string) => run(fromResponsesSSE(created + body))],
  ['Responses, validate off', (body: string) => run(fromResponsesSSE(created + body, { validate: 'off' }))],
  ['Responses, strict sequence', (body: string) => run(fromResponsesSSE(created + body, { sequence: 'strict' }))],
  ['Chat Completions', (body: string) => run(fromChatCompletionsSSE(`${chunk}${body}data: [DONE]\n\n`))],
])('%s: event: error with an irregular payload', (_surface, decode) => {
  test.each(irregular)('$data', async ({ data, message, ...fields }) => {
    const out = await decode(`event: error\ndata: ${data}\n\n`);
    expect(out.completed).toBe(false);
    expect(out.error).toBeInstanceOf(ResponseStreamError);
    const e = out.error as ResponseStreamError;
    expect(e).toMatchObject({ eventType: 'error', ...fields });
    expect(e.message).toBe(`error: ${e.errorCode ? `${e.errorCode}: ` : ''}${message}`);
    // A sequence number only when it is one.
    expect(e.sequenceNumber === undefined || (Number.isSafeInteger(e.sequenceNumber) && e.sequenceNumber >= 0)).toBe(true);
  });
});

describe('sizes and numbers an error report cannot be trusted with', () => {
  test('a huge code or param is cut like the message', async () => {
    const out = await run(fromResponsesSSE(`${created}event: error\ndata: {"message":"m","code":"${'c'.repeat(50_000)}","param":"${'p'.repeat(50_000)}"}\n\n`));
    const e = out.error as ResponseStreamError;
    expect(e).toBeInstanceOf(ResponseStreamError);
    expect(e.message.length).toBeLessThan(600);
    expect(String(e.param).length).toBeLessThan(300);
  });

  test("validate: 'off' never passes a string sequence_number on as the error's", async () => {
    const out = await run(fromResponsesSSE(`${created}event: error\ndata: {"type":"error","message":"m","sequence_number":"3"}\n\n`, { validate: 'off' }));
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', sequenceNumber: undefined });
  });

  test('an error whose number repeats one already seen is not dropped as a duplicate', async () => {
    const out = await run(fromResponsesSSE(`${created}event: error\ndata: {"type":"error","code":"c","message":"m","param":null,"sequence_number":0}\n\n`));
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'error']);
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', errorCode: 'c', sequenceNumber: 0 });
  });

  test("validate: 'off': a response.failed without response.error reads a top-level error", async () => {
    const out = await run(fromResponsesSSE(`${created}data: {"type":"response.failed","sequence_number":1,"error":{"message":"why","code":"server_error"}}\n\n`, { validate: 'off' }));
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'response.failed', errorCode: 'server_error', sequenceNumber: 1 });
    expect((out.error as Error).message).toContain('why');
  });
});
