// The official SDK's chat.completions.stream() against the gateway, over real loopback sockets, with a Responses
// upstream (the loopback fake provider): plain text, parallel tool calls, and a tool-result round trip whose second
// request carries the SDK's own final message and `tool` messages. Each final message must equal what the same SDK
// makes of a Chat Completions provider's stream for the same conversation, and the upstream must have been asked
// the mapped Responses request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createGateway, type Gateway } from '../../gateway/index';
import { chatTranscript, startTestServer, type TestServer } from '../../testing/index';
import { CREATED_AT, customCall, ev, sseOf, transcript, type UsageSpec } from '../chat/build';

const USAGE: UsageSpec = {
  input_tokens: 40, output_tokens: 12, total_tokens: 52, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 },
};
const CHAT_USAGE = {
  prompt_tokens: 40, completion_tokens: 12, total_tokens: 52,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

/** Chat chunks as an OpenAI Chat Completions provider streams them (role chunk, fragments by index, finish, usage). */
function chatProviderStream(answer: {
  text?: string[];
  refusal?: string[];
  calls?: Array<{ id: string; name: string; args: string[] }>;
  custom?: { id: string; name: string; input: string[] };
}): string {
  const base = { id: 'chatcmpl-ref', object: 'chat.completion.chunk', created: CREATED_AT, model: 'gpt-ref', service_tier: 'default', system_fingerprint: 'fp_ref' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  const chunks: object[] = [chunk({ role: 'assistant', content: answer.text ? '' : null, refusal: null })];
  for (const t of answer.text ?? []) chunks.push(chunk({ content: t }));
  for (const r of answer.refusal ?? []) chunks.push(chunk({ refusal: r }));
  (answer.calls ?? []).forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const a of c.args) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: a } }] }));
  });
  if (answer.custom) {
    const { id, name, input } = answer.custom;
    chunks.push(chunk({ tool_calls: [{ index: 0, id, type: 'custom', custom: { name, input: '' } }] }));
    for (const i of input) chunks.push(chunk({ tool_calls: [{ index: 0, custom: { input: i } }] }));
  }
  chunks.push(chunk({}, answer.calls || answer.custom ? 'tool_calls' : 'stop'));
  chunks.push({ ...base, choices: [], usage: CHAT_USAGE });
  return chatTranscript(chunks);
}

/** A Responses transcript of one custom tool call streamed in pieces (the builder's `transcript` has function calls only). */
function customTranscript(c: { id: string; name: string; input: string[] }): Array<{ type: string }> {
  const input = c.input.join('');
  const events = [
    ev.created(), ev.inProgress(), ev.customAdded(0, c.id, c.name), ...c.input.map((i) => ev.input(0, i, c.id)), ev.inputDone(0, input, c.id),
    ev.customDone(0, c.id, c.name, input), ev.completed({ output: [customCall(c.id, c.name, input)], usage: USAGE }),
  ];
  return events.map((e, sequence_number) => ({ ...e, sequence_number }));
}

const WEATHER_TOOLS: Extra['tools'] & object = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
];
const CALLS = [
  { id: 'call_paris', name: 'get_weather', args: ['{"city":', '"Paris"}'] },
  { id: 'call_cet', name: 'get_time', args: ['{"tz":"CET"}'] },
];

/** One answer per conversation step, as a Responses transcript for the gateway's upstream and as chat chunks for the reference provider. */
const ANSWERS = {
  'step-text': { text: ['Hel', 'lo', ', world'] },
  'step-tools': { text: ['Checking both.'], calls: CALLS },
  'step-after-tools': { text: ['Paris is sunny', '; it is 12:00 CET.'] },
  'step-refusal': { refusal: ["I can't ", 'share that.'] },
  'step-json': { text: ['{"city":', '"Paris","temp":21}'] },
  'step-custom': { custom: { id: 'call_sql', name: 'run_sql', input: ['SELECT count(*) ', 'FROM users;'] } },
  'step-after-custom': { text: ['There are 42 users.'] },
};
type Step = keyof typeof ANSWERS;

let upstream: TestServer;
let chatProvider: TestServer;
let gateway: Gateway;
let server: Server;
let gatewayURL: string;

