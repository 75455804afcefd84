import { createSSEScanner } from '../../lib/codecs';
import {
  DecodeError, fromChatCompletionsSSE, fromResponsesSSE, ResponseStreamError, StreamInterruptedError,
  accumulateText, type ChatCompletionChunk,
} from '../../index';
import { lastValueFrom, toArray } from 'rxjs';
import { cutAt, iterate, readable, run, utf8 } from '../decode/sources';

// The SSE inputs the official `openai` Node SDK pins in its own tests (tests/streaming.test.ts,
// tests/internal/decoders/line.test.ts, tests/lib/streaming-core.test.ts, streaming-named-error-events,
// streaming-sentinel-integrity, ChatCompletionStream / ResponseStream tests), rewritten with our own payloads
// and run through createSSEScanner and the two decoders. Where openai-rx answers differently, the test says
// so and why.

type Full = [event: string | undefined, data: string, unterminated: boolean];

/** A scanner fed the chunks one by one; `events` is what it has dispatched so far. */
function scanner() {
  const events: Full[] = [];
  const s = createSSEScanner((e, d, u) => events.push([e, d, u]));
  return { events, feed: (...chunks: string[]) => chunks.forEach((c) => s.feed(c)), end: () => s.end() };
}
function scan(chunks: readonly string[], end = true): Full[] {
  const sc = scanner();
  sc.feed(...chunks);
  if (end) sc.end();
  return sc.events;
}
const data = (events: Full[]) => events.map(([, d]) => d);

const chunk = (content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'chatcmpl-sdk1', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-test',
  choices: [{ index: 0, delta: { content }, finish_reason: null, logprobs: null }], ...extra,
});
const line = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const DONE = 'data: [DONE]\n\n';
const contents = (values: ChatCompletionChunk[]) => values.map((c) => c.choices[0]?.delta?.content);
const bytesOf = (...parts: Array<string | number[]>): Uint8Array[] => parts.map((p) => (typeof p === 'string' ? utf8(p) : new Uint8Array(p)));

const created = (id: string) => ({ type: 'response.created', sequence_number: 0, response: { id, object: 'response', status: 'in_progress', output: [] } });
const completed = (id: string, seq: number) => ({ type: 'response.completed', sequence_number: seq, response: { id, object: 'response', status: 'completed', output: [] } });
const named = (payload: { type: string }) => `event: ${payload.type}\n${line(payload)}`;

describe('SSE decoding (tests/streaming.test.ts)', () => {
  test('an event named on its own chunk, its data and its blank line on the next ones', async () => {
    const out = await run(fromResponsesSSE(iterate(bytesOf('event: response.created\n', `data: ${JSON.stringify(created('resp_s1'))}\n`, '\n', named(completed('resp_s1', 1))))));
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
    expect(out.completed).toBe(true);
  });

  // The SDK yields `event: foo` + blank line as a message with data ''. A conforming EventSource
  // dispatches nothing for an event with no data, and neither does openai-rx (deliberate, WHATWG).
  test('an event line without data dispatches nothing, and its name does not stick to the next event', async () => {
    expect(scan(['event: foo\n', '\n', 'event: ping\n', '\n'])).toEqual([]);
    const out = await run(fromChatCompletionsSSE(`event: ping\n\n${line(chunk('a'))}event: ping\n\n${DONE}`));
    expect(contents(out.values)).toEqual(['a']);
    expect(out.completed).toBe(true);
    const resp = await run(fromResponsesSSE(`${named(created('resp_s2'))}event: keepalive\n\n${named(completed('resp_s2', 1))}`));
    expect(resp.values.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
  });

  test('a JSON payload spread over several data lines, empty ones included', async () => {
    const lines = ['data: {', 'data: "id":"chatcmpl-ml","object":"chat.completion.chunk",', 'data: ', 'data:', 'data: "created":1,"model":"m","choices":[]}'];
    expect(scan(lines.map((l) => `${l}\n`).concat('\n\n'))).toEqual([[undefined, '{\n"id":"chatcmpl-ml","object":"chat.completion.chunk",\n\n\n"created":1,"model":"m","choices":[]}', false]]);
    const out = await run(fromChatCompletionsSSE(iterate(bytesOf(...lines.map((l) => `${l}\n`), '\n\n', DONE))));
    expect(out.values).toEqual([{ id: 'chatcmpl-ml', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] }]);
  });

  test('escaped newlines in JSON stay inside the string', async () => {
    const out = await run(fromChatCompletionsSSE(`data: ${JSON.stringify(chunk('two\n\nparagraphs'))}\n\n${DONE}`));
    expect(contents(out.values)).toEqual(['two\n\nparagraphs']);
  });

  test('U+2028 arriving as its own chunk is text, not a line end', async () => {
    const [a, b] = JSON.stringify(chunk('X')).split('X') as [string, string];
    const out = await run(fromChatCompletionsSSE(iterate(bytesOf(line(chunk('before ')), `data: ${a}`, [0xe2, 0x80, 0xa8], `${b}\n`, '\n', line(chunk('after')), DONE))));
    expect(contents(out.values)).toEqual(['before ', '\u2028', 'after']);
  });

  test('multi-byte characters split across chunks at any byte', async () => {
    const word = 'здравствуй, 世界 👋';
    const bytes = utf8(`${line(chunk(word))}${DONE}`);
    const start = bytes.indexOf(0xd0);
    for (const cuts of [[start + 1], [start + 1, start + 3, start + 4], Array.from({ length: 40 }, (_, i) => start + i)]) {
      const out = await run(fromChatCompletionsSSE(readable(cutAt(bytes, cuts))));
      expect(contents(out.values)).toEqual([word]);
      expect(out.completed).toBe(true);
    }
  });
});

