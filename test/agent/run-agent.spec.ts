// runAgent over real loopback HTTP and over a real WebSocket lane against the scripted fake provider: the
// requests the provider receives are exactly what the API expects turn after turn.
import * as t from 'io-ts';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { defineTool, isAgentEvent, runAgent, type AgentStreamEvent, type RunAgentOptions } from '../../agent/index';
import type { AgentRunFinishedEvent } from '../../agent/events';
import { HTTPError } from '../../lib/errors';
import { streamResponse } from '../../lib/http/transports';
import { connectResponsesSocket, type ResponsesSocket } from '../../lib/ws/socket';
import { LaneError } from '../../lib/ws/errors';
import { outputText } from '../../operators/outputText';
import { startScriptedProvider, type ScriptedProvider, type ScriptedReply, type ScriptedRequest } from '../../testing/index';

const KEY = 'sk-test-agent';
let provider: ScriptedProvider | undefined;
let socket: ResponsesSocket | undefined;
afterEach(async () => {
  socket?.close();
  socket = undefined;
  await provider?.close();
  provider = undefined;
});

const weather = defineTool({
  description: 'The weather in a city',
  parameters: t.type({ city: t.string, unit: t.union([t.keyof({ celsius: null, fahrenheit: null }), t.undefined]) }),
  execute: ({ city, unit }) => ({ city, temperature: 18, unit: unit ?? 'celsius' }),
});
const time = defineTool({ parameters: t.type({ timezone: t.string }), execute: ({ timezone }) => `14:05 in ${timezone}` });
const tools = { get_weather: weather, get_time: time };

/** Two calls, then an answer that quotes what the tool outputs said (so it depends on the request). */
const conversation: ReadonlyArray<ScriptedReply | ((r: ScriptedRequest) => ScriptedReply)> = [
  { reasoning: { encrypted_content: 'enc-1' }, calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: null } }, { name: 'get_time', arguments: { timezone: 'Europe/Paris' } }] },
  (r) => ({ text: `Weather: ${String(r.output('call_0_0'))}; time: ${String(r.output('call_0_1'))}.` }),
];
const expectedOutputs = [
  { type: 'function_call_output', call_id: 'call_0_0', output: '{"city":"Paris","temperature":18,"unit":"celsius"}' },
  { type: 'function_call_output', call_id: 'call_0_1', output: '14:05 in Europe/Paris' },
];
const answerText = 'Weather: {"city":"Paris","temperature":18,"unit":"celsius"}; time: 14:05 in Europe/Paris.';

type Transport = 'http' | 'websocket';
async function setUp(transport: Transport, turns = conversation): Promise<Pick<RunAgentOptions, 'config' | 'socket' | 'streamId'>> {
  provider = await startScriptedProvider({ turns });
  if (transport === 'http') return { config: { baseURL: provider.baseURL, apiKey: KEY } };
  socket = connectResponsesSocket({ url: provider.webSocketURL, apiKey: KEY });
  return { socket, streamId: 'agent-lane' };
}

const run = (events: AgentStreamEvent[]) => events.find((e): e is AgentRunFinishedEvent => e.type === 'agent.run.finished');

