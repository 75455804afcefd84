// Every provider dialect decodes with the default (strict) validation and bridges to the Responses
// events and final response written out in ./dialects.ts.
import { from, lastValueFrom, toArray } from 'rxjs';
import { decodeChunk } from '../../lib/decode/chat-sse';
import { DecodeError } from '../../lib/errors';
import { decodeTyped } from '../../lib/events/decode';
import { responseEventTable } from '../../lib/events/responses';
import { accumulateResponse } from '../../operators/accumulateResponse';
import { collectToolCalls } from '../../operators/collectToolCalls';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { payloads } from '../helpers/fixtures';
import { bridged, chunksOf, dialect, dialectFiles, EXPECTED, summarize } from './dialects';

type Json = Record<string, unknown>;
type Ev = { type: string; sequence_number?: number } & Json;

test('every recording has its expectation, and the recordings cover every named dialect', () => {
  expect(dialectFiles()).toEqual(Object.keys(EXPECTED).sort());
  const all = dialectFiles().map(dialect).join('\n');
  for (const marker of [
    '"object":""', '"prompt_filter_results"', '"content_filter_results"', '"object":"chat.completion",', '"message":', '"citations"', '"search_results"',
    '"reasoning_content"', '"reasoning":', '"reasoning_details"', '"reasoning.encrypted"', '"x_groq"', '"timings"', '"provider"', '"native_finish_reason"',
    '"type":"custom"', '"type":"thinking"', '"top_logprobs"', '"audio":{', '"prompt_cache_hit_tokens"',
  ]) expect({ marker, found: all.includes(marker) }).toEqual({ marker, found: true });
});

describe.each(dialectFiles())('%s', (name) => {
  const sse = dialect(name);
  let events: Ev[];
  beforeAll(async () => {
    events = (await bridged(sse)) as Ev[];
  });

  test('decodes with strict validation, keeping every key of every chunk', async () => {
    // A chunk without `choices` is given `choices: []` (so the type holds); nothing else is added or lost.
    const withChoices = payloads(sse).map((p) => (p['choices'] === undefined || p['choices'] === null ? { ...p, choices: [] } : p));
    expect(await chunksOf(sse)).toEqual(withChoices);
  });

  test('bridges to the expected final response', () => {
    const final = events[events.length - 1]!;
    expect(final.type).toBe('response.completed');
    expect(summarize(final['response'] as Json)).toEqual(EXPECTED[name]);
  });

  test('every event passes its strict codec, numbered from 0, each item delta inside its added/done pair', () => {
    const open = new Set<unknown>();
    const closed = new Set<unknown>();
    events.forEach((e, i) => {
      expect(() => decodeTyped(JSON.parse(JSON.stringify(e)), responseEventTable, 'strict', e.type)).not.toThrow();
      expect(e.sequence_number).toBe(i);
      if (e.type === 'response.output_item.added') open.add((e['item'] as Json)['id']);
      else if (e.type === 'response.output_item.done') closed.add((e['item'] as Json)['id']);
      else if (typeof e['item_id'] === 'string') expect(open.has(e['item_id']) && !closed.has(e['item_id'])).toBe(true);
    });
    expect(closed).toEqual(open);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
  });

  test('response.created already carries the id, model and time of the final response', () => {
    const created = events[0]!['response'] as Json;
    const final = events[events.length - 1]!['response'] as Json;
    expect([created['id'], created['model'], created['created_at']]).toEqual([final['id'], final['model'], final['created_at']]);
  });

  test('accumulateResponse assembles the same output as the terminal event; collectToolCalls finds every call', async () => {
    const last = await lastValueFrom(from(events).pipe(accumulateResponse()));
    const final = events[events.length - 1]!['response'] as Json;
    expect(last.output).toEqual(final['output']);
    const calls = await lastValueFrom(from(events).pipe(collectToolCalls(), toArray()));
    expect(calls.map((c) => (c as unknown as Json)['callId'] ?? (c as unknown as Json)['call_id'])).toEqual(EXPECTED[name]!.calls.map((c) => c.call_id));
  });
});