describe('line ends (tests/internal/decoders/line.test.ts), as SSE events', () => {
  test('a line is not complete until its line end arrives', () => {
    expect(scan(['data: foo', ' bar\n', '\n'])).toEqual([[undefined, 'foo bar', false]]);
    expect(scan(['data: foo', ' bar\r\ndata: baz'], false)).toEqual([]);
  });

  test('CR and LF split across chunks are one line end', () => {
    expect(scan(['data: foo\r', '\n', 'data: bar\n', '\n'])).toEqual([[undefined, 'foo\nbar', false]]);
  });

  test('a chunk ending in CR ends its line at once; an LF starting the next chunk completes that CRLF', () => {
    const sc = scanner();
    sc.feed('data: foo\r');
    sc.feed('');
    sc.feed('\r');
    expect(data(sc.events)).toEqual(['foo']);
    sc.feed('\n');
    sc.feed('data: bar\r');
    sc.feed('\n');
    expect(data(sc.events)).toEqual(['foo']);
    sc.feed('\r');
    expect(data(sc.events)).toEqual(['foo', 'bar']);
    sc.end();
    expect(sc.events).toHaveLength(2);
  });

  test('a real blank line after a fragmented CRLF is kept', () => {
    expect(data(scan(['data: foo\r', '\n\n', 'data: bar\n\n']))).toEqual(['foo', 'bar']);
    expect(data(scan(['data: foo\r', '\n', '\ndata: bar\n\n']))).toEqual(['foo', 'bar']);
  });

  test('single and double CR', () => {
    expect(scan(['data: foo\r', 'data: bar'])).toEqual([[undefined, 'foo\nbar', true]]);
    expect(scan(['data: foo\r', 'data: bar\r'])).toEqual([[undefined, 'foo\nbar', true]]);
    expect(scan(['data: foo\r', '\r', 'data: bar'])).toEqual([[undefined, 'foo', false], [undefined, 'bar', true]]);
    expect(scan(['data: foo\r', '\r', 'data: bar'], false)).toEqual([[undefined, 'foo', false]]);
  });

  test('two CRs then a CRLF, and the LF equivalent', () => {
    expect(data(scan(['data: foo\r', '\r', '\r', '\n', 'data: bar', '\n', '\n']))).toEqual(['foo', 'bar']);
    expect(data(scan(['data: foo\n', '\n', '\n', 'data: bar', '\n', '\n']))).toEqual(['foo', 'bar']);
  });

  test.each([
    [['data: foo\n\ndata: bar']],
    [['data: foo', '\n', '\ndata: bar']],
    [['data: foo\n', '\n', 'data: bar']],
    [['data: foo', '\n', '\n', 'data: bar']],
    [['data: foo\n', '\ndata: bar']],
  ])('a blank line in any chunking: %j', (chunks) => {
    expect(scan(chunks)).toEqual([[undefined, 'foo', false], [undefined, 'bar', true]]);
  });

  test('nothing fed, nothing dispatched', () => {
    expect(scan([])).toEqual([]);
    expect(scan(['', ''])).toEqual([]);
  });
});

