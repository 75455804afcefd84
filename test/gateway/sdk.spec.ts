// The official `openai` SDK against the gateway over real loopback sockets: a streamed response passes
// through unchanged (every event the upstream sent, each once, in order), and a stream is resumed with the
// SDK's own retrieve({ stream: true, starting_after }).
import OpenAI from 'openai';
import { startHarness, seqs, words, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ provider: { answer: words(40) } });
});
afterAll(() => h.close());

const client = (key = 'sk-test-user-one-0000') => new OpenAI({ apiKey: key, baseURL: h.baseURL, maxRetries: 0 });

describe('the official SDK through the gateway', () => {
  it('streams a response: every upstream event once, in order, with the same payloads', async () => {
    const stream = await client().responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const got: Array<Record<string, unknown>> = [];
    for await (const e of stream) got.push(e as unknown as Record<string, unknown>);
    const id = (got[0] as { response: { id: string } }).response.id;
    const sent = h.provider.responses.get(id)!.events;
    expect(got).toEqual(sent);
    expect(seqs(got)).toEqual(sent.map((_, i) => i));
    expect(got[got.length - 1]!['type']).toBe('response.completed');
  });

  it("the SDK's stream helper gets the final text", async () => {
    const final = await client().responses.stream({ model: 'fake-model', input: 'Hi' }).finalResponse();
    expect(final.output_text).toBe(words(40));
  });

  it('resumes with retrieve({ stream: true, starting_after }) from the log: the rest, once', async () => {
    const stream = await client().responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const first: Array<Record<string, unknown>> = [];
    for await (const e of stream) {
      first.push(e as unknown as Record<string, unknown>);
      if (first.length === 10) break; // the client leaves mid-stream: the gateway goes on recording
    }
    const id = (first[0] as { response: { id: string } }).response.id;
    const rest: Array<Record<string, unknown>> = [];
    const resumed = await client().responses.retrieve(id, { stream: true, starting_after: 9 });
    for await (const e of resumed) rest.push(e as unknown as Record<string, unknown>);
    expect([...first, ...rest]).toEqual(h.provider.responses.get(id)!.events);
  });

  it('forwards non-streaming requests as they are', async () => {
    const r = await client().responses.create({ model: 'fake-model', input: 'Hi' });
    expect(r.output_text).toBe(words(40));
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
  });
});
