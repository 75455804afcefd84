import { readdirSync } from 'node:fs';
import {
  DecodeError, fromChatCompletionsSSE, LimitExceededError, ResponseStreamError, StreamInterruptedError,
  type ChatCompletionsSSEOptions, type StreamSource,
} from '../../index';
import { fixture, FIXTURES_DIR, payloads } from '../helpers/fixtures';
import { cutAt, iterate, readable, run, utf8, withEol } from './sources';

const decode = (source: StreamSource, options?: ChatCompletionsSSEOptions) => run(fromChatCompletionsSSE(source, options));
const CHAT = readdirSync(FIXTURES_DIR).filter((f) => f.startsWith('chat-') && f.endsWith('.sse'));
const DONE = 'data: [DONE]\n\n';

test('the chat fixture set is complete', () => {
  expect(CHAT).toEqual(expect.arrayContaining(['chat-text.sse', 'chat-tools.sse', 'chat-reasoning.sse', 'chat-refusal.sse']));
});

describe.each(CHAT)('%s', (name) => {
  const sse = fixture(name);
  const expected = payloads(sse);

  test('decodes to exactly its chunks and completes at [DONE]', async () => {
    expect(sse.endsWith(DONE)).toBe(true);
    const out = await decode(sse);
    expect(out.values).toEqual(expected);
    expect(out.error).toBeUndefined();
    expect(out.completed).toBe(true);
  });

  test('ends with a usage chunk with no choices', () => {
    const last = expected.at(-1) as { choices: unknown[]; usage: { total_tokens: number } };
    expect(last.choices).toEqual([]);
    expect(last.usage.total_tokens).toBeGreaterThan(0);
  });

  test.each([['CR', '\r'], ['CRLF', '\r\n']] as const)('%s line ends, streamed', async (_n, eol) => {
    const bytes = utf8(withEol(sse, eol));
    const out = await decode(iterate(cutAt(bytes, Array.from({ length: 40 }, (_, i) => i * 97 + 1))));
    expect(out.values).toEqual(expected);
    expect(out.completed).toBe(true);
  });

  test('without [DONE]: StreamInterruptedError, or completion with requireDone: false', async () => {
    const body = sse.slice(0, -DONE.length);
    const out = await decode(body);
    expect(out.values).toEqual(expected);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
    expect(out.error).toMatchObject({ responseId: expected[0]!['id'], lastSequenceNumber: expected.length - 1 });
    const lenient = await decode(readable([utf8(body)]), { requireDone: false });
    expect(lenient.values).toEqual(expected);
    expect(lenient.completed).toBe(true);
  });
});

