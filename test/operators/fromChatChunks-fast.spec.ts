// fromChatChunks reads the commonest chunk (one content delta) on a fast path: whatever the chunks, it must do
// exactly what the general path does, event for event, error for error. A chunk whose prototype is not
// Object.prototype always takes the general path: each stream is compared with its copy made of such chunks.
// Seeded: set FC_SEED to replay a failure.
import fc from 'fast-check';
import { from, tap } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { ABSENT, changed, changeOf, type Json } from './chunk-changes';

const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261202;


/** What fromChatChunks makes of `chunks`: its events, each chunk's after a '|', and how it ended, as JSON. */
function run(chunks: unknown[], choiceIndex = 0): string {
  const out: unknown[] = [];
  let end = 'pending';
  from(chunks as ChatCompletionChunk[]).pipe(tap(() => out.push('|')), fromChatChunks({ choiceIndex })).subscribe({
    next: (e) => out.push(e),
    error: (e: unknown) => (end = `error: ${(e as Error).name} ${String((e as Error).message)}`),
    complete: () => (end = 'complete'),
  });
  return JSON.stringify({ out, end });
}

/** The same chunk on the general path: a copy whose prototype is not Object.prototype (and lends nothing). */
const general = (c: unknown): unknown => (typeof c === 'object' && c !== null && !Array.isArray(c) ? Object.setPrototypeOf({ ...c }, Object.create(null) as object) : c);

const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
/** Values each field may take beside its commonest one: absent, null, empty, valid, of the wrong type. */
const CHUNK: Record<string, unknown[]> = {
  id: [ABSENT, '', 5], created: [ABSENT, 0, 'x'], model: [ABSENT, '', null],
  choices: [ABSENT, null, [], 'x', [null]], usage: [ABSENT, usage, 5], x_groq: [null, { usage }, 'x'],
  citations: [null, [], ['https://y.test'], 'x'], search_results: [null, [{ url: 'https://z.test', title: 'Z' }], 3],
};
const CHOICE: Record<string, unknown[]> = {
  index: [ABSENT, 1, '0', null], delta: [ABSENT, null, 'x', []], logprobs: [ABSENT, '', 5, { content: null }, { content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] }],
  finish_reason: [ABSENT, '', 'stop', 'length', 7], usage: [null, usage, 'x'],
};
const DELTA: Record<string, unknown[]> = {
  role: [ABSENT, null], content: [ABSENT, null, '', 5, [{ type: 'text', text: 'x' }]], refusal: [null, '', 'no', 3],
  reasoning_content: [null, '', 'think', 1], reasoning: [null, '', 'hmm', {}], reasoning_details: [null, [], 'x', [{ type: 'reasoning.text', text: 'd' }]],
  audio: [null, '', { data: 'AA', transcript: 'a' }], annotations: [null, '', [], [{ type: 'url_citation', url_citation: { start_index: 0, end_index: 1, url: 'https://x.test', title: 'X' } }]],
  function_call: [null, '', { name: 'f', arguments: '{}' }], tool_calls: [null, '', [], [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }]],
};
const change = changeOf({ chunk: CHUNK, choice: CHOICE, delta: DELTA });
/** The commonest chunk (a content delta), with up to three of its fields changed; a second choice sometimes. */
const chunk = fc.tuple(fc.constantFrom('Hi', ' there', ''), fc.array(change, { maxLength: 3 }), fc.boolean()).map(([content, changes, two]) => {
  const d: Json = { role: 'assistant', content };
  const c0: Json = { index: 0, delta: d, logprobs: null, finish_reason: null };
  const c: Json = { id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: two ? [c0, { ...c0, index: 1 }] : [c0], usage: null };
  return changed(c, c0, d, changes);
});

describe('fromChatChunks: the fast path does what the general path does', () => {
  test('on random streams of chunks (valid and not, every field present, null, empty or of the wrong type)', () => {
    try {
      fc.assert(
        fc.property(fc.array(chunk, { maxLength: 6 }), fc.constantFrom(0, 0, 1), (chunks, choiceIndex) => {
          expect(run(chunks, choiceIndex)).toBe(run(chunks.map(general), choiceIndex));
        }),
        { seed: SEED, numRuns: 3000 },
      );
    } catch (e) {
      throw new Error(`property failed with FC_SEED=${SEED}: ${(e as Error).message}`);
    }
  });

  test('on a stream of the commonest chunks (the fast path throughout)', () => {
    const c = (d: Json, finish: string | null = null): Json => ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }], usage: null });
    const chunks = [c({ role: 'assistant', content: '', refusal: null }), ...['Hello', ', ', 'world', '!'].map((w) => c({ content: w })), c({}, 'stop'), { ...c({}), choices: [], usage }];
    const fast = run(chunks);
    expect(fast).toBe(run(chunks.map(general)));
    const done = (JSON.parse(fast) as { out: Json[] }).out.find((e) => typeof e === 'object' && e['type'] === 'response.output_text.done');
    expect(done?.['text']).toBe('Hello, world!');
  });

  test('a text of more pieces than are joined at once, and of none', () => {
    const c = (d: Json): Json => ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: d, logprobs: null, finish_reason: null }] });
    const words = Array.from({ length: 1000 }, (_, i) => `w${i} `);
    const out = (JSON.parse(run(words.map((w) => c({ content: w })))) as { out: Json[] }).out.filter((e) => typeof e === 'object');
    expect(out.find((e) => e['type'] === 'response.output_text.done')?.['text']).toBe(words.join(''));
    expect(out.filter((e) => e['type'] === 'response.output_text.delta')).toHaveLength(1000);
    expect(run([c({ content: '' }), c({ content: null })])).toBe(run([c({ content: '' }), c({ content: null })].map(general)));
  });
});