describe('dialect details', () => {
  const types = (events: Ev[]) => events.map((e) => e.type);

  test("Azure: the prompt-filter chunk and the asynchronous filter chunks (empty id, no delta) neither start nor rename the response", async () => {
    const chunks = await chunksOf(dialect('azure'));
    const events = (await lastValueFrom(from(chunks.slice(0, 1)).pipe(fromChatChunks(), toArray()))) as Ev[];
    // Alone, the empty first chunk still ends as a (empty) response when the stream completes.
    expect(types(events)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    const all = (await bridged(dialect('azure'))) as Ev[];
    expect(all.filter((e) => e.type === 'response.created')).toHaveLength(1);
    expect(all.filter((e) => e.type === 'response.output_text.delta').map((e) => e['item_id'])).toEqual(Array(9).fill('msg_chatcmpl-CHaZ7rT1kQ9mV2pL4wR8sN1bY6zA0_0'));
  });

  test('Perplexity: citations resent on every chunk are annotated once, after the text, before output_text.done', async () => {
    const events = (await bridged(dialect('perplexity'))) as Ev[];
    const t = types(events);
    expect(t.filter((x) => x === 'response.output_text.annotation.added')).toHaveLength(2);
    expect(t.indexOf('response.output_text.annotation.added')).toBeGreaterThan(t.lastIndexOf('response.output_text.delta'));
    expect(t.lastIndexOf('response.output_text.annotation.added')).toBeLessThan(t.indexOf('response.output_text.done'));
    expect(events.filter((e) => e.type === 'response.output_text.annotation.added').map((e) => e['annotation_index'])).toEqual([0, 1]);
  });

  test('OpenRouter: reasoning beside reasoning_details with the same text is counted once; the encrypted detail lands on the item', async () => {
    const events = (await bridged(dialect('openrouter'))) as Ev[];
    expect(events.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e['delta'])).toEqual(['Simple greeting;', ' answer warmly.']);
  });

  test('logprobs ride on the output_text.delta of their chunk and add up on output_text.done', async () => {
    const events = (await bridged(dialect('logprobs'))) as Ev[];
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((e) => [e['delta'], (e['logprobs'] as Json[]).map((l) => l['token'])])).toEqual([['Yes', ['Yes']], [',', [',']], [' é', [' é']]]);
    expect((deltas[2]!['logprobs'] as Json[])[0]).toEqual({
      token: ' é', logprob: -0.5, bytes: [32, 195, 169], top_logprobs: [{ token: ' é', logprob: -0.5, bytes: [32, 195, 169] }, { token: ' e', logprob: -1.1, bytes: [32, 101] }],
    });
    const done = events.find((e) => e.type === 'response.output_text.done')!;
    expect((done['logprobs'] as Json[]).map((l) => l['token'])).toEqual(['Yes', ',', ' é']);
  });

  test('audio: transcript and data as response.audio events, closed before the part; the trailing expires_at opens nothing', async () => {
    const events = (await bridged(dialect('audio'))) as Ev[];
    expect(types(events).slice(2)).toEqual([
      'response.output_item.added', 'response.content_part.added',
      'response.audio.transcript.delta', 'response.audio.transcript.delta', 'response.audio.delta', 'response.audio.delta',
      'response.audio.done', 'response.audio.transcript.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    const part = (events.find((e) => e.type === 'response.content_part.done')!['part'] as Json);
    expect(part).toEqual({ type: 'output_audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEA', transcript: 'Hello there!', id: 'audio_68cc1f2a3b4c8191a0b1c2d3e4f5a6b7', expires_at: 1758293600 });
  });

  test('custom tool call: custom_tool_call item with input deltas, never a function call with an empty name', async () => {
    const events = (await bridged(dialect('custom-tool'))) as Ev[];
    expect(events.some((e) => e.type.startsWith('response.function_call'))).toBe(false);
    expect(events.filter((e) => e.type === 'response.custom_tool_call_input.delta').map((e) => e['delta'])).toEqual(['print(', '"hello', ' world")']);
    expect(events.find((e) => e.type === 'response.custom_tool_call_input.done')!['input']).toBe('print("hello world")');
    expect((events.find((e) => e.type === 'response.output_item.added')!['item'] as Json)).toMatchObject({ type: 'custom_tool_call', status: 'in_progress', name: 'code_exec', input: '' });
  });

  test('Gemini and Mistral: whole calls in one delta without index are separate calls, in order', async () => {
    for (const name of ['gemini', 'mistral']) {
      const events = (await bridged(dialect(name))) as Ev[];
      const added = events.filter((e) => e.type === 'response.output_item.added' && (e['item'] as Json)['type'] === 'function_call');
      expect(added).toHaveLength(2);
      expect(events.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e['output_index'])).toEqual(added.map((e) => e['output_index']));
    }
  });

  test('content parts: thinking parts are reasoning, text parts and later plain strings are text', async () => {
    const events = (await bridged(dialect('content-parts'))) as Ev[];
    expect(events.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e['delta'])).toEqual(['Okay, 2+2', ' is 4.']);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e['delta'])).toEqual(['The answer', ' is **4**.']);
  });
});