describe.each<Transport>(['http', 'websocket'])('runAgent over %s', (transport) => {
  test('store: true — the second request carries previous_response_id and the outputs in call order, nothing else of the conversation', async () => {
    const via = await setUp(transport);
    const events = await lastValueFrom(runAgent({ model: 'gpt-5.4-mini', input: 'Weather and time in Paris?' }, { ...via, tools }).pipe(toArray()));
    const reqs = provider!.requests;
    expect(reqs.map((r) => [r.transport, r.status])).toEqual([[transport, 200], [transport, 200]]);
    expect(reqs[0]!.body).toMatchObject({ model: 'gpt-5.4-mini', input: 'Weather and time in Paris?' });
    expect(reqs[0]!.body['previous_response_id']).toBeUndefined();
    expect(reqs[0]!.body['tools']).toEqual([
      {
        type: 'function', name: 'get_weather', description: 'The weather in a city', strict: true,
        parameters: {
          type: 'object', additionalProperties: false, required: ['city', 'unit'],
          properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] } },
        },
      },
      { type: 'function', name: 'get_time', strict: true, parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'], additionalProperties: false } },
    ]);
    expect(reqs[1]!.previousResponseId).toBe(reqs[0]!.responseId);
    expect(reqs[1]!.body['input']).toEqual(expectedOutputs);
    expect({ ...reqs[1]!.body, input: undefined, previous_response_id: undefined, stream: undefined, stream_id: undefined, type: undefined })
      .toEqual({ ...reqs[0]!.body, input: undefined, stream: undefined, stream_id: undefined, type: undefined });
    if (transport === 'websocket') {
      expect(reqs.map((r) => r.lane)).toEqual(['agent-lane', 'agent-lane']);
      expect(provider!.webSocket.counters.connections).toBe(1);
      expect(reqs[0]!.body).not.toHaveProperty('stream');
    } else expect(reqs[0]!.body).toMatchObject({ stream: true });
    expect(run(events)).toMatchObject({ turns: 2, response_id: reqs[1]!.responseId, output_text: answerText });
    // The agent events sit between the turns; the Responses events of both turns are all there.
    expect(events.filter((e) => e.type === 'response.completed')).toHaveLength(2);
    expect(events.filter(isAgentEvent).map((e) => e.type)).toEqual([
      'agent.tool_call.started', 'agent.tool_call.completed', 'agent.tool_call.started', 'agent.tool_call.completed', 'agent.turn.finished', 'agent.turn.finished', 'agent.run.finished',
    ]);
  });

  test('store: false — each request resends the whole conversation, the reasoning item with its encrypted_content', async () => {
    const via = await setUp(transport);
    const events = await lastValueFrom(runAgent({ model: 'm', input: 'Weather and time in Paris?', store: false }, { ...via, tools }).pipe(toArray()));
    const reqs = provider!.requests;
    expect(reqs).toHaveLength(2);
    expect(reqs[0]!.body).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    expect(reqs[1]!.previousResponseId).toBeUndefined();
    const turn1 = reqs[0]!.responseId.replace(/^resp_/, '');
    expect(reqs[1]!.body['input']).toEqual([
      { role: 'user', content: 'Weather and time in Paris?' },
      { id: `rs_${turn1}`, type: 'reasoning', summary: [], encrypted_content: 'enc-1' },
      { id: `fc_${turn1}_0`, type: 'function_call', status: 'completed', arguments: '{"city":"Paris","unit":null}', call_id: 'call_0_0', name: 'get_weather' },
      { id: `fc_${turn1}_1`, type: 'function_call', status: 'completed', arguments: '{"timezone":"Europe/Paris"}', call_id: 'call_0_1', name: 'get_time' },
      ...expectedOutputs,
    ]);
    // The run's items are the next request's input: the conversation so far plus the answer.
    const items = run(events)!.items;
    expect(items.slice(0, 6)).toEqual(reqs[1]!.body['input']);
    expect(items[6]).toMatchObject({ type: 'message', role: 'assistant' });
  });

  test('outputText() over the whole run ends with the answer; a failing tool in the middle turn goes back as an error', async () => {
    const via = await setUp(transport, [
      { calls: [{ name: 'get_time', arguments: { timezone: 'Mars/Olympus' } }] },
      (r) => (r.toolOutputs.length === 1 ? { calls: [{ name: 'get_time', arguments: { timezone: 'Europe/Paris' } }] } : { error: { status: 400, message: 'expected one tool output' } }),
      { text: 'It is 14:05.' },
    ]);
    const flaky = defineTool({ parameters: t.type({ timezone: t.string }), execute: ({ timezone }) => {
      if (timezone.startsWith('Mars')) throw new Error(`unknown zone ${timezone}`);
      return '14:05';
    } });
    const text = await lastValueFrom(runAgent({ model: 'm', input: 'Time?' }, { ...via, tools: { get_time: flaky } }).pipe(outputText()));
    expect(text).toBe('It is 14:05.');
    const reqs = provider!.requests;
    expect(reqs.map((r) => r.toolOutputs)).toEqual([
      [],
      [{ type: 'function_call_output', call_id: 'call_0_0', output: 'Error: get_time failed: unknown zone Mars/Olympus' }],
      [{ type: 'function_call_output', call_id: 'call_1_0', output: '14:05' }],
    ]);
    expect(reqs[2]!.previousResponseId).toBe(reqs[1]!.responseId);
  });

  test('an MCP approval request, a shell call and a function call in one turn: the answers in output order, on previous_response_id', async () => {
    const mcp = { id: 'mcpr_1', type: 'mcp_approval_request', server_label: 'wiki', name: 'ask_question', arguments: '{"q":"rx"}' };
    const shell = { id: 'sh_1', type: 'shell_call', call_id: 'call_sh', status: 'completed', action: { commands: ['ls'], timeout_ms: 1000, max_output_length: 500 } };
    const via = await setUp(transport, [{ items: [mcp, shell], calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }] }, { text: 'ok' }]);
    const asked: string[] = [];
    await lastValueFrom(runAgent({ model: 'm', input: 'go', tools: [{ type: 'mcp', server_label: 'wiki', server_url: 'https://wiki.example/mcp', require_approval: 'always' }, { type: 'shell' }] }, {
      ...via, tools,
      approve: (call) => (asked.push(`${call.type} ${call.call_id}`), Promise.resolve(true)),
      handlers: { shell: (item) => ({ stdout: `ran ${(item.action as { commands: string[] }).commands.join(' ')}`, stderr: '', outcome: { type: 'exit', exit_code: 0 } }) },
    }));
    const reqs = provider!.requests;
    expect(asked).toEqual(['mcp_approval_request mcpr_1']);
    expect(reqs[0]!.body['tools']).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'mcp' }), { type: 'shell' }, expect.objectContaining({ type: 'function', name: 'get_time' })]));
    expect(reqs[1]!.previousResponseId).toBe(reqs[0]!.responseId);
    expect(reqs[1]!.body['input']).toEqual([
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true },
      { type: 'shell_call_output', call_id: 'call_sh', output: [{ stdout: 'ran ls', stderr: '', outcome: { type: 'exit', exit_code: 0 } }], max_output_length: 500 },
      { type: 'function_call_output', call_id: 'call_0_0', output: '14:05 in UTC' },
    ]);
  });

  test('unsubscribing while a tool runs aborts its signal and sends no further request', async () => {
    const via = await setUp(transport);
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let signal: AbortSignal | undefined;
    const slow = defineTool({ parameters: t.partial({ city: t.string, unit: t.string }), execute: (_a, ctx) => {
      signal = ctx.signal;
      started();
      return new Promise<string>(() => undefined);
    } });
    const sub = runAgent({ model: 'm', input: 'go' }, { ...via, tools: { get_weather: slow, get_time: time } }).subscribe();
    await running;
    sub.unsubscribe();
    expect(signal?.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(provider!.requests).toHaveLength(1);
  });
});

