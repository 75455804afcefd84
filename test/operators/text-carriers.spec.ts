// A part's text may come in any of the events that carry it: a part (or item) that opens with text, deltas,
// `output_text.done`, `content_part.done`, `output_item.done`, the terminal `output`. Whatever subset a provider
// sends, outputText, accumulateText, accumulateResponse and toChatChunks end with the whole text.
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, accumulateText, outputText, toChatChunks } from '../../operators/index';
import * as ev from './events';

const TEXT = 'Hello world';

interface Carriers {
  readonly opener: 'part' | 'item';
  /** The text the part opens with. */
  readonly opening: string;
  /** Whether the deltas carry the rest. */
  readonly deltas: boolean;
  readonly textDone: boolean;
  readonly partDone: boolean;
  readonly itemDone: boolean;
  readonly output: boolean;
}

function events(c: Carriers): ResponseStreamEvent[] {
  const out: ResponseStreamEvent[] = [ev.created()];
  if (c.opener === 'item') out.push(ev.itemAdded(0, ev.msg('m', [ev.textPart(c.opening)])));
  else out.push(ev.itemAdded(0, ev.msg('m')), ev.partAdded('m', 0, 0, ev.textPart(c.opening)));
  if (c.deltas) for (const piece of TEXT.slice(c.opening.length).match(/.{1,2}/gs) ?? []) out.push(ev.textDelta('m', 0, 0, piece));
  if (c.textDone) out.push(ev.textDone('m', 0, 0, TEXT));
  if (c.partDone) out.push(ev.partDone('m', 0, 0, ev.textPart(TEXT)));
  if (c.itemDone) out.push(ev.itemDone(0, ev.msg('m', [ev.textPart(TEXT)], 'completed')));
  out.push(ev.completed(c.output ? [ev.msg('m', [ev.textPart(TEXT)], 'completed')] : []));
  return out;
}

/** Every combination in which some event carries the whole text. */
function combinations(): Carriers[] {
  const out: Carriers[] = [];
  const bools = [false, true];
  for (const opener of ['part', 'item'] as const) {
    for (const opening of ['', 'Hello ', TEXT]) {
      for (const deltas of bools) for (const textDone of bools) for (const partDone of bools) for (const itemDone of bools) for (const output of bools) {
        if (deltas && opening === TEXT) continue; // nothing left for them
        const streamed = opening === TEXT || (deltas && opening !== TEXT);
        if (streamed || textDone || partDone || itemDone || output) out.push({ opener, opening, deltas, textDone, partDone, itemDone, output });
      }
    }
  }
  return out;
}

const name = (c: Carriers) => `${c.opener} opens with '${c.opening}'${c.deltas ? ', deltas' : ''}${c.textDone ? ', text.done' : ''}${c.partDone ? ', part.done' : ''}${c.itemDone ? ', item.done' : ''}${c.output ? ', output' : ''}`;
const cases = combinations().map((c) => [name(c), c] as const);

describe('the final text, whatever subset of its carriers a provider sends', () => {
  test('there are cases of every kind', () => {
    expect(cases.length).toBeGreaterThan(100);
  });

  test.each(cases)('outputText: %s', async (_, c) => {
    expect(await lastValueFrom(from(events(c)).pipe(outputText()))).toBe(TEXT);
  });

  test.each(cases)('accumulateText: %s', async (_, c) => {
    const snaps = await lastValueFrom(from(events(c)).pipe(accumulateText(), toArray()));
    expect(snaps.filter((s) => s.done).map((s) => s.text)).toEqual([TEXT]);
    // What streamed before the final snapshot never says more than the text.
    for (const s of snaps) expect(TEXT.startsWith(s.text)).toBe(true);
  });

  test.each(cases)('accumulateResponse: %s', async (_, c) => {
    const r = await lastValueFrom(from(events(c)).pipe(accumulateResponse()));
    expect(r.output.map((i) => (i as { content: Array<{ text: string }> }).content.map((p) => p.text).join(''))).toEqual([TEXT]);
  });

  test.each(cases)('toChatChunks: %s', async (_, c) => {
    const chunks = await lastValueFrom(from(events(c)).pipe(toChatChunks(), toArray()));
    const content = chunks.map((k: ChatCompletionChunk) => (k.choices?.[0]?.delta as { content?: string | null } | undefined)?.content ?? '').join('');
    expect(content).toBe(TEXT);
  });
});
