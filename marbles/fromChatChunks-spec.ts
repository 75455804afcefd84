import { fromChatChunks } from '../operators/fromChatChunks';
import { decodeTyped } from '../lib/events/decode';
import { responseEventTable, type ResponseStreamEvent } from '../lib/events/responses';
import type { ChatCompletionChunk } from '../lib/events/chat';
import { CHAT_ID, CHAT_USAGE, CREATED_AT, MODEL, chunk, usageChunk } from '../test/chat/build';
import { at } from '../test/chat/marbles';
import { DecodeError } from '../lib/errors';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
type Ev = ResponseStreamEvent & Record<string, unknown>;

/** Runs chunks (one per frame) through fromChatChunks in virtual time and returns what came out. */
function collect(chunks: ChatCompletionChunk[], options?: Parameters<typeof fromChatChunks>[0]): { events: Ev[]; completed: boolean; error: unknown } {
  const events: Ev[] = [];
  let completed = false;
  let error: unknown;
  scheduler().run(({ cold, flush }) => {
    const marbles = `${chunks.map((_, i) => String.fromCharCode(97 + i)).join('')}|`;
    const values = Object.fromEntries(chunks.map((c, i) => [String.fromCharCode(97 + i), c]));
    cold(marbles, values).pipe(fromChatChunks(options)).subscribe({ next: (e) => events.push(e as Ev), complete: () => (completed = true), error: (e) => (error = e) });
    flush();
  });
  return { events, completed, error };
}
const last = (events: Ev[]) => events[events.length - 1] as Ev & { response: Record<string, unknown> };
const ofType = (events: Ev[], type: string) => events.filter((e) => e.type === type);

const resp = (status: string, output: unknown[] = [], usage: unknown = null, incomplete: unknown = null) => ({
  id: CHAT_ID, object: 'response', created_at: CREATED_AT, status, model: MODEL, output, usage, error: null, incomplete_details: incomplete, previous_response_id: null,
});

