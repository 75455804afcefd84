// asOneResponse: the run read as one response by the operators that read a single one.
import * as t from 'io-ts';
import { filter, lastValueFrom, map, toArray } from 'rxjs';
import { defineTool, isAgentEvent, runAgent, type AgentStreamEvent } from '../../agent/index';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { startScriptedProvider, type ScriptedProvider } from '../../testing/index';
import { outputText } from '../../operators/outputText';
import { toChatChunks } from '../../operators/toChatChunks';
import { toResponsesSSE } from '../../operators/toResponsesSSE';

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const lookup = defineTool({ parameters: t.type({ q: t.string }), execute: ({ q }) => `found ${q}` });

async function start() {
  provider = await startScriptedProvider({
    turns: [
      { text: 'Let me look. ', calls: [{ name: 'lookup', arguments: { q: 'a' } }] },
      { calls: [{ name: 'lookup', arguments: { q: 'b' } }] },
      (r) => ({ text: `Both: ${String(r.output('call_1_0'))}.` }),
    ],
  });
  return { config: { baseURL: provider.baseURL, apiKey: 'sk-test-one' }, tools: { lookup } };
}
const request = { model: 'm', input: 'Find a and b.' };

test('the text of every turn in order, sequence numbers 0..n-1, one created and one terminal event, the answered calls left out', async () => {
  const options = await start();
  const events = await lastValueFrom(runAgent(request, { ...options, asOneResponse: true }).pipe(toArray()));
  const responses = events.filter((e): e is ResponseStreamEvent => !isAgentEvent(e));
  expect(responses.map((e) => (e as { sequence_number?: number }).sequence_number)).toEqual(responses.map((_, i) => i));
  expect(responses.filter((e) => e.type === 'response.created')).toHaveLength(1);
  expect(responses.filter((e) => e.type === 'response.completed')).toHaveLength(1);
  const last = responses[responses.length - 1] as { type: string; response: { output: Array<{ type: string; content: Array<{ text: string }> }> } };
  expect(last.type).toBe('response.completed');
  expect(last.response.output.map((i) => [i.type, i.content[0]?.text])).toEqual([['message', 'Let me look. '], ['message', 'Both: found b.']]);
  const indices = responses.filter((e) => e.type === 'response.output_item.done').map((e) => (e as { output_index: number }).output_index);
  expect(indices).toEqual([0, 1]);
  expect(responses.some((e) => e.type.startsWith('response.function_call_arguments'))).toBe(false);
  // The calls are reported by the agent events.
  expect(events.filter((e) => e.type === 'agent.tool_call.completed')).toHaveLength(2);
  expect(await lastValueFrom(runAgent(request, { ...(await restart()), asOneResponse: true }).pipe(outputText()))).toBe('Let me look. Both: found b.');
  // The view changes what is shown, not what is sent: the (second) run's three requests were all accepted.
  expect(provider!.requests.map((r) => r.status)).toEqual([200, 200, 200]);
});

async function restart() {
  await provider?.close();
  return start();
}

test('toChatChunks reads the whole run and ends with the answer; toResponsesSSE round-trips through the decoder', async () => {
  const options = await start();
  const run$ = runAgent(request, { ...options, asOneResponse: true });
  const chunks = await lastValueFrom(run$.pipe(filter((e): e is ResponseStreamEvent => !isAgentEvent(e as AgentStreamEvent)), toChatChunks(), toArray()));
  expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Let me look. Both: found b.');
  expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0]?.finish_reason)).toEqual(['stop']);
  expect(provider!.requests).toHaveLength(3);
  const sse = (await lastValueFrom((await restartRun()).pipe(toResponsesSSE(), toArray()))).join('');
  const decoded = await lastValueFrom(fromResponsesSSE(sse).pipe(map((e) => e.type), toArray()));
  expect(decoded.filter((type) => type === 'response.output_text.done')).toHaveLength(2);
  expect(decoded.filter((type) => type === 'response.created' || type === 'response.completed')).toEqual(['response.created', 'response.completed']);
  expect(decoded[decoded.length - 1]).toBe('response.completed');
});

async function restartRun() {
  const options = await restart();
  return runAgent(request, { ...options, asOneResponse: true });
}