beforeAll(async () => {
  const responses: Record<string, string> = {};
  const chats: Record<string, string> = {};
  for (const [name, a] of Object.entries(ANSWERS) as Array<[Step, (typeof ANSWERS)[Step]]>) {
    const calls = 'calls' in a ? a.calls.map((c) => ({ callId: c.id, name: c.name, args: c.args })) : undefined;
    responses[name] = 'custom' in a ? sseOf(customTranscript(a.custom)) : sseOf(transcript({ ...a, calls, usage: USAGE }));
    chats[name] = chatProviderStream(a);
  }
  upstream = await startTestServer({ transcripts: responses, chatFromResponses: false });
  chatProvider = await startTestServer({ transcripts: chats });
  gateway = createGateway({ upstream: { baseURL: upstream.baseURL } });
  server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gatewayURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await gateway.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([upstream.close(), chatProvider.close()]);
});

const client = (baseURL: string) => new OpenAI({ apiKey: 'sk-test-gateway', baseURL, maxRetries: 0 });

interface Streamed {
  final: ChatCompletion;
  /** The text as the SDK's `content.delta` events gave it. */
  deltas: string;
}

type Extra = Pick<ChatCompletionCreateParamsStreaming, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format' | 'max_completion_tokens'>;

async function stream(baseURL: string, model: Step, messages: ChatCompletionMessageParam[], extra: Extra = {}): Promise<Streamed> {
  const s = client(baseURL).chat.completions.stream({ model, messages, stream_options: { include_usage: true }, ...extra });
  let deltas = '';
  s.on('content.delta', ({ delta }) => (deltas += delta));
  return { final: await s.finalChatCompletion(), deltas };
}

/** The same conversation through the gateway and from the chat provider: the same message, finish reason and usage. */
async function both(model: Step, messages: ChatCompletionMessageParam[], extra: Extra = {}): Promise<{ viaGateway: Streamed; reference: Streamed }> {
  const [viaGateway, reference] = await Promise.all([stream(gatewayURL, model, messages, extra), stream(chatProvider.baseURL, model, messages, extra)]);
  expect(viaGateway.final.choices).toHaveLength(1);
  expect(viaGateway.final.choices[0]!.message).toEqual(reference.final.choices[0]!.message);
  expect(viaGateway.final.choices[0]!.finish_reason).toBe(reference.final.choices[0]!.finish_reason);
  expect(viaGateway.deltas).toBe(reference.deltas);
  const u = viaGateway.final.usage!;
  expect([u.prompt_tokens, u.completion_tokens, u.total_tokens]).toEqual([CHAT_USAGE.prompt_tokens, CHAT_USAGE.completion_tokens, CHAT_USAGE.total_tokens]);
  return { viaGateway, reference };
}

/** The body of the last upstream request for `model`. */
function upstreamBody(model: Step): Record<string, unknown> {
  const r = [...upstream.requests].reverse().find((q) => q.route === 'responses.create' && (q.body as { model?: string }).model === model);
  if (!r) throw new Error(`the upstream got no request for ${model}`);
  expect(r.path).toBe('/v1/responses');
  return r.body as Record<string, unknown>;
}

const SYSTEM = { role: 'system' as const, content: 'You are terse.' };