describe('separators delivered byte by byte (tests/lib/streaming-core.test.ts)', () => {
  const ends = ['\n', '\r', '\r\n'];
  const pairs = ends.flatMap((a) => ends.filter((b) => !(a === '\r' && b === '\n')).map((b) => [a, b] as const));

  test.each(pairs)('%j + %j: each event is dispatched as soon as its separator has arrived, before the body ends', (a, b) => {
    const sc = scanner();
    sc.feed(...`data: first${a}${b}`);
    expect(data(sc.events)).toEqual(['first']);
    sc.feed(...`data: second${a}${b}`);
    expect(data(sc.events)).toEqual(['first', 'second']);
    sc.end();
    expect(sc.events).toEqual([[undefined, 'first', false], [undefined, 'second', false]]);
  });

  test('comments and CRLF-delimited multi-line data', () => {
    expect(scan([': keepalive\r\nevent: update\r\ndata: first\r\ndata: second\r\n\r\n'])).toEqual([['update', 'first\nsecond', false]]);
  });

  test('LF then CRLF, and CRLF then LF, in one chunk each', () => {
    const sc = scanner();
    sc.feed('data: first\n\r\n');
    expect(data(sc.events)).toEqual(['first']);
    sc.feed('data: second\r\n\n');
    expect(data(sc.events)).toEqual(['first', 'second']);
  });

  test('no phantom event when a CRLF is split after a CR that already ended an event', () => {
    expect(data(scan(['data: first\r\r', '\ndata: second\r\r', '\n']))).toEqual(['first', 'second']);
  });

  test.each([
    ['\r', '\n', '\r'],
    ['\r\n', '\r', '\r\n'],
    ['\n', '\r\n', '\r'],
  ])('multi-line data with %j, %j and %j, byte by byte', (a, b, c) => {
    expect(scan([...`data: first${a}data: second${b}${c}`])).toEqual([[undefined, 'first\nsecond', false]]);
  });

  test('events after a fragmented prefix; a partial separator held between chunks', () => {
    expect(data(scan(['data: first with a fragmented prefix', '\r\n\r\ndata: second\r\n\r\ndata: third\r\n\r\n']))).toEqual(['first with a fragmented prefix', 'second', 'third']);
    expect(data(scan(['data: first\r\n\r', '\ndata: second\r\n', '\r\n']))).toEqual(['first', 'second']);
    expect(data(scan(['data: first\r\n\r\ndata: second\r\n\r', '\n', 'data: third\r\n\r\n']))).toEqual(['first', 'second', 'third']);
  });

  test('a chat body delivered one byte at a time, every kind of line end', async () => {
    for (const eol of ['\n', '\r', '\r\n']) {
      const text = `${line(chunk('one'))}${line(chunk('two'))}${DONE}`.replace(/\n/g, eol);
      const bytes = utf8(text);
      const out = await run(fromChatCompletionsSSE(readable(cutAt(bytes, Array.from(bytes, (_, i) => i)))));
      expect(contents(out.values)).toEqual(['one', 'two']);
      expect(out.completed).toBe(true);
    }
  });

  // The SDK drops a message the body ends inside (no blank line after it), like an EventSource. openai-rx
  // delivers it marked unterminated and lets the protocol decide (deliberate: see whatwg-eventsource.spec.ts).
  test.each([['LF', '\n'], ['CR', '\r'], ['CRLF', '\r\n']])('a last message ending in a single %s is delivered, marked unterminated', (_n, eol) => {
    expect(scan([`data: {"flushed":true}${eol}`])).toEqual([[undefined, '{"flushed":true}', true]]);
  });

  test('a last message ending in two CRs is delivered once, complete', () => {
    expect(scan(['data: {"flushed":true}\r\r'])).toEqual([[undefined, '{"flushed":true}', false]]);
  });

  test('through the chat decoder: the unterminated chunk is emitted, then the missing [DONE] is an interruption', async () => {
    const body = `${line(chunk('a'))}data: ${JSON.stringify(chunk('b'))}\n`;
    const strict = await run(fromChatCompletionsSSE(body));
    expect(contents(strict.values)).toEqual(['a', 'b']);
    expect(strict.error).toBeInstanceOf(StreamInterruptedError);
    const lenient = await run(fromChatCompletionsSSE(body, { requireDone: false }));
    expect(contents(lenient.values)).toEqual(['a', 'b']);
    expect(lenient.completed).toBe(true);
  });
});

