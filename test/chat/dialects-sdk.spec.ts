// The official SDK's own stream accumulation (chat.completions.stream) reads the same dialect recordings
// over a real node:http server; where it can read them, it agrees with what fromChatChunks makes of them.
import OpenAI from 'openai';
import { bridged, dialect, dialectFiles, summarize } from './dialects';
import { startChatServer } from './server';

type Json = Record<string, unknown>;

/** Recordings the SDK cannot accumulate (it throws or garbles them), and why: here the bridge goes further. */
const SDK_CANNOT: Record<string, RegExp | 'garbled'> = {
  'audio.sse': /choices is not iterable/, // usage and metadata alone in a chunk without `choices`
  'gemini.sse': /invalid tool call index/, // whole tool calls without `index`
  'mistral.sse': /invalid tool call index/,
  'ollama.sse': /invalid tool call index/,
  'content-parts.sse': 'garbled', // `content` as typed parts: concatenated as "[object Object]"
};

/** The audio recording without its choices-less last chunk, which the SDK can read. */
const AUDIO_WITH_CHOICES = 'audio-with-choices';
const bodies = new Map<string, string>(dialectFiles().map((f) => [f, dialect(f)]));
bodies.set(AUDIO_WITH_CHOICES, dialect('audio').split('\n\n').filter((block) => !block.startsWith('data: {') || block.includes('"choices"')).join('\n\n'));

let server: Awaited<ReturnType<typeof startChatServer>>;
let baseURL: string;

beforeAll(async () => {
  server = await startChatServer(({ params }) => bodies.get(params.model));
  baseURL = server.baseURL;
});
afterAll(() => server.close());

const sdkFinal = (model: string) =>
  new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0 }).chat.completions.stream({ model, messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();

describe('the official SDK and fromChatChunks agree on each dialect it can read', () => {
  it.each(dialectFiles().filter((f) => !(f in SDK_CANNOT)))('%s: text, tool calls, finish, usage and logprobs', async (name) => {
    const sdk = await sdkFinal(name);
    const events = await bridged(dialect(name));
    const final = (events[events.length - 1] as unknown as { response: Json }).response;
    const ours = summarize(final);
    const choice = sdk.choices[0]!;
    expect(choice.message.content ?? '').toBe(ours.text);
    const calls = (choice.message.tool_calls ?? []).map((t) =>
      t.type === 'custom'
        ? { type: 'custom_tool_call', call_id: t.id, name: t.custom.name, input: t.custom.input }
        : { type: 'function_call', call_id: t.id, name: t.function.name, input: t.function.arguments },
    );
    expect(calls).toEqual(ours.calls);
    expect(choice.finish_reason).toBe(calls.length > 0 ? 'tool_calls' : 'stop');
    expect(ours.status).toBe('completed');
    expect((choice.logprobs?.content ?? []).map((l) => l.token)).toEqual(ours.logprobs);
    // The SDK reads usage only from the chunk itself (not from the choice or x_groq).
    if (sdk.usage) expect([sdk.usage.prompt_tokens, sdk.usage.completion_tokens, sdk.usage.total_tokens]).toEqual([ours.usage?.input, ours.usage?.output, ours.usage?.total]);
    expect(sdk.model).toBe(ours.model);
  });

  it('audio: the same transcript, data, id and expiry (without the chunk that has no choices, which the SDK cannot read)', async () => {
    const sdk = await sdkFinal(AUDIO_WITH_CHOICES);
    const events = await bridged(dialect('audio'));
    const message = ((events[events.length - 1] as unknown as { response: Json }).response['output'] as Json[])[0]!;
    const part = (message['content'] as Json[])[0]!;
    const audio = sdk.choices[0]!.message.audio!;
    expect({ type: 'output_audio', data: audio.data, transcript: audio.transcript, id: audio.id, expires_at: audio.expires_at }).toEqual(part);
  });

  it.each(Object.entries(SDK_CANNOT))('%s is beyond the SDK (%s), and fromChatChunks reads it', async (name, how) => {
    const result = sdkFinal(name);
    if (how === 'garbled') expect((await result).choices[0]!.message.content).toContain('[object Object]');
    else await expect(result).rejects.toThrow(how);
    const events = await bridged(dialect(name));
    expect(events[events.length - 1]!.type).toBe('response.completed');
  });
});
