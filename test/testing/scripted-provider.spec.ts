// The scripted provider's string replies: a recorded Responses transcript answers as the request's own
// response (its id replaced by `requests[n].responseId`) over HTTP as over WebSocket mode, so the next
// turn's previous_response_id names it and the call checks follow it.
import { lastValueFrom, toArray } from 'rxjs';
import { responseIdOf } from '../../lib/events/guards';
import { connectResponsesSocket, HTTPError, streamResponse } from '../../index';
import { scriptedEvents } from '../../testing/scripted-events';
import { responsesTranscript, startScriptedProvider, textTranscript, type ScriptedProvider } from '../../testing/index';

const recorded = textTranscript({ responseId: 'resp_recorded', deltas: ['Hel', 'lo', '!'] });
const withCall = responsesTranscript(
  scriptedEvents([{ id: 'fc_rec', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'call_rec', name: 'ping' }], 'resp_recorded', {}),
);
const idsOf = (events: readonly object[]) => [...new Set(events.flatMap((e) => responseIdOf(e) ?? []))];

let provider: ScriptedProvider;
afterEach(async () => {
  await provider?.close();
});

describe('startScriptedProvider: a string reply', () => {
  test('over HTTP, its events carry the response id the provider recorded, not the transcript\'s', async () => {
    provider = await startScriptedProvider({ turns: [recorded] });
    const events = await lastValueFrom(streamResponse({ model: 'm', input: 'hi' }, { baseURL: provider.baseURL, apiKey: 'test' }).pipe(toArray()));
    expect(idsOf(events)).toEqual([provider.requests[0]?.responseId]);
    expect(events.map((e) => e.type)).toEqual([...recorded.matchAll(/^event: (.+)$/gm)].map((m) => m[1]));
  });

  test('over WebSocket mode, the same', async () => {
    provider = await startScriptedProvider({ turns: [recorded] });
    const socket = connectResponsesSocket({ url: provider.webSocketURL, apiKey: 'test' });
    try {
      const events = await lastValueFrom(socket.response({ model: 'm', input: 'hi' }).pipe(toArray()));
      expect(idsOf(events)).toEqual([provider.requests[0]?.responseId]);
    } finally {
      socket.close();
    }
  });

  test("its function calls must be answered by the next turn that names it", async () => {
    provider = await startScriptedProvider({ turns: [withCall, { text: 'done' }] });
    const config = { baseURL: provider.baseURL, apiKey: 'test' };
    const first = await lastValueFrom(streamResponse({ model: 'm', input: 'hi' }, config).pipe(toArray()));
    const id = idsOf(first)[0];
    expect(id).toBe(provider.requests[0]?.responseId);
    const refused = lastValueFrom(streamResponse({ model: 'm', input: [], previous_response_id: id }, config));
    await expect(refused).rejects.toBeInstanceOf(HTTPError);
    expect(provider.requests[1]?.status).toBe(400);
  });
});