describe('fromChatChunks', () => {
  it('produces created, in_progress, a message item and completed, at the frames of their chunks', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 4ms b 4ms c 4ms d 4ms |', {
        a: chunk({ role: 'assistant', content: '', refusal: null }),
        b: chunk({ content: 'Hi' }),
        c: chunk({}, 'stop'),
        d: usageChunk(CHAT_USAGE),
      });
      const msgId = `msg_${CHAT_ID}_0`;
      const part = { type: 'output_text', text: 'Hi', annotations: [], logprobs: [] };
      const item = { id: msgId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
      const usage = { input_tokens: 21, output_tokens: 34, total_tokens: 55, input_tokens_details: { cached_tokens: 5 }, output_tokens_details: { reasoning_tokens: 13 } };
      expectObservable(src.pipe(fromChatChunks())).toBe(at([0, '(ab)'], [5, '(cde)'], [10, '(fgh)'], [20, '(j|)']), {
        a: { type: 'response.created', response: resp('in_progress'), sequence_number: 0 },
        b: { type: 'response.in_progress', response: resp('in_progress'), sequence_number: 1 },
        c: { type: 'response.output_item.added', output_index: 0, item: { id: msgId, type: 'message', status: 'in_progress', role: 'assistant', content: [] }, sequence_number: 2 },
        d: { type: 'response.content_part.added', item_id: msgId, output_index: 0, content_index: 0, part: { ...part, text: '' }, sequence_number: 3 },
        e: { type: 'response.output_text.delta', item_id: msgId, output_index: 0, content_index: 0, delta: 'Hi', logprobs: [], sequence_number: 4 },
        f: { type: 'response.output_text.done', item_id: msgId, output_index: 0, content_index: 0, text: 'Hi', logprobs: [], sequence_number: 5 },
        g: { type: 'response.content_part.done', item_id: msgId, output_index: 0, content_index: 0, part, sequence_number: 6 },
        h: { type: 'response.output_item.done', output_index: 0, item, sequence_number: 7 },
        j: { type: 'response.completed', response: resp('completed', [item], usage), sequence_number: 8 },
      });
    });
  });

  it('produces events that pass the strict codecs, numbered from 0, each delta inside its added/done pair', () => {
    const { events, completed } = collect([
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Let me ' }),
      chunk({ reasoning_content: 'think.' }),
      chunk({ content: 'See ' }),
      chunk({ content: 'this', annotations: [{ type: 'url_citation', url_citation: { start_index: 4, end_index: 8, url: 'https://x.test', title: 'X' } }] }),
      chunk({ refusal: 'Partly no.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_B', type: 'function', function: { name: 'g', arguments: '{"b"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }),
      chunk(null, 'tool_calls'),
      usageChunk(CHAT_USAGE),
    ]);
    expect(completed).toBe(true);
    events.forEach((e, i) => {
      expect(() => decodeTyped(JSON.parse(JSON.stringify(e)), responseEventTable, 'strict', e.type)).not.toThrow();
      expect(e.sequence_number).toBe(i);
    });
    const open = new Set<string>();
    const closed = new Set<string>();
    for (const e of events) {
      const item = e['item'] as { id: string } | undefined;
      if (e.type === 'response.output_item.added') open.add(item!.id);
      else if (e.type === 'response.output_item.done') {
        expect(open.has(item!.id)).toBe(true);
        closed.add(item!.id);
      } else if (typeof e['item_id'] === 'string') {
        expect(open.has(e['item_id'] as string)).toBe(true);
        expect(closed.has(e['item_id'] as string)).toBe(false);
      }
    }
    expect(closed).toEqual(open);
    const final = last(events);
    expect(final.type).toBe('response.completed');
    const output = final.response['output'] as Array<Record<string, unknown>>;
    expect(output.map((o) => o['type'])).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(output[0]!['content']).toEqual([{ type: 'reasoning_text', text: 'Let me think.' }]);
    expect(output[1]!['content']).toEqual([
      { type: 'output_text', text: 'See this', annotations: [{ type: 'url_citation', start_index: 4, end_index: 8, url: 'https://x.test', title: 'X' }], logprobs: [] },
      { type: 'refusal', refusal: 'Partly no.' },
    ]);
    expect(output.slice(2).map((o) => [o['call_id'], o['name'], o['arguments']])).toEqual([['call_A', 'f', '{"a":1}'], ['call_B', 'g', '{"b":2}']]);
    expect(new Set(events.filter((e) => e.type === 'response.output_item.added').map((e) => e['output_index']))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('merges tool-call fragments by index: a name resent on every fragment is not doubled, a name in pieces is joined', () => {
    const { events } = collect([
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '"Oslo"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_B', function: { name: 'get_' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: 'time', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const done = ofType(events, 'response.function_call_arguments.done');
    expect(done.map((e) => [e['name'], e['arguments']])).toEqual([['get_weather', '{"city":"Oslo"}'], ['get_time', '{}']]);
    expect(ofType(events, 'response.function_call_arguments.delta').map((e) => e['delta'])).toEqual(['{"city":', '"Oslo"}', '{}']);
    const output = last(events).response['output'] as Array<Record<string, unknown>>;
    expect(output.map((o) => [o['call_id'], o['name'], o['arguments']])).toEqual([['call_A', 'get_weather', '{"city":"Oslo"}'], ['call_B', 'get_time', '{}']]);
    expect(last(events).type).toBe('response.completed');
  });

  it('turns a deprecated delta.function_call (the functions API) into a function_call item instead of dropping it', () => {
    const { events } = collect([
      chunk({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '' } }),
      chunk({ function_call: { arguments: '{"city":' } }),
      chunk({ function_call: { arguments: '"Oslo"}' } }),
      chunk({}, 'function_call'),
    ]);
    expect(ofType(events, 'response.function_call_arguments.delta').map((e) => e['delta'])).toEqual(['{"city":', '"Oslo"}']);
    const output = last(events).response['output'] as Array<Record<string, unknown>>;
    expect(output).toEqual([
      { id: `fc_${CHAT_ID}_0`, type: 'function_call', status: 'completed', call_id: `call_${CHAT_ID}_function_call`, name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(last(events).type).toBe('response.completed');
  });

  it('ends with a DecodeError naming the path when a deprecated function_call has a wrong field', () => {
    const { error } = collect([chunk({ role: 'assistant' }), chunk({ function_call: { name: 7 } })]);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ sequenceNumber: 1, path: 'choices[0].delta.function_call.name' });
  });

  it('reads reasoning from reasoning_content or reasoning, as a reasoning item that closes when the message opens', () => {
    const { events } = collect([chunk({ reasoning: 'Hmm' }), chunk({ reasoning_content: ', ok' }), chunk({ content: 'A' }), chunk({}, 'stop')]);
    expect(events.map((e) => e.type).slice(2)).toEqual([
      'response.output_item.added', 'response.content_part.added', 'response.reasoning_text.delta', 'response.reasoning_text.delta',
      'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    expect(ofType(events, 'response.reasoning_text.done')[0]!['text']).toBe('Hmm, ok');
  });

  it.each([
    ['stop', 'response.completed', null],
    ['tool_calls', 'response.completed', null],
    ['length', 'response.incomplete', { reason: 'max_output_tokens' }],
    ['content_filter', 'response.incomplete', { reason: 'content_filter' }],
  ])('maps finish_reason %s to %s', (finish, type, details) => {
    const { events } = collect([chunk({ content: 'x' }), chunk(null, finish)]);
    expect(last(events).type).toBe(type);
    expect(last(events).response['incomplete_details']).toEqual(details);
    expect(last(events).response['status']).toBe(type === 'response.completed' ? 'completed' : 'incomplete');
  });

  it('takes usage from the usage chunk or from a chunk carrying it with the finish, and null without one', () => {
    const mapped = { input_tokens: 21, output_tokens: 34, total_tokens: 55, input_tokens_details: { cached_tokens: 5 }, output_tokens_details: { reasoning_tokens: 13 } };
    expect(last(collect([chunk({ content: 'x' }), chunk({}, 'stop'), usageChunk(CHAT_USAGE)]).events).response['usage']).toEqual(mapped);
    const withFinish = { ...chunk({}, 'stop'), usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } } as ChatCompletionChunk;
    expect(last(collect([chunk({ content: 'x' }), withFinish]).events).response['usage']).toEqual({
      input_tokens: 1, output_tokens: 2, total_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(last(collect([chunk({ content: 'x' }), chunk({}, 'stop')]).events).response['usage']).toBeNull();
  });

  it('accepts choices: [] chunks without usage and choices without delta', () => {
    const empty = { ...usageChunk(CHAT_USAGE), usage: null } as ChatCompletionChunk;
    const { events, completed } = collect([empty, chunk({ content: 'x' }), empty, chunk(null, 'stop')]);
    expect(completed).toBe(true);
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
  });

  it('follows only the chosen choice when several are streamed', () => {
    const both = (a: string, b: string) => ({ ...chunk({ content: a }), choices: [chunk({ content: a }).choices![0], chunk({ content: b }, null, 1).choices![0]] }) as ChatCompletionChunk;
    expect(ofType(collect([both('a0', 'b0'), both('a1', 'b1'), chunk(null, 'stop')]).events, 'response.output_text.done')[0]!['text']).toBe('a0a1');
    expect(ofType(collect([both('a0', 'b0'), both('a1', 'b1'), chunk(null, 'stop', 1)], { choiceIndex: 1 }).events, 'response.output_text.done')[0]!['text']).toBe('b0b1');
  });

  it('closes open items and completes when the chunks end without a finish_reason; an empty stream just completes', () => {
    const { events } = collect([chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }] })]);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
    expect(collect([])).toEqual({ events: [], completed: true, error: undefined });
  });

  it('passes errors through without a terminal event', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('broken');
      const src = cold('a 9ms #', { a: chunk({ content: 'x' }) }, err);
      const out = src.pipe(fromChatChunks());
      expectObservable(out).toBe(at([0, '(abcde)'], [10, '#']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added' }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta', delta: 'x' }),
      }, err);
    });
  });

  it('ends with a DecodeError naming the chunk and the field when tool_calls is not an array, without a terminal event', () => {
    const { events, completed, error } = collect([chunk({ content: 'Hi' }), chunk({ tool_calls: {} } as Record<string, unknown>), chunk({ content: 'more' })]);
    expect(completed).toBe(false);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ eventType: 'chat.completion.chunk', sequenceNumber: 1, path: 'choices[0].delta.tool_calls' });
    expect(ofType(events, 'response.output_text.delta').map((e) => e['delta'])).toEqual(['Hi']);
    expect(ofType(events, 'response.completed')).toEqual([]);
  });

  it('ends with a DecodeError naming the tool call index when it is not a number ("__proto__")', () => {
    const bad = chunk({ tool_calls: [{ index: '__proto__', id: 'call_1', function: { name: 'f', arguments: '{}' } }] });
    const { error } = collect([chunk({ role: 'assistant' }), bad]);
    expect(error).toMatchObject({ sequenceNumber: 1, path: 'choices[0].delta.tool_calls[0].index' });
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'name')).toBe(false);
  });

  it('treats nulls as absent, and absurd tool call indices as plain keys', () => {
    const { events, completed } = collect([
      chunk({ role: 'assistant', content: null, refusal: null, tool_calls: null, annotations: null }),
      chunk({ tool_calls: [{ index: 1e308, id: 'call_A', function: { name: 'f', arguments: '{"a"' } }, { index: -1, id: 'call_B', function: { name: 'g', arguments: null } }] }),
      chunk({ tool_calls: [{ index: 1e308, function: { arguments: ':1}' } }] }, 'tool_calls'),
    ]);
    expect(completed).toBe(true);
    expect(ofType(events, 'response.output_item.done').map((e) => e['item'])).toMatchObject([
      { type: 'function_call', call_id: 'call_A', name: 'f', arguments: '{"a":1}' },
      { type: 'function_call', call_id: 'call_B', name: 'g', arguments: '' },
    ]);
  });

  it('ignores a finish_reason that names an Object.prototype key instead of reading it from the prototype', () => {
    const { events } = collect([chunk({ content: 'x' }), chunk({}, 'constructor')]);
    expect(last(events)).toMatchObject({ type: 'response.completed', response: { status: 'completed', incomplete_details: null } });
  });

  it('unsubscribes from the source when unsubscribed', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a 4ms b 4ms c|', { a: chunk({ content: 'x' }), b: chunk({ content: 'y' }), c: chunk(null, 'stop') });
      expectObservable(src.pipe(fromChatChunks()), at([0, '^'], [3, '!'])).toBe(at([0, '(abcde)']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added' }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta', delta: 'x' }),
      });
      expectSubscriptions(src.subscriptions).toBe(at([0, '^'], [3, '!']));
    });
  });
});

