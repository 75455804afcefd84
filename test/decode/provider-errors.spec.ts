import { fromChatCompletionsSSE, fromResponsesSSE, ResponseStreamError } from '../../lib/index';
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
