// The fake provider (`startFakeProvider`, `openai-rx gateway --fake`) answers a create as the API does (issue 23):
// a plain one (neither streamed nor in the background) once complete, with its message and usage; a background
// one at once, queued, and complete on a retrieve once its timeline has run.
import OpenAI from 'openai';
import { FAKE_ANSWER, startFakeProvider, type FakeProvider } from '../../testing/index';

jest.setTimeout(60_000);

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});
const sdk = (p: FakeProvider) => new OpenAI({ apiKey: 'k', baseURL: p.baseURL, maxRetries: 0 });

describe('startFakeProvider: POST /v1/responses without stream', () => {
  // A slow timeline: a response that were answered before its end would be caught in progress.
  test.each([0, 20, 60_000])('a plain create (eventDelayMs %i) is answered complete: the message with its text, the usage', async (eventDelayMs) => {
    provider = await startFakeProvider({ eventDelayMs: eventDelayMs });
    const r = await sdk(provider).responses.create({ model: 'fake-model', input: 'Hi' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe(FAKE_ANSWER);
    expect(r.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed', content: [expect.objectContaining({ type: 'output_text', text: FAKE_ANSWER })] })]);
    expect(r.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(r.usage!.output_tokens).toBeGreaterThan(0);
    // Retrieved later, it is the same finished response.
    const again = await sdk(provider).responses.retrieve(r.id);
    expect(again).toMatchObject({ id: r.id, status: 'completed', usage: r.usage });
    expect(again.output_text).toBe(FAKE_ANSWER);
  });

  test('the answer option is the text of the plain answer too', async () => {
    provider = await startFakeProvider({ eventDelayMs: 50, answer: (body) => `You said: ${String(body['input'])}` });
    const r = await sdk(provider).responses.create({ model: 'fake-model', input: 'hello there' });
    expect(r).toMatchObject({ status: 'completed', output_text: 'You said: hello there' });
  });

  test('a background create is answered at once, queued, and is complete on a retrieve once its timeline has run', async () => {
    provider = await startFakeProvider({ eventDelayMs: 0 });
    const created = await sdk(provider).responses.create({ model: 'fake-model', input: 'Hi', background: true });
    expect(created).toMatchObject({ status: 'queued', output: [], background: true });
    const done = await sdk(provider).responses.retrieve(created.id);
    expect(done.status).toBe('completed');
    expect(done.output_text).toBe(FAKE_ANSWER);
  });

  test('a background response still running: queued, then in_progress as its events say, never complete before its end', async () => {
    provider = await startFakeProvider({ eventDelayMs: 60_000 });
    const created = await sdk(provider).responses.create({ model: 'fake-model', input: 'Hi', background: true });
    expect(created.status).toBe('queued');
    const now = await sdk(provider).responses.retrieve(created.id);
    expect(['queued', 'in_progress']).toContain(now.status);
    expect(now.output).toEqual([]);
  });
});
