// A turn cut off mid-stream is resumed with resumeFrom (the `resume` option) and the run goes on as if nothing happened.
import * as t from 'io-ts';
import { lastValueFrom, Subject, tap, toArray } from 'rxjs';
import { InvalidOptionError } from '../../lib/errors';
import { defineTool, isAgentEvent, runAgent, type AgentInputItem, type AgentTurnFinishedEvent } from '../../agent/index';
import { StreamInterruptedError } from '../../lib/errors';
import { startScriptedProvider, startTestServer, type ScriptedProvider, type TestServer } from '../../testing/index';
import { outputText } from '../../operators/outputText';
import { demoToolAnswer, demoToolCalls } from '../../cli/transcripts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The demo transcripts, chosen by what the request carries (tool outputs → the answer). */
const byInput: typeof fetch = (input, init) => {
  const body = JSON.parse(String(init?.body ?? '{}')) as { input?: unknown };
  const answer = Array.isArray(body.input) && body.input.some((i: { type?: string }) => i.type === 'function_call_output');
  return fetch(input as string, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-openai-rx-transcript': answer ? 'answer' : 'tools' } });
};

const tools = {
  get_weather: defineTool({ parameters: t.type({ city: t.string, unit: t.string }), execute: ({ city }) => `sunny in ${city}` }),
  get_time: defineTool({ parameters: t.type({ timezone: t.string }), execute: () => '14:05' }),
};

test('resume: a turn dropped mid-stream continues from its last event (GET …?starting_after=N); the run completes', async () => {
  server = await startTestServer({ transcripts: { tools: demoToolCalls(), answer: demoToolAnswer() }, faults: [{ type: 'drop', afterEvents: 6 }] });
  const config = { baseURL: server.baseURL, apiKey: 'sk-test-resume', fetch: byInput };
  const events = await lastValueFrom(runAgent({ model: 'm', input: 'Weather?' }, { tools, config, resume: { delayMs: 0 } }).pipe(toArray()));
  expect(server.requests.map((r) => `${r.method} ${r.route} ${r.query['starting_after'] ?? ''}`.trim())).toEqual([
    'POST responses.create', 'GET responses.stream 5', 'POST responses.create',
  ]);
  // Every event of the first turn exactly once, in order.
  const turn1 = events.slice(0, events.findIndex((e) => e.type === 'response.completed') + 1).map((e) => (e as { sequence_number?: number }).sequence_number);
  expect(turn1).toEqual(turn1.map((_, i) => i));
  expect(server.requests[2]!.body).toMatchObject({ previous_response_id: 'resp_demo_tools', input: [
    { type: 'function_call_output', call_id: 'call_demo_0', output: 'sunny in Paris' },
    { type: 'function_call_output', call_id: 'call_demo_1', output: '14:05' },
  ] });
  expect(events[events.length - 1]).toMatchObject({ type: 'agent.run.finished', turns: 2 });
});

test('without resume, the interruption ends the run with the retryable StreamInterruptedError and nothing more is sent', async () => {
  server = await startTestServer({ transcripts: { tools: demoToolCalls(), answer: demoToolAnswer() }, faults: [{ type: 'drop', afterEvents: 6 }] });
  const err = await lastValueFrom(runAgent({ model: 'm', input: 'Weather?' }, { tools, config: { baseURL: server.baseURL, apiKey: 'k', fetch: byInput } }).pipe(toArray()))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(StreamInterruptedError);
  expect(err).toMatchObject({ retryable: true, responseId: 'resp_demo_tools' });
  expect(server.requests).toHaveLength(1);
});

describe('continuing by hand after a run ended with an error (as docs/agents.md says)', () => {
  let scripted: ScriptedProvider | undefined;
  afterEach(async () => {
    await scripted?.close();
    scripted = undefined;
  });
  const time = { get_time: defineTool({ parameters: t.type({ timezone: t.string }), execute: ({ timezone }) => `14:05 in ${timezone}` }) };

  test('store: true — previous_response_id of the last agent.turn.finished and its outputs as input', async () => {
    scripted = await startScriptedProvider({ turns: [
      { calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }] },
      { error: { status: 503, message: 'overloaded' } },
      { text: 'It is 14:05.' },
    ] });
    const config = { baseURL: scripted.baseURL, apiKey: 'sk-test-continue' };
    const request = { model: 'm', input: 'Time?' };
    let last: AgentTurnFinishedEvent | undefined;
    const err = await lastValueFrom(runAgent(request, { config, tools: time }).pipe(tap((e) => isAgentEvent(e) && e.type === 'agent.turn.finished' && (last = e)))).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, retryable: true });
    expect(last).toMatchObject({ turn: 1 });
    const text = await lastValueFrom(runAgent({ ...request, previous_response_id: last!.response_id, input: [...last!.outputs] }, { config, tools: time }).pipe(outputText()));
    expect(text).toBe('It is 14:05.');
    expect(scripted.requests[2]).toMatchObject({ previousResponseId: scripted.requests[0]!.responseId, status: 200 });
    expect(scripted.requests[2]!.toolOutputs).toEqual([{ type: 'function_call_output', call_id: 'call_0_0', output: '14:05 in UTC' }]);
  });

  test('store: false — the input items, then each finished turn\'s items and outputs', async () => {
    scripted = await startScriptedProvider({ turns: [
      { reasoning: { encrypted_content: 'enc' }, calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }] },
      { error: { status: 503, message: 'overloaded' } },
      { text: 'It is 14:05.' },
    ] });
    const config = { baseURL: scripted.baseURL, apiKey: 'sk-test-continue' };
    const request = { model: 'm', input: 'Time?', store: false };
    const items: AgentInputItem[] = [{ role: 'user', content: 'Time?' }];
    const err = await lastValueFrom(runAgent(request, { config, tools: time }).pipe(tap((e) => isAgentEvent(e) && e.type === 'agent.turn.finished' && items.push(...e.items, ...e.outputs)))).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503 });
    const text = await lastValueFrom(runAgent({ ...request, input: items }, { config, tools: time }).pipe(outputText()));
    expect(text).toBe('It is 14:05.');
    expect(scripted.requests[2]!.body['input']).toEqual(scripted.requests[1]!.body['input']);
    expect(scripted.requests[2]).toMatchObject({ previousResponseId: undefined, status: 200 });
  });
});

test('resume is for HTTP turns: with a socket or a transport of your own it is an InvalidOptionError, not silently ignored', async () => {
  const transport = () => { throw new Error('never called'); };
  const socket = { events$: new Subject<never>(), send: () => undefined };
  for (const via of [{ socket }, { transport }]) {
    const err = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { ...via, resume: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ option: 'resume', message: expect.stringMatching(/^resume: HTTP turns only/) });
  }
});
