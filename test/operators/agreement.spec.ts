// The four operators that read an answer's text agree on every stream: accumulateText, outputText,
// accumulateResponse and toChatChunks give the same final text over every Responses transcript, and over
// variants that real providers produce: a terminal `output` that leaves out, reorders or empties the items
// that streamed, and text that arrives only whole (in `.done`, in the closed item, in the final output).
import { from, Observable } from 'rxjs';
import { ResponseStreamError } from '../../lib/errors';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { Response } from '../../lib/events/response';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, accumulateText, outputText, toChatChunks } from '../../operators/index';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';

type Obj = Record<string, unknown>;
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Every value until the stream completes, or errors as a failed transcript does in toChatChunks (nothing else may end it). */
function values<T>(o: Observable<T>): T[] {
  const out: T[] = [];
  let end: unknown = 'pending';
  o.subscribe({ next: (v) => out.push(v), error: (e: unknown) => (end = e), complete: () => (end = undefined) });
  if (end !== undefined && !(end instanceof ResponseStreamError)) throw new Error(`ended with ${String(end)} after ${out.length} values instead of completing`);
  return out;
}

const viaText = (events: Obj[]): string =>
  values(from(events as unknown as ResponseStreamEvent[]).pipe(accumulateText()))
    .filter((s) => s.done)
    .sort((a, b) => a.outputIndex - b.outputIndex || a.contentIndex - b.contentIndex)
    .map((s) => s.text)
    .join('');

const viaOutputText = (events: Obj[]): string => values(from(events as unknown as ResponseStreamEvent[]).pipe(outputText())).at(-1) ?? '';

/** The answer's text in the last response (before a failure, whose output is its own). */
const viaResponse = (events: Obj[]): string => {
  const rs = values(from(events as unknown as ResponseStreamEvent[]).pipe(accumulateResponse()));
  const last: Response | undefined = rs.at(-1)?.status === 'failed' ? rs.at(-2) : rs.at(-1);
  return (last?.output ?? [])
    .filter((i) => i.type === 'message')
    .flatMap((i) => ((i as { content?: Obj[] }).content ?? []).filter((c) => c['type'] === 'output_text').map((c) => c['text'] as string))
    .join('');
};

const viaChat = (events: Obj[]): string =>
  values(from(events as unknown as ResponseStreamEvent[]).pipe(toChatChunks()))
    .map((c: ChatCompletionChunk) => (c.choices?.[0]?.delta as { content?: string | null } | undefined)?.content ?? '')
    .join('');

/** The transcript with its terminal event's `output` rewritten by `f` (unchanged when it has none). */
function withOutput(events: Obj[], f: (output: unknown[]) => unknown[]): Obj[] {
  return events.map((e) => {
    const r = e['response'] as Obj | undefined;
    if (!TERMINAL.has(e['type'] as string) || !Array.isArray(r?.['output'])) return e;
    return { ...e, response: { ...r, output: f(r['output'] as unknown[]) } };
  });
}

const without = (events: Obj[], types: readonly string[]): Obj[] => events.filter((e) => !types.includes(e['type'] as string));

const VARIANTS: Array<[string, (events: Obj[]) => Obj[]]> = [
  ['as recorded', (es) => es],
  ['terminal output reversed', (es) => withOutput(es, (o) => [...o].reverse())],
  ['terminal output without its first item', (es) => withOutput(es, (o) => o.slice(1))],
  ['terminal output with its last item only', (es) => withOutput(es, (o) => o.slice(-1))],
  ['terminal output empty', (es) => withOutput(es, () => [])],
  ['text only in .done', (es) => without(es, ['response.output_text.delta'])],
  ['text only in the closed item', (es) => without(es, ['response.output_text.delta', 'response.output_text.done', 'response.content_part.done'])],
  [
    'text only in the terminal output',
    (es) => without(es, ['response.output_text.delta', 'response.output_text.done', 'response.content_part.added', 'response.content_part.done', 'response.output_item.added', 'response.output_item.done']),
  ],
];

const CASES = responsesFixtures().flatMap((name) => VARIANTS.map(([variant, f]): [string, string, (es: Obj[]) => Obj[]] => [name, variant, f]));

describe('accumulateText, outputText, accumulateResponse and toChatChunks agree', () => {
  test.each(CASES)('%s, %s: the same final text', (name, _variant, f) => {
    const events = f(payloads(fixture(name)));
    const text = viaText(events);
    expect({ outputText: viaOutputText(events), accumulateResponse: viaResponse(events), toChatChunks: viaChat(events) }).toEqual({
      outputText: text,
      accumulateResponse: text,
      toChatChunks: text,
    });
  });

  test.each(responsesFixtures())('%s: reshaping the terminal output does not change the text', (name) => {
    const events = payloads(fixture(name));
    const recorded = viaText(events);
    for (const [, f] of VARIANTS.slice(1, 5)) expect(viaText(f(events))).toBe(recorded);
  });

  test('the variants reshape something: trimmed outputs and text-only-whole streams occur', () => {
    const reshaped = responsesFixtures().filter((n) => {
      const es = payloads(fixture(n));
      return JSON.stringify(VARIANTS[2]![1](es)) !== JSON.stringify(es);
    });
    expect(reshaped.length).toBeGreaterThan(5);
    expect(viaText(VARIANTS[7]![1](payloads(fixture('plain-text'))))).toBe('OK.');
  });
});
