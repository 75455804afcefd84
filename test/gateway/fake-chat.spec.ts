// The fake provider behind the gateway (what `openai-rx gateway --fake` runs) answers a non-streaming chat
// completion, which the gateway forwards as it is: the SDK's chat.completions.create gets a chat.completion.
import OpenAI from 'openai';
import { FAKE_ANSWER } from '../../testing/index';
import { startHarness, words, type Harness } from './helpers';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ provider: { eventDelayMs: 0 } });
});
afterAll(() => h.close());

const client = () => new OpenAI({ apiKey: 'sk-test-user-one-0000', baseURL: h.baseURL, maxRetries: 0 });

describe('the fake provider behind the gateway: chat completions', () => {
  it('chat.completions.create without stream: a chat.completion with the answer, forwarded by the gateway', async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: 'fake-model', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ object: 'chat.completion', model: 'fake-model', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: FAKE_ANSWER } }] });
    expect(data.id).toMatch(/^chatcmpl_fake_/);
    expect(data.usage!.completion_tokens).toBe(FAKE_ANSWER.split(' ').length);
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(h.provider.requests.at(-1)).toEqual({ method: 'POST', url: '/v1/chat/completions' });
  });

  it('the answer option (a function of the request body) answers chat too; each completion has its own id', async () => {
    const g = await startHarness({ provider: { answer: (body) => (Array.isArray(body['messages']) ? words(5) : 'responses') } });
    try {
      const c = new OpenAI({ apiKey: 'k', baseURL: g.baseURL, maxRetries: 0 });
      const a = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
      const b = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
      expect(a.choices[0]!.message.content).toBe(words(5));
      expect(a.id).not.toBe(b.id);
    } finally {
      await g.close();
    }
  });

  it('a chat request without messages is the API\'s 400 (missing_required_parameter)', async () => {
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fake-model' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('missing_required_parameter');
  });

  it('streamed chat is still served by the gateway from the Responses API (the fake is asked for a response)', async () => {
    const before = h.provider.requests.length;
    const stream = await client().chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(FAKE_ANSWER);
    expect(h.provider.requests.slice(before)).toEqual([{ method: 'POST', url: '/v1/responses' }]);
  });
});