describe('the [DONE] sentinel (streaming-sentinel-integrity, streaming-core)', () => {
  test.each([
    ['with a space', 'data: [DONE]\n\n'],
    ['without the optional space', 'data:[DONE]\n\n'],
    ['with CRLF framing', 'data: [DONE]\r\n\r\n'],
    ['under an event name', 'event: error\ndata: [DONE]\n\n'],
  ])('exactly [DONE] %s completes the chat stream', async (_n, done) => {
    const out = await run(fromChatCompletionsSSE(`${line(chunk('x'))}${done}`));
    expect(contents(out.values)).toEqual(['x']);
    expect(out.completed).toBe(true);
  });

  test.each([
    ['appended text', '[DONE]more'],
    ['a trailing space', '[DONE] '],
    ['a trailing tab', '[DONE]\t'],
    ['appended secrets', '[DONE]patient-7731:sk-test-sentinel-0001'],
    ['a second data line', '[DONE]\ndata: {"patient":"patient-7731"}'],
  ])('[DONE] with %s is not the sentinel: a DecodeError that quotes nothing', async (_n, payload) => {
    const out = await run(fromChatCompletionsSSE(`${line(chunk('x'))}data: ${payload}\n\n`));
    expect(contents(out.values)).toEqual(['x']);
    expect(out.completed).toBe(false);
    expect(out.error).toBeInstanceOf(DecodeError);
    const e = out.error as DecodeError;
    for (const shown of [e.message, JSON.stringify(e), String(e.stack)]) {
      expect(shown).not.toContain('patient-7731');
      expect(shown).not.toContain('sk-test-sentinel');
    }
  });

  test('a fake sentinel before a provider error does not look like completion', async () => {
    const out = await run(fromChatCompletionsSSE(`data: [DONE]sk-test-sentinel-0001\n\nevent: error\ndata: {"error":{"message":"rejected","code":"provider_error"}}\n\n`));
    expect(out.error).toBeInstanceOf(DecodeError);
  });

  test('after a genuine [DONE], later errors, malformed data and fake sentinels are never read', async () => {
    let pulls = 0;
    let cancelled = 0;
    const first = utf8(`${line(chunk('safe'))}${DONE}event: error\ndata: {"error":{"message":"too late"}}\n\ndata: [DONE]sk-test\n\ndata: not-json\n\n`);
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(first),
      pull: () => {
        if (pulls++ > 0) throw new Error('read past [DONE]');
      },
      cancel: () => {
        cancelled++;
      },
    }, { highWaterMark: 0 });
    const out = await run(fromChatCompletionsSSE(new Response(body)));
    expect(contents(out.values)).toEqual(['safe']);
    expect(out.completed).toBe(true);
    expect(cancelled).toBe(1);
  });

  test('on the Responses surface, any [DONE] look-alike is not a terminal event', async () => {
    const fake = await run(fromResponsesSSE(`${named(created('resp_d1'))}data: [DONE]x\n\n`));
    expect(fake.error).toBeInstanceOf(DecodeError);
    const early = await run(fromResponsesSSE(`${named(created('resp_d1'))}${DONE}`));
    expect(early.error).toMatchObject({ name: 'StreamInterruptedError', responseId: 'resp_d1', lastSequenceNumber: 0 });
  });
});