describe('the official SDK streams chat completions through the gateway (Responses upstream)', () => {
  it('plain text: the same final message as from a chat provider; the upstream got the mapped Responses request', async () => {
    const { viaGateway } = await both('step-text', [SYSTEM, { role: 'user', content: 'Say hello' }]);
    expect(viaGateway.final.choices[0]!.message.content).toBe('Hello, world');
    expect(upstreamBody('step-text')).toEqual({
      model: 'step-text',
      stream: true,
      store: false,
      input: [
        { type: 'message', role: 'system', content: 'You are terse.' },
        { type: 'message', role: 'user', content: 'Say hello' },
      ],
    });
  });

  it('parallel tool calls, then a tool-result round trip carrying the SDK message and tool messages', async () => {
    const question: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] }];
    const tools: Extra = { tools: WEATHER_TOOLS, tool_choice: 'auto', parallel_tool_calls: true };
    const first = await both('step-tools', question, tools);
    const message = first.viaGateway.final.choices[0]!.message;
    expect(message.content).toBe('Checking both.');
    expect(message.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : []))).toEqual([
      ['call_paris', 'get_weather', '{"city":"Paris"}'],
      ['call_cet', 'get_time', '{"tz":"CET"}'],
    ]);
    expect(upstreamBody('step-tools')).toEqual({
      model: 'step-tools',
      stream: true,
      store: false,
      input: [
        { type: 'message', role: 'system', content: 'You are terse.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather and time in Paris?' }] },
      ],
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather in a city', parameters: (WEATHER_TOOLS[0] as { function: { parameters: unknown } }).function.parameters, strict: false },
        { type: 'function', name: 'get_time', parameters: (WEATHER_TOOLS[1] as { function: { parameters: unknown } }).function.parameters, strict: false },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });

    // What a client does next: push the SDK's message as it is, then one `tool` message per call (in another order).
    const followUp: ChatCompletionMessageParam[] = [
      ...question,
      message as ChatCompletionMessageParam,
      { role: 'tool', tool_call_id: 'call_cet', content: '12:00' },
      { role: 'tool', tool_call_id: 'call_paris', content: [{ type: 'text', text: 'sunny, 21°C' }] },
    ];
    const second = await both('step-after-tools', followUp, tools);
    expect(second.viaGateway.final.choices[0]!.message.content).toBe('Paris is sunny; it is 12:00 CET.');
    expect(upstreamBody('step-after-tools')['input']).toEqual([
      { type: 'message', role: 'system', content: 'You are terse.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather and time in Paris?' }] },
      { type: 'message', role: 'assistant', content: 'Checking both.' },
      { type: 'function_call', call_id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_cet', name: 'get_time', arguments: '{"tz":"CET"}' },
      { type: 'function_call_output', call_id: 'call_cet', output: '12:00' },
      { type: 'function_call_output', call_id: 'call_paris', output: [{ type: 'input_text', text: 'sunny, 21°C' }] },
    ]);
  });

  it('a refusal, and structured output with response_format json_schema and max_completion_tokens', async () => {
    const refused = await both('step-refusal', [{ role: 'user', content: 'Tell me a secret' }]);
    expect(refused.viaGateway.final.choices[0]!.message).toMatchObject({ content: null, refusal: "I can't share that." });

    const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } }, required: ['city', 'temp'], additionalProperties: false };
    const json = await both('step-json', [{ role: 'developer', content: 'Answer in JSON.' }, { role: 'user', content: 'Paris?' }], {
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
      max_completion_tokens: 200,
    });
    expect(json.viaGateway.final.choices[0]!.message.content).toBe('{"city":"Paris","temp":21}');
    expect(upstreamBody('step-json')).toEqual({
      model: 'step-json',
      stream: true,
      store: false,
      input: [{ type: 'message', role: 'developer', content: 'Answer in JSON.' }, { type: 'message', role: 'user', content: 'Paris?' }],
      text: { format: { type: 'json_schema', name: 'weather', schema, strict: true } },
      max_output_tokens: 200,
    });
  });

  it('a custom tool (grammar format) call, then its result as a custom_tool_call_output', async () => {
    const grammar = { definition: 'start: "SELECT" /[^;]+/ ";"', syntax: 'lark' as const };
    const tools: Extra = { tools: [{ type: 'custom', custom: { name: 'run_sql', description: 'Runs SQL', format: { type: 'grammar', grammar } } }] };
    const question: ChatCompletionMessageParam[] = [{ role: 'user', content: 'How many users?' }];
    const first = await both('step-custom', question, tools);
    const message = first.viaGateway.final.choices[0]!.message;
    expect(message.tool_calls).toEqual([{ id: 'call_sql', type: 'custom', custom: { name: 'run_sql', input: 'SELECT count(*) FROM users;' } }]);
    expect(upstreamBody('step-custom')['tools']).toEqual([{ type: 'custom', name: 'run_sql', description: 'Runs SQL', format: { type: 'grammar', ...grammar } }]);

    await both('step-after-custom', [...question, message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: 'call_sql', content: '42' }], tools);
    expect(upstreamBody('step-after-custom')['input']).toEqual([
      { type: 'message', role: 'user', content: 'How many users?' },
      { type: 'custom_tool_call', call_id: 'call_sql', name: 'run_sql', input: 'SELECT count(*) FROM users;' },
      { type: 'custom_tool_call_output', call_id: 'call_sql', output: '42' },
    ]);
  });

  it('an unmappable request is a 400 the SDK raises as BadRequestError naming the param; the upstream is not called', async () => {
    const before = upstream.requests.length;
    const s = client(gatewayURL).chat.completions.stream({
      model: 'step-text', messages: [{ role: 'user', content: 'hi' }, { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'video_url', video_url: 'v' } as never] }],
    });
    const error = await s.finalChatCompletion().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const e = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.param).toBe('messages[1].content[1].type');
    expect(e.type).toBe('invalid_request_error');
    expect(e.code).toBe('invalid_value');
    expect(upstream.requests.length).toBe(before);
  });
});