describe('the chunk codec checks what the library reads, with the path of a wrong field', () => {
  const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const choice = (delta: Json) => ({ ...base, choices: [{ index: 0, delta }] });

  test.each<[string, Json]>([
    ['no metadata and no choices (audio usage chunk)', { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }],
    ["Azure's empty first chunk", { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [] }],
    ['Perplexity object and message', { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'a' }, delta: { content: 'a' } }] }],
    ['a tool call without index', choice({ tool_calls: [{ id: 'x', function: { name: 'f', arguments: '{}' } }] })],
    ['a custom tool call', choice({ tool_calls: [{ index: 0, id: 'x', type: 'custom', custom: { name: 'f', input: 'a' } }] })],
    ['content parts, thinking as a string or parts, an unknown part', choice({ content: [{ type: 'thinking', thinking: 'a' }, { type: 'thinking', thinking: [{ type: 'text', text: 'b' }] }, { type: 'image_url', image_url: {} }, { type: 'text', text: 'c' }] })],
    ['reasoning_details of every kind', choice({ reasoning: 'a', reasoning_details: [{ type: 'reasoning.text', text: 'a' }, { type: 'reasoning.summary', summary: 's' }, { type: 'reasoning.encrypted', data: 'e' }, { type: 'reasoning.other' }] })],
    ['citations, search_results, x_groq, choice usage', { ...base, citations: ['u'], search_results: [{ url: 'u', title: null }], x_groq: { id: 'req' }, choices: [{ index: 0, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }] }],
  ])('accepts %s', (_name, u) => {
    expect(decodeChunk(u, 'strict', 0)).toBe(u);
  });

  test.each<[string, Json, string]>([
    ['object', { ...base, object: 7, choices: [] }, 'object'],
    ['id', { ...base, id: null, choices: [] }, 'id'],
    ['tool call index', choice({ tool_calls: [{ index: '0' }] }), 'choices.0.delta.tool_calls.0.index'],
    ['custom input', choice({ tool_calls: [{ index: 0, custom: { input: 1 } }] }), 'choices.0.delta.tool_calls.0.custom.input'],
    ['content', choice({ content: 7 }), 'choices.0.delta.content'],
    ['content part text', choice({ content: [{ type: 'text', text: 7 }] }), 'choices.0.delta.content.0.text'],
    ['thinking part text', choice({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 7 }] }] }), 'choices.0.delta.content.0.thinking.0.text'],
    ['reasoning detail', choice({ reasoning_details: [{ type: 'reasoning.encrypted', data: 1 }] }), 'choices.0.delta.reasoning_details.0.data'],
    ['audio transcript', choice({ audio: { transcript: 1 } }), 'choices.0.delta.audio.transcript'],
    ['logprob token', { ...base, choices: [{ index: 0, logprobs: { content: [{ token: 1, logprob: 0 }] } }] }, 'choices.0.logprobs.content.0.token'],
    ['citation', { ...base, citations: [1] }, 'citations.0'],
    ['x_groq usage', { ...base, x_groq: { usage: { prompt_tokens: 1 } } }, 'x_groq.usage.completion_tokens'],
  ])('rejects a wrong %s in strict mode', (_name, u, path) => {
    let err: unknown;
    try {
      decodeChunk(u, 'strict', 4);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DecodeError);
    expect(err).toMatchObject({ path, sequenceNumber: 4 });
    expect(decodeChunk(u, 'off', 4)).toBe(u);
  });
});