describe('cancellation over real loopback HTTP', () => {
  test('unsubscribing mid-turn closes the HTTP connection (the server sees the answer aborted) and sends nothing more', async () => {
    const long = 'word '.repeat(200);
    provider = await startScriptedProvider({ turns: [{ text: long }], chunkDelayMs: 20 });
    const config = { baseURL: provider.baseURL, apiKey: KEY };
    const seen: string[] = [];
    let first!: () => void;
    const streaming = new Promise<void>((r) => (first = r));
    const sub = runAgent({ model: 'm', input: 'go' }, { config, tools }).subscribe((e) => {
      seen.push(e.type);
      if (e.type === 'response.output_text.delta') first();
    });
    await streaming;
    sub.unsubscribe();
    const count = seen.length;
    await expect(provider.answerEnded(0)).resolves.toBe('aborted');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(count); // nothing after the unsubscribe
    expect(seen).not.toContain('response.completed');
    expect(provider.requests).toHaveLength(1);
  });

  test('a turn that ran to its end is answered completely (the ending is told apart)', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'short' }], chunkDelayMs: 1 });
    await lastValueFrom(runAgent({ model: 'm', input: 'go' }, { config: { baseURL: provider.baseURL, apiKey: KEY }, tools }));
    await expect(provider.answerEnded(0)).resolves.toBe('completed');
  });
});

describe('cancellation over a real WebSocket lane', () => {
  test('unsubscribing mid-turn: no event after it, no request more; the next run on the same socket gets its own answer', async () => {
    provider = await startScriptedProvider({ turns: [{ text: 'word '.repeat(200) }, { text: 'second run' }], chunkDelayMs: 10 });
    socket = connectResponsesSocket({ url: provider.webSocketURL, apiKey: KEY });
    const seen: string[] = [];
    let first!: () => void;
    const streaming = new Promise<void>((r) => (first = r));
    const sub = runAgent({ model: 'm', input: 'go' }, { socket, tools }).subscribe((e) => {
      seen.push(e.type);
      if (e.type === 'response.output_text.delta') first();
    });
    await streaming;
    sub.unsubscribe();
    const count = seen.length;
    const text = await lastValueFrom(runAgent({ model: 'm', input: 'again' }, { socket, tools }).pipe(outputText()));
    expect(text).toBe('second run');
    expect(seen).toHaveLength(count);
    expect(provider.requests.map((r) => r.body['input'])).toEqual(['go', 'again']);
    expect(provider.webSocket.counters.connections).toBe(1);
  });
});

describe('the scripted provider', () => {
  test('over WebSocket a refused turn fails the lane: the run ends with a LaneError naming the API error', async () => {
    provider = await startScriptedProvider({ turns: [{ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }] }, { error: { status: 429, message: 'slow down', code: 'rate_limit_exceeded' } }] });
    socket = connectResponsesSocket({ url: provider.webSocketURL, apiKey: KEY });
    const err = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { socket, streamId: 'lane-1', tools })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaneError);
    expect(err).toMatchObject({ stream_id: 'lane-1', message: expect.stringContaining('slow down') });
    expect(provider.requests.map((r) => r.status)).toEqual([200, 429]);
    expect(provider.requests[1]!.toolOutputs).toEqual([{ type: 'function_call_output', call_id: 'call_0_0', output: '14:05 in UTC' }]);
  });

  test('refuses, as the API does, a request that leaves a function call without its output', async () => {
    provider = await startScriptedProvider({ turns: [{ calls: [{ name: 'f', arguments: {} }] }, { text: 'never' }] });
    const config = { baseURL: provider.baseURL, apiKey: KEY };
    const first = await lastValueFrom(streamResponse({ model: 'm', input: 'x' }, config).pipe(toArray()));
    const id = (first[0] as { response: { id: string } }).response.id;
    const err = await firstValueFrom(streamResponse({ model: 'm', input: [], previous_response_id: id }, config)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    expect(err).toMatchObject({ status: 400, message: expect.stringContaining('No tool output found for function call call_0_0') });
    expect(provider.requests.map((r) => r.status)).toEqual([200, 400]);
  });
});