describe('provider errors in the stream (streaming-named-error-events, ResponseStream tests)', () => {
  const provider = { message: 'The test provider rejected this streamed request.', code: 'provider_error', param: 'input', type: 'server_error' };
  const surfaces = [
    ['Chat Completions', (body: string) => run(fromChatCompletionsSSE(body))],
    ['Responses', (body: string) => run(fromResponsesSSE(body))],
  ] as const;

  describe.each(surfaces)('%s', (_surface, decode) => {
    test.each([
      ['a flat object under event: error', `event: error\n${line(provider)}`],
      ['a nested object under event: error', `event: error\n${line({ error: provider })}`],
      ['a nested object without an event name', line({ error: provider })],
    ])('%s: a ResponseStreamError with the provider code, param and message', async (_n, body) => {
      const out = await decode(body);
      expect(out.completed).toBe(false);
      expect(out.error).toBeInstanceOf(ResponseStreamError);
      expect(out.error).toMatchObject({ eventType: 'error', errorCode: 'provider_error', param: 'input' });
      expect((out.error as Error).message).toBe(`error: provider_error: ${provider.message}`);
    });

    test.each([
      ['null', 'null', 'null'],
      ['a string', '"a provider failed without details"', 'a provider failed without details'],
      ['a number', '42', '42'],
    ])('an event: error payload that is %s still ends the stream with a ResponseStreamError', async (_n, payload, message) => {
      const out = await decode(`event: error\ndata: ${payload}\n\n`);
      expect(out.error).toBeInstanceOf(ResponseStreamError);
      expect(out.error).toMatchObject({ eventType: 'error', errorCode: null });
      expect((out.error as Error).message).toBe(`error: ${message}`);
    });

    // When the nested error object has no message, the wrapper's message is the provider's message (was a
    // bug: "stream error"). The SDK reports the nested object as JSON; either keeps what the provider said.
    test('a wrapper message beside a nested error without one is the message', async () => {
      const out = await decode(`event: error\n${line({ message: 'The wrapper carries the failure.', error: { code: 'nested_provider_error', param: 'input', type: 'server_error' } })}`);
      expect(out.error).toMatchObject({ eventType: 'error', errorCode: 'nested_provider_error', param: 'input' });
      expect((out.error as Error).message).toBe('error: nested_provider_error: The wrapper carries the failure.');
    });

    // The SDK raises a SyntaxError that quotes nothing. openai-rx takes a non-JSON `event: error` payload as
    // the provider's own text (plain-text errors are common), so its message carries that text, capped at
    // 2000 characters (deliberate; see provider-errors.spec.ts).
    test('malformed JSON under event: error is taken as the provider error text', async () => {
      const out = await decode('event: error\ndata: {"detail":"upstream said no"\n\n');
      expect(out.error).toBeInstanceOf(ResponseStreamError);
      expect((out.error as Error).message).toBe('error: {"detail":"upstream said no"');
    });

    test('malformed JSON in an ordinary event is a DecodeError whose message quotes none of it', async () => {
      const out = await decode('data: {"patient":"patient-7731","credential":"sk-test-malformed-0003"\n\n');
      expect(out.error).toBeInstanceOf(DecodeError);
      expect((out.error as Error).message).not.toContain('sk-test');
      expect((out.error as Error).message).not.toContain('patient-7731');
    });
  });

  test('an error after an event: the event is delivered first', async () => {
    const out = await run(fromChatCompletionsSSE(`${line(chunk('safe content'))}event: error\n${line(provider)}`));
    expect(contents(out.values)).toEqual(['safe content']);
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', errorCode: 'provider_error', responseId: 'chatcmpl-sdk1' });
  });

  test('Responses: an error event before response.created', async () => {
    const error = { type: 'error', sequence_number: 0, code: 'server_error', message: 'Failed before creating a response.', param: 'input' };
    const out = await run(fromResponsesSSE(named(error)));
    expect(out.values).toEqual([error]);
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'error', errorCode: 'server_error', param: 'input', sequenceNumber: 0 });
  });

  test('Responses: a nested error after response.created keeps the provider details on the event', async () => {
    const nested = { type: 'invalid_request_error', code: 'rate_limit_exceeded', message: 'Over capacity right now.', param: 'input', headers: { 'retry-after': '300' } };
    const out = await run(fromResponsesSSE(`${named(created('resp_e1'))}event: error\n${line({ type: 'error', sequence_number: 1, error: nested })}`));
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'error']);
    const e = out.error as ResponseStreamError;
    expect(e).toMatchObject({ errorCode: 'rate_limit_exceeded', param: 'input', responseId: 'resp_e1', sequenceNumber: 1 });
    expect(e.message).toBe('error: rate_limit_exceeded: Over capacity right now.');
    expect(e.event).toMatchObject({ error: { headers: { 'retry-after': '300' } } });
  });

  test('Responses: flat error events in data-only framing', async () => {
    const out = await run(fromResponsesSSE(line(created('resp_e2')) + line({ type: 'error', sequence_number: 1, code: 'provider_error', message: 'Flat and documented.', param: 'model' })));
    expect(out.error).toMatchObject({ errorCode: 'provider_error', param: 'model', responseId: 'resp_e2' });
  });
});

