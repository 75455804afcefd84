// startTestServer answers GET /v1/models (issue 23) as the API does: a list of the models a request can name
// (the transcripts' names, then the models they were recorded with), and /v1/models/{id}; neither takes a fault.
import OpenAI from 'openai';
import { chatTranscript, startTestServer, textTranscript, type TestServer } from '../../testing/index';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('the list shape, the transcripts by name and by recorded model, a retrieve, a 404 for an unknown model', async () => {
  const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'chat-recorded', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] };
  server = await startTestServer({
    transcripts: { alpha: textTranscript({ model: 'gpt-recorded', deltas: ['a'] }), beta: textTranscript({ model: 'gpt-recorded', deltas: ['b'] }), talk: chatTranscript([chunk]) },
    faults: [{ type: 'status', status: 500 }],
  });
  const res = await fetch(`${server.baseURL}/models`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { object: string; data: Array<{ id: string; object: string; created: number; owned_by: string }> };
  expect(body.object).toBe('list');
  expect(body.data.map((m) => m.id)).toEqual(['alpha', 'beta', 'talk', 'gpt-recorded', 'chat-recorded']);
  for (const m of body.data) expect(m).toEqual({ id: m.id, object: 'model', created: expect.any(Number), owned_by: 'openai-rx' });
  const sdk = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
  expect(await sdk.models.retrieve('beta')).toMatchObject({ id: 'beta', object: 'model' });
  await expect(sdk.models.retrieve('gpt-nope')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  expect(server.requests.map((r) => [r.route, r.status])).toEqual([['models.list', 200], ['models.retrieve', 200], ['models.retrieve', 404]]);
  // The scripted fault is still there for the first API request.
  await expect(sdk.responses.create({ model: 'alpha', input: 'x' })).rejects.toMatchObject({ status: 500 });
});
