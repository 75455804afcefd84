// runAgent(...).pipe(outputText()) over the scripted provider, over HTTP and over a WebSocket connection: every
// turn's text in order, the final answer last, although each turn's items start again at output_index 0.
import * as t from 'io-ts';
import { lastValueFrom, toArray } from 'rxjs';
import { defineTool, runAgent, type RunAgentOptions } from '../../agent/index';
import { startScriptedProvider, type ScriptedProvider, type ScriptedReply, type ScriptedRequest } from '../../testing/index';
import { connectResponsesSocket, type ResponsesSocket } from '../../lib/ws/socket';
import { accumulateResponse } from '../../operators/accumulateResponse';
import { outputText } from '../../operators/outputText';

let provider: ScriptedProvider | undefined;
let socket: ResponsesSocket | undefined;
afterEach(async () => {
  socket?.close();
  socket = undefined;
  await provider?.close();
  provider = undefined;
});

const lookup = defineTool({ parameters: t.type({ q: t.string }), execute: ({ q }) => `found ${q}` });

// Turn 1: reasoning, a call and text (the text at output_index 2); turn 2: a call only; turn 3: the answer at 0.
const turns: ReadonlyArray<ScriptedReply | ((r: ScriptedRequest) => ScriptedReply)> = [
  { reasoning: { encrypted_content: 'enc' }, calls: [{ name: 'lookup', arguments: { q: 'a' } }], text: 'Let me look.' },
  { calls: [{ name: 'lookup', arguments: { q: 'b' } }] },
  (r) => ({ text: `Both: ${String(r.output('call_1_0'))}.` }),
];
const answer = 'Both: found b.';

async function via(transport: 'http' | 'websocket'): Promise<Pick<RunAgentOptions, 'config' | 'socket' | 'streamId'>> {
  provider = await startScriptedProvider({ turns });
  if (transport === 'http') return { config: { baseURL: provider.baseURL, apiKey: 'sk-test-text' } };
  socket = connectResponsesSocket({ url: provider.webSocketURL, apiKey: 'sk-test-text' });
  return { socket, streamId: 'text-lane' };
}

describe.each(['http', 'websocket'] as const)('runAgent over %s', (transport) => {
  test('outputText(): every turn\'s text in order, ending with the final answer', async () => {
    const options = { ...(await via(transport)), tools: { lookup } };
    const values = await lastValueFrom(runAgent({ model: 'm', input: 'Find a and b.' }, options).pipe(outputText(), toArray()));
    const text = values.at(-1)!;
    expect(text.endsWith(answer)).toBe(true);
    expect(text).toBe(`Let me look.\n\n${answer}`);
    // It only grows: a display never loses a turn's words.
    values.forEach((v, i) => i > 0 && expect(v.startsWith(values[i - 1]!)).toBe(true));
  });

  test('accumulateResponse(): the last value is the final turn\'s response alone', async () => {
    const options = { ...(await via(transport)), tools: { lookup } };
    const last = await lastValueFrom(runAgent({ model: 'm', input: 'Find a and b.' }, options).pipe(accumulateResponse()));
    expect(last.status).toBe('completed');
    expect(last.id).toBe(provider!.requests.at(-1)!.responseId);
    expect(last.output.map((i) => i.type)).toEqual(['message']);
  });
});