describe('chat specifics', () => {
  const sse = fixture('chat-text');
  const chunks = payloads(sse);

  test('tool call fragments: id and name on the first fragment only, arguments merge by index into JSON', async () => {
    const out = await decode(fixture('chat-tools'));
    const args = new Map<number, string>();
    const ids = new Map<number, string>();
    for (const c of out.values) {
      for (const tc of c.choices[0]?.delta?.tool_calls ?? []) {
        // OpenAI always numbers fragments (providers that do not are read by fromChatChunks).
        if (tc.index === undefined) throw new Error('a fragment without index');
        if (tc.id) {
          expect(ids.has(tc.index)).toBe(false);
          ids.set(tc.index, tc.id);
          expect(tc.function?.name).toBe('get_weather');
        } else {
          expect(tc.function?.name).toBeUndefined();
        }
        args.set(tc.index, (args.get(tc.index) ?? '') + (tc.function?.arguments ?? ''));
      }
    }
    expect([...args.keys()]).toEqual([0, 1]);
    expect([...args.values()].map((a) => JSON.parse(a))).toEqual([{ city: 'Paris' }, { city: 'Tokyo' }]);
    expect(out.values.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
  });

  test('reasoning_content deltas come through', async () => {
    const out = await decode(fixture('chat-reasoning'));
    const reasoning = out.values.map((c) => c.choices[0]?.delta?.reasoning_content ?? '').join('');
    expect(reasoning).toBe('The user wants 2+2. That is 4.');
  });

  test('a chunk whose choice has no delta is accepted', async () => {
    const noDelta = { ...chunks[0], choices: [{ index: 0, finish_reason: 'stop' }] };
    const out = await decode(`data: ${JSON.stringify(chunks[0])}\n\ndata: ${JSON.stringify(noDelta)}\n\n${DONE}`);
    expect(out.values).toEqual([chunks[0], noDelta]);
    expect(out.completed).toBe(true);
  });

  test('anything after [DONE] is not read', async () => {
    let cancelled = 0;
    const out = await decode(readable([utf8(sse), utf8('data: {"id":"late"}\n\n')], { close: false, onCancel: () => cancelled++ }));
    expect(out.values).toEqual(chunks);
    expect(out.completed).toBe(true);
    expect(cancelled).toBe(1);
  });

  test('an {"error": …} payload ends the stream with a ResponseStreamError', async () => {
    const err = { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: 'server_error' } };
    const out = await decode(`data: ${JSON.stringify(chunks[0])}\n\ndata: ${JSON.stringify(chunks[1])}\n\ndata: ${JSON.stringify(err)}\n\n`);
    expect(out.values).toEqual(chunks.slice(0, 2));
    expect(out.error).toBeInstanceOf(ResponseStreamError);
    expect(out.error).toMatchObject({ code: 'server_error', param: null, responseId: chunks[0]!['id'] });
    expect((out.error as Error).message).toContain('The server had an error');
  });

  test('an event-named error payload (`event: error`) is read the same way', async () => {
    const out = await decode(`event: error\ndata: {"error":{"message":"Overloaded","code":null,"param":null}}\n\n`);
    expect(out.error).toBeInstanceOf(ResponseStreamError);
    expect((out.error as Error).message).toContain('Overloaded');
  });

  test('malformed JSON is a DecodeError with a short excerpt', async () => {
    const out = await decode(`data: ${JSON.stringify(chunks[0])}\n\ndata: {"id":"chatcmpl-x","choices":[${'{"index":0},'.repeat(2000)}\n\n`);
    expect(out.values).toHaveLength(1);
    expect(out.error).toBeInstanceOf(DecodeError);
    expect((out.error as DecodeError).message).toMatch(/^malformed JSON \(\d+ characters\) where a JSON object was expected, event type "chat.completion.chunk", sequence_number 1$/);
    expect((out.error as DecodeError).excerpt).toMatch(/^"\{\\"id\\":\\"chatcmpl-x/);
  });

  test("a chunk failing its codec is a DecodeError; validate: 'off' lets it through", async () => {
    const bad = { ...chunks[1], choices: [{ index: '0', delta: { content: 'x' } }] };
    const text = `data: ${JSON.stringify(chunks[0])}\n\ndata: ${JSON.stringify(bad)}\n\n${DONE}`;
    const strict = await decode(text);
    expect(strict.error).toBeInstanceOf(DecodeError);
    expect(strict.error).toMatchObject({ path: 'choices.0.index', sequenceNumber: 1 });
    const off = await decode(text, { validate: 'off' });
    expect(off.values).toEqual([chunks[0], bad]);
    expect(off.completed).toBe(true);
  });

  test('a body cut inside a chunk is an interruption', async () => {
    const text = sse.slice(0, sse.indexOf('\n\n', 1000) + 2) + sse.slice(sse.indexOf('\n\n', 1000) + 2, sse.indexOf('\n\n', 1000) + 40);
    const out = await decode(text);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
  });

  test('maxEventSize applies to chunks', async () => {
    const out = await decode(sse, { maxEventSize: 100 });
    expect(out.error).toBeInstanceOf(LimitExceededError);
  });
});
