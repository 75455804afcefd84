// examples/agent.ts end to end against the scripted fake provider, over HTTP and over a WebSocket lane.
import { main } from '../../examples/agent';
import { startScriptedProvider, type ScriptedProvider } from '../../testing/index';

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

test.each([false, true])('examples/agent.ts (webSocket: %s): runs both calls, sends their outputs back, returns the answer', async (webSocket) => {
  provider = await startScriptedProvider({
    turns: [
      { calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: null } }, { name: 'get_time', arguments: { timezone: 'Europe/Paris' } }] },
      (r) => {
        const weather = JSON.parse(String(r.output('call_0_0'))) as { temperature: number };
        const time = JSON.parse(String(r.output('call_0_1'))) as { time: string };
        return { text: `It is ${weather.temperature} °C in Paris, and the local time is ${time.time}.` };
      },
    ],
  });
  const texts: string[] = [];
  const r = await main({ baseURL: provider.baseURL, apiKey: 'sk-test-example', webSocket, onText: (t) => texts.push(t) });
  expect(r.text).toBe('It is 18 °C in Paris, and the local time is 14:05.');
  expect(texts[texts.length - 1]).toBe(r.text);
  expect(r.turns).toBe(2);
  expect(r.log).toEqual([
    'turn 1: get_weather({"city":"Paris","unit":null})',
    'turn 1: get_time({"timezone":"Europe/Paris"})',
    'turn 1: get_time → {"timezone":"Europe/Paris","time":"14:05"}',
    'turn 1: get_weather → {"city":"Paris","temperature":18,"unit":"celsius"}',
    `turn 1 finished (${provider.requests[0]!.responseId})`,
    `turn 2 finished (${provider.requests[1]!.responseId})`,
    'done after 2 turns',
  ]);
  expect(provider.requests.map((q) => q.transport)).toEqual(webSocket ? ['websocket', 'websocket'] : ['http', 'http']);
  expect(provider.requests[1]!.previousResponseId).toBe(provider.requests[0]!.responseId);
  expect(provider.requests[1]!.body['input']).toEqual([
    { type: 'function_call_output', call_id: 'call_0_0', output: '{"city":"Paris","temperature":18,"unit":"celsius"}' },
    { type: 'function_call_output', call_id: 'call_0_1', output: '{"timezone":"Europe/Paris","time":"14:05"}' },
  ]);
  expect(r.items[0]).toEqual({ role: 'user', content: 'What is the weather and the time in Paris?' });
});

test.each([false, true])('examples/agent.ts (webSocket: %s): cancelled while get_weather runs: the run ends there and nothing more is sent', async (webSocket) => {
  provider = await startScriptedProvider({
    turns: [{ calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: null } }] }, { text: 'never' }],
  });
  const controller = new AbortController();
  const r = await main({
    baseURL: provider.baseURL, apiKey: 'sk-test-example', webSocket,
    onEvent: (e) => e.type === 'agent.tool_call.started' && controller.abort(),
    signal: controller.signal,
  });
  expect(r).toMatchObject({ cancelled: true, text: '', turns: 0 });
  expect(r.log).toEqual(['turn 1: get_weather({"city":"Paris","unit":null})']);
  await new Promise((resolve) => setTimeout(resolve, 100)); // past lookUpWeather's 10 ms, had it not been stopped
  expect(provider.requests).toHaveLength(1);
});