describe('fromChatChunks: provider dialects', () => {
  const AZ = 'chatcmpl-az1';
  const meta = { id: AZ, object: 'chat.completion.chunk', created: 1758301234, model: 'gpt-4o' };
  const azure = (choices: unknown[], over: Record<string, unknown> = {}) => ({ ...meta, choices, ...over }) as unknown as ChatCompletionChunk;
  const emptyMeta = { id: '', object: '', created: 0, model: '' };
  const raw = (o: Record<string, unknown>) => o as unknown as ChatCompletionChunk;
  const tools = (calls: unknown[], finish: string | null = null) => chunk({ tool_calls: calls }, finish);

  it("Azure: response.created waits for the first chunk with an id, and carries its model and time; filter chunks after the finish add nothing", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 4ms b 4ms c 4ms d 4ms e 4ms |', {
        a: raw({ ...emptyMeta, choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }),
        b: azure([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, content_filter_results: {} }]),
        c: azure([{ index: 0, delta: { content: 'Hi' }, finish_reason: null, content_filter_results: {} }]),
        d: azure([{ index: 0, delta: {}, finish_reason: 'stop', content_filter_results: {} }]),
        e: raw({ ...emptyMeta, choices: [{ index: 0, finish_reason: null, content_filter_results: {}, content_filter_offsets: { check_offset: 0 } }] }),
      });
      const r = { id: AZ, created_at: 1758301234, model: 'gpt-4o' };
      const msg = `msg_${AZ}_0`;
      expectObservable(src.pipe(fromChatChunks())).toBe(at([5, '(ab)'], [10, '(cde)'], [15, '(fgh)'], [25, '(j|)']), {
        a: expect.objectContaining({ type: 'response.created', response: expect.objectContaining(r), sequence_number: 0 }),
        b: expect.objectContaining({ type: 'response.in_progress', response: expect.objectContaining(r) }),
        c: expect.objectContaining({ type: 'response.output_item.added', item: expect.objectContaining({ id: msg }) }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta', item_id: msg, delta: 'Hi' }),
        f: expect.objectContaining({ type: 'response.output_text.done', text: 'Hi' }),
        g: expect.objectContaining({ type: 'response.content_part.done' }),
        h: expect.objectContaining({ type: 'response.output_item.done' }),
        j: expect.objectContaining({ type: 'response.completed', response: expect.objectContaining({ ...r, status: 'completed' }) }),
      });
    });
  });

  it('Gemini: without any id, the response starts at the first content, with the model and time of that chunk', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const gem = (delta: Record<string, unknown>, finish?: string) =>
        raw({ object: 'chat.completion.chunk', created: 1758200000, model: 'gemini-2.5-flash', choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] });
      const src = cold('a 9ms b 9ms |', { a: gem({ role: 'assistant' }), b: gem({ content: 'Hi' }, 'stop') });
      const r = { id: '', created_at: 1758200000, model: 'gemini-2.5-flash' };
      expectObservable(src.pipe(fromChatChunks())).toBe(at([10, '(abcdefgh)'], [20, '(j|)']), {
        a: expect.objectContaining({ type: 'response.created', response: expect.objectContaining(r) }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added', item: expect.objectContaining({ id: 'msg_0' }) }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta', delta: 'Hi' }),
        f: expect.objectContaining({ type: 'response.output_text.done' }),
        g: expect.objectContaining({ type: 'response.content_part.done' }),
        h: expect.objectContaining({ type: 'response.output_item.done' }),
        j: expect.objectContaining({ type: 'response.completed', response: expect.objectContaining(r) }),
      });
    });
  });

  it('a last chunk without choices (audio streams) gives its usage to the terminal event, sent when the chunks end', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 9ms b 9ms c 9ms |', {
        a: chunk({ content: 'x' }),
        b: chunk({}, 'stop'),
        c: raw({ id: CHAT_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
      });
      expectObservable(src.pipe(fromChatChunks())).toBe(at([0, '(abcde)'], [10, '(fgh)'], [30, '(j|)']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added' }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta' }),
        f: expect.objectContaining({ type: 'response.output_text.done' }),
        g: expect.objectContaining({ type: 'response.content_part.done' }),
        h: expect.objectContaining({ type: 'response.output_item.done' }),
        j: expect.objectContaining({ type: 'response.completed', response: expect.objectContaining({ usage: expect.objectContaining({ input_tokens: 1, output_tokens: 2, total_tokens: 3 }) }) }),
      });
    });
  });

  it('audio: an expires_at-only delta after the finish opens nothing; the audio part closes at the finish frame', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 9ms b 9ms c 9ms |', {
        a: chunk({ role: 'assistant', audio: { id: 'audio_1', transcript: 'Hi', data: 'AAAA' } }),
        b: chunk({}, 'stop'),
        c: chunk({ audio: { expires_at: 1758293600 } }),
      });
      expectObservable(src.pipe(fromChatChunks())).toBe(at([0, '(abcdef)'], [10, '(ghij)'], [30, '(k|)']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added' }),
        d: expect.objectContaining({ type: 'response.content_part.added', part: { type: 'output_audio', data: '', transcript: '' } }),
        e: { type: 'response.audio.delta', delta: 'AAAA', sequence_number: 4 },
        f: { type: 'response.audio.transcript.delta', delta: 'Hi', sequence_number: 5 },
        g: { type: 'response.audio.done', sequence_number: 6 },
        h: { type: 'response.audio.transcript.done', sequence_number: 7 },
        i: expect.objectContaining({ type: 'response.content_part.done', part: { type: 'output_audio', data: 'AAAA', transcript: 'Hi', id: 'audio_1' } }),
        j: expect.objectContaining({ type: 'response.output_item.done' }),
        k: expect.objectContaining({ type: 'response.completed' }),
      });
    });
  });

  it('citations that come with the finish are annotated at that frame, before output_text.done', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 9ms b 9ms |', {
        a: chunk({ content: 'See [1].' }),
        b: { ...chunk({}, 'stop'), citations: ['https://a.test'], search_results: [{ url: 'https://a.test', title: 'A' }] } as ChatCompletionChunk,
      });
      expectObservable(src.pipe(fromChatChunks())).toBe(at([0, '(abcde)'], [10, '(fghi)'], [20, '(j|)']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: expect.objectContaining({ type: 'response.output_item.added' }),
        d: expect.objectContaining({ type: 'response.content_part.added' }),
        e: expect.objectContaining({ type: 'response.output_text.delta' }),
        f: expect.objectContaining({ type: 'response.output_text.annotation.added', annotation_index: 0, annotation: { type: 'url_citation', start_index: 4, end_index: 7, url: 'https://a.test', title: 'A' } }),
        g: expect.objectContaining({ type: 'response.output_text.done' }),
        h: expect.objectContaining({ type: 'response.content_part.done' }),
        i: expect.objectContaining({ type: 'response.output_item.done' }),
        j: expect.objectContaining({ type: 'response.completed' }),
      });
    });
  });

  it('custom tool call: added with the first input (the name is whole by then), input deltas at the frames of their chunks, done at the finish', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 4ms b 4ms c 4ms |', {
        a: tools([{ index: 0, id: 'call_c', type: 'custom', custom: { name: 'exec', input: '' } }]),
        b: tools([{ index: 0, type: 'custom', custom: { input: 'ls' } }]),
        c: chunk({}, 'tool_calls'),
      });
      const id = `ctc_${CHAT_ID}_0`;
      const item = { id, type: 'custom_tool_call', status: 'completed', call_id: 'call_c', name: 'exec', input: 'ls' };
      expectObservable(src.pipe(fromChatChunks())).toBe(at([0, '(ab)'], [5, '(cd)'], [10, '(ef)'], [15, '(g|)']), {
        a: expect.objectContaining({ type: 'response.created' }),
        b: expect.objectContaining({ type: 'response.in_progress' }),
        c: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', input: '' }, sequence_number: 2 },
        d: { type: 'response.custom_tool_call_input.delta', item_id: id, output_index: 0, delta: 'ls', sequence_number: 3 },
        e: { type: 'response.custom_tool_call_input.done', item_id: id, output_index: 0, input: 'ls', sequence_number: 4 },
        f: { type: 'response.output_item.done', output_index: 0, item, sequence_number: 5 },
        g: expect.objectContaining({ type: 'response.completed', response: expect.objectContaining({ output: [item] }) }),
      });
    });
  });

  it('tool calls without index: a known id continues its call, a new id is a new call, no id continues the last (but not twice in one delta)', () => {
    const { events } = collect([
      tools([{ id: 'A', type: 'function', function: { name: 'f', arguments: '{"a"' } }]),
      tools([{ id: 'A', function: { arguments: ':1}' } }]),
      tools([{ id: 'B', function: { name: 'g', arguments: '{}' } }, { function: { name: 'h', arguments: '{"h"' } }]),
      tools([{ function: { arguments: ':2}' } }]),
      chunk({}, 'tool_calls'),
    ]);
    const output = last(events).response['output'] as Array<Record<string, unknown>>;
    expect(output.map((o) => [o['call_id'], o['name'], o['arguments']])).toEqual([
      ['A', 'f', '{"a":1}'], ['B', 'g', '{}'], [`call_${CHAT_ID}_p2`, 'h', '{"h":2}'],
    ]);
    // The call without an id waits for one (its item opens when the choice finishes), then sends what it held.
    expect(ofType(events, 'response.function_call_arguments.delta').map((e) => [e['output_index'], e['delta']])).toEqual([[0, '{"a"'], [0, ':1}'], [1, '{}'], [2, '{"h":2}']]);
  });

  it('an index reused with a different id is a new call; an index-less fragment with an indexed call id continues it', () => {
    const { events } = collect([
      tools([{ index: 0, id: 'X', function: { name: 'f', arguments: '{' } }]),
      tools([{ id: 'X', function: { arguments: '}' } }]),
      tools([{ index: 0, id: 'Y', function: { name: 'g', arguments: '{}' } }]),
      tools([{ index: 0, function: { arguments: '' } }]),
      chunk({}, 'tool_calls'),
    ]);
    const output = last(events).response['output'] as Array<Record<string, unknown>>;
    expect(output.map((o) => [o['call_id'], o['name'], o['arguments']])).toEqual([['X', 'f', '{}'], ['Y', 'g', '{}']]);
  });

  it('reasoning_details alone: text details are reasoning text, summaries a summary part, encrypted data the item\'s encrypted_content', () => {
    const { events } = collect([
      chunk({ reasoning_details: [{ type: 'reasoning.summary', summary: 'Plan: ' }] }),
      chunk({ reasoning_details: [{ type: 'reasoning.summary', summary: 'answer.' }, { type: 'reasoning.text', text: 'raw' }, { type: 'reasoning.encrypted', data: 'gAAA' }, { type: 'reasoning.future' }] }),
      chunk({ content: 'Done' }),
      chunk({}, 'stop'),
    ]);
    expect(events.slice(2, 8).map((e) => e.type)).toEqual([
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.delta',
      'response.content_part.added', 'response.reasoning_text.delta',
    ]);
    const output = last(events).response['output'] as Array<Record<string, unknown>>;
    expect(output[0]).toEqual({
      id: `rs_${CHAT_ID}_0`, type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Plan: answer.' }],
      content: [{ type: 'reasoning_text', text: 'raw' }], encrypted_content: 'gAAA',
    });
    expect(events.every((e) => { try { decodeTyped(JSON.parse(JSON.stringify(e)), responseEventTable, 'strict', e.type); return true; } catch { return false; } })).toBe(true);
  });

  it('content parts of unknown types are skipped; logprobs of a chunk without text stay with the text part', () => {
    const lp = (token: string) => ({ content: [{ token, logprob: -1, bytes: null, top_logprobs: [] }] });
    const { events } = collect([
      chunk({ content: [{ type: 'image_url', image_url: { url: 'data:' } }, { type: 'text', text: 'A' }] }),
      { ...chunk({ content: null }), choices: [{ index: 0, delta: {}, logprobs: lp('B'), finish_reason: null }] } as unknown as ChatCompletionChunk,
      chunk({}, 'stop'),
    ]);
    expect(ofType(events, 'response.output_text.delta').map((e) => e['delta'])).toEqual(['A']);
    expect(ofType(events, 'response.output_text.done')[0]!['logprobs']).toEqual([{ token: 'B', logprob: -1, bytes: [], top_logprobs: [] }]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['content part text', { content: [{ type: 'text', text: 7 }] }, 'choices[0].delta.content[0].text'],
    ['content', { content: 7 }, 'choices[0].delta.content'],
    ['thinking part text', { content: [{ type: 'thinking', thinking: [{ type: 'text', text: {} }] }] }, 'choices[0].delta.content[0].thinking[0].text'],
    ['reasoning_details', { reasoning_details: 'x' }, 'choices[0].delta.reasoning_details'],
    ['reasoning detail', { reasoning_details: [{ type: 'reasoning.encrypted', data: 1 }] }, 'choices[0].delta.reasoning_details[0].data'],
    ['audio data', { audio: { data: 1 } }, 'choices[0].delta.audio.data'],
    ['custom tool input', { tool_calls: [{ index: 0, type: 'custom', custom: { name: 'x', input: 1 } }] }, 'choices[0].delta.tool_calls[0].custom.input'],
    ['tool call index', { tool_calls: [{ index: '0', id: 'c', function: { name: 'f' } }] }, 'choices[0].delta.tool_calls[0].index'],
  ])('a wrong-typed %s ends the stream with a DecodeError naming its path', (_what, delta, path) => {
    const { error, completed } = collect([chunk({ role: 'assistant' }), chunk(delta)]);
    expect(completed).toBe(false);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error).toMatchObject({ eventType: 'chat.completion.chunk', sequenceNumber: 1, path });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['citations', { citations: [1] }, 'citations[0]'],
    ['a search result url', { search_results: [{ title: 't' }] }, 'search_results[0].url'],
    ['a logprob token', { choices: [{ index: 0, delta: {}, logprobs: { content: [{ token: 1, logprob: 0 }] } }] }, 'choices[0].logprobs.content[0].token'],
    ['x_groq usage', { x_groq: { usage: { prompt_tokens: 1 } } }, 'x_groq.usage.completion_tokens'],
    ['a choice usage', { choices: [{ index: 0, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: '2' } }] }, 'choices[0].usage.total_tokens'],
  ])('a wrong-typed chunk field (%s) ends the stream with a DecodeError naming its path', (_what, over, path) => {
    const { error } = collect([chunk({ role: 'assistant' }), { ...chunk({}), ...over } as ChatCompletionChunk]);
    expect(error).toMatchObject({ sequenceNumber: 1, path });
  });
});
