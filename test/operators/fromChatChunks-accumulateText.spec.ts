// `fromChatChunks(), accumulateText()` (and outputText) hand the commonest text delta to the accumulation without
// building its event when the accumulation is fromChatChunks' direct subscriber: whatever the chunks, the snapshots,
// errors and completions must be those of the same operators with an operator between them (the event path).
// Seeded: set FC_SEED to replay a failure.
import fc from 'fast-check';
import { from, map, Subject, take, tap, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateText, type AccumulateTextOptions } from '../../operators/accumulateText';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { ABSENT, changed, changeOf, type Json } from './chunk-changes';
import { outputText } from '../../operators/outputText';

const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261202;

type After = (direct: boolean) => OperatorFunction<ResponseStreamEvent, unknown>;

/** The events of fromChatChunks through `map` (another subscriber between the two operators): the event path. */
const between = (direct: boolean): OperatorFunction<ResponseStreamEvent, ResponseStreamEvent> => (s) => (direct ? s : s.pipe(map((e) => e)));

const text = (options: AccumulateTextOptions, limit?: number): After => (direct) => (s) => {
  const out = s.pipe(between(direct), accumulateText(options));
  return limit === undefined ? out : out.pipe(take(limit));
};
const whole: After = (direct) => (s) => s.pipe(between(direct), outputText());

/** What the pipeline makes of `chunks`: its values, each chunk's after a '|', and how it ended, as JSON. */
function run(chunks: unknown[], choiceIndex: number, after: After, direct: boolean): string {
  const out: unknown[] = [];
  let end = 'pending';
  from(chunks as ChatCompletionChunk[]).pipe(tap(() => out.push('|')), fromChatChunks({ choiceIndex }), after(direct)).subscribe({
    next: (v) => out.push(v),
    error: (e: unknown) => (end = `error: ${(e as Error).name} ${String((e as Error).message)}`),
    complete: () => (end = 'complete'),
  });
  return JSON.stringify({ out, end });
}

const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
/** Values each field may take beside its commonest one: absent, null, empty, valid, of the wrong type. */
const CHUNK: Record<string, unknown[]> = {
  id: [ABSENT, '', 5, 'chatcmpl_2'], model: [ABSENT, ''], choices: [ABSENT, [], 'x'], usage: [usage, 5],
  citations: [['https://y.test'], 'x'],
};
const CHOICE: Record<string, unknown[]> = {
  index: [1, '0'], delta: [ABSENT, null, 'x'], logprobs: [{ content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] }, 5],
  finish_reason: ['stop', 'length', 'tool_calls', 7], usage: [usage],
};
const DELTA: Record<string, unknown[]> = {
  content: [ABSENT, null, '', 5, [{ type: 'text', text: 'x' }]], refusal: ['no', 3], reasoning_content: ['think', 1], reasoning: ['hmm'],
  audio: [{ data: 'AA', transcript: 'a' }], annotations: [[{ type: 'url_citation', url_citation: { start_index: 0, end_index: 1, url: 'https://x.test', title: 'X' } }]],
  tool_calls: ['', [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }], [{ index: 1, function: { arguments: '}' } }]],
};
const change = changeOf({ chunk: CHUNK, choice: CHOICE, delta: DELTA });
/** A content delta, most often the commonest chunk, else with one or two fields changed; a second choice sometimes. */
const chunk = fc
  .tuple(fc.constantFrom('Hi', ' there', '', '!'), fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(change, { minLength: 1, maxLength: 2 }) }), fc.integer({ min: 0, max: 9 }))
  .map(([content, changes, two]) => {
    const d: Json = { content };
    const c0: Json = { index: 0, delta: d, logprobs: null, finish_reason: null };
    const c: Json = { id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: two === 0 ? [c0, { ...c0, index: 1 }] : [c0], usage: null };
    return changed(c, c0, d, changes);
  });
const role = { id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], usage: null };

const AFTER: Array<[string, After]> = [
  ['accumulateText()', text({})],
  ["accumulateText({ kind: 'all' })", text({ kind: 'all' })],
  ["accumulateText({ kind: 'refusal' })", text({ kind: 'refusal' })],
  ['accumulateText() then take(3)', text({}, 3)],
  ['outputText()', whole],
];

describe('fromChatChunks → accumulateText: the direct text path does what the event path does', () => {
  test.each(AFTER)('%s, on random streams of chunks (valid and not)', (_, after) => {
    try {
      fc.assert(
        fc.property(fc.boolean(), fc.array(chunk, { maxLength: 14 }), fc.constantFrom(0, 0, 0, 1), (opened, chunks, choiceIndex) => {
          const all = opened ? [role, ...chunks] : chunks;
          expect(run(all, choiceIndex, after, true)).toBe(run(all, choiceIndex, after, false));
        }),
        { seed: SEED, numRuns: 1500 },
      );
    } catch (e) {
      throw new Error(`property failed with FC_SEED=${SEED}: ${(e as Error).message}`);
    }
  });

  test('a long text takes the direct path and gives the same snapshots', () => {
    const c = (d: Json, finish: string | null = null): Json => ({ ...role, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
    const words = Array.from({ length: 600 }, (_, i) => `w${i} `);
    const chunks = [role, ...words.map((w) => c({ content: w })), c({}, 'stop'), { ...role, choices: [], usage }];
    const fast = run(chunks, 0, text({}), true);
    expect(fast).toBe(run(chunks, 0, text({}), false));
    const out = (JSON.parse(fast) as { out: Json[] }).out.filter((v) => typeof v === 'object');
    expect(out).toHaveLength(601);
    expect(out[600]).toEqual({ kind: 'output_text', itemId: 'msg_chatcmpl_1_0', outputIndex: 0, contentIndex: 0, delta: '', text: words.join(''), done: true });
  });

  test('unsubscribing inside a snapshot stops the conversion on the direct path too', () => {
    const source = new Subject<ChatCompletionChunk>();
    const seen: string[] = [];
    const sub = source.pipe(fromChatChunks(), accumulateText()).subscribe((s) => {
      seen.push(s.text);
      if (seen.length === 5) sub.unsubscribe();
    });
    source.next(role as unknown as ChatCompletionChunk);
    for (let i = 0; i < 50 && source.observed; i++) source.next({ ...role, choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }] } as unknown as ChatCompletionChunk);
    expect(seen).toEqual(['x', 'xx', 'xxx', 'xxxx', 'xxxxx']);
    expect(source.observed).toBe(false);
  });
});