describe('how a Responses stream ends (ResponseStream tests)', () => {
  // The SDK's ResponseStream resolves finalResponse() when the body ends after response.created, and
  // resolves it with the failed snapshot on response.failed. openai-rx ends the first with
  // StreamInterruptedError (a cut body must not look complete) and the second with a ResponseStreamError
  // after emitting the event (deliberate, README "Ending and errors").
  test('a body that ends after response.created is an interruption, not a response', async () => {
    const out = await run(fromResponsesSSE(named(created('resp_end1'))));
    expect(out.values).toHaveLength(1);
    expect(out.error).toMatchObject({ name: 'StreamInterruptedError', responseId: 'resp_end1', lastSequenceNumber: 0, retryable: true });
  });

  test('response.failed without an error event: emitted, then a ResponseStreamError with its code and message', async () => {
    const failed = { type: 'response.failed', sequence_number: 1, response: { id: 'resp_end2', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: 'The response failed.' } } };
    const out = await run(fromResponsesSSE(`${named(created('resp_end2'))}${named(failed)}`));
    expect(out.values.at(-1)).toEqual(failed);
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'response.failed', errorCode: 'server_error', responseId: 'resp_end2' });
    expect((out.error as Error).message).toBe('response.failed: server_error: The response failed.');
  });

  test('text snapshots grow delta by delta ("standard text works")', async () => {
    const delta = (d: string, seq: number) => ({ type: 'response.output_text.delta', sequence_number: seq, item_id: 'msg_st', output_index: 0, content_index: 0, delta: d });
    const body = [
      created('resp_st'),
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_st', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
      delta('Hello ', 2),
      delta('there', 3),
      { type: 'response.output_text.done', sequence_number: 4, item_id: 'msg_st', output_index: 0, content_index: 0, text: 'Hello there' },
      completed('resp_st', 5),
    ].map((p) => named(p as { type: string })).join('');
    const snaps = await lastValueFrom(fromResponsesSSE(body).pipe(accumulateText(), toArray()));
    expect(snaps.map((s) => [s.text, s.done])).toEqual([['Hello ', false], ['Hello there', false], ['Hello there', true]]);
  });
});

describe('chat chunk shapes (ChatCompletionStream tests)', () => {
  test('obfuscation padding is kept on each chunk exactly as sent', async () => {
    const chunks = [chunk('Hello', { obfuscation: 'pad-1' }), chunk(' world', { obfuscation: '' }), chunk('!')];
    const out = await run(fromChatCompletionsSSE(chunks.map(line).join('') + DONE));
    expect(out.values).toEqual(chunks);
  });

  test("Azure's filter chunks: a first one with no choices and empty ids, a last one with no delta", async () => {
    const promptFilter = { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] };
    const stop = { ...chunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }] };
    const asyncFilter = { id: '', object: '', created: 0, model: '', choices: [{ index: 0, finish_reason: null, content_filter_results: {} }] };
    const out = await run(fromChatCompletionsSSE([promptFilter, chunk('hello'), stop, asyncFilter].map(line).join('') + DONE));
    expect(out.values).toEqual([promptFilter, chunk('hello'), stop, asyncFilter]);
    expect(out.completed).toBe(true);
  });
});
