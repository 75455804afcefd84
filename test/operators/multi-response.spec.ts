// outputText, accumulateText and accumulateResponse over a stream that carries several responses (runAgent's
// turns, a WebSocket connection, transcripts back to back): each response's parts are its own, wherever the
// seam shows (response.created, another response id, the first event after a terminal one).
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { accumulateResponse, accumulateText, outputText } from '../../operators/index';
import * as ev from './events';

type E = ResponseStreamEvent;
const agentEvent = (type: string): E => ({ type, turn: 1 }) as unknown as E;

/** One response: a message per text at the given output indexes (in the order given), a call after them. */
function response(id: string, texts: ReadonlyArray<readonly [number, string]>, opts: { created?: boolean; terminal?: boolean; call?: boolean } = {}): E[] {
  const out: E[] = [];
  if (opts.created !== false) out.push(ev.created(id));
  for (const [oi, text] of texts) {
    out.push(ev.itemAdded(oi, ev.msg(`m${id}${oi}`)), ev.partAdded(`m${id}${oi}`, oi, 0));
    for (const piece of text.match(/.{1,3}/gs) ?? []) out.push(ev.textDelta(`m${id}${oi}`, oi, 0, piece));
  }
  for (const [oi, text] of texts) out.push(ev.itemDone(oi, ev.msg(`m${id}${oi}`, [ev.textPart(text)], 'completed')));
  const next = Math.max(-1, ...texts.map(([oi]) => oi)) + 1;
  if (opts.call) out.push(ev.itemAdded(next, ev.fc(`fc${id}`, `call${id}`, 'f')), ev.itemDone(next, ev.fc(`fc${id}`, `call${id}`, 'f', '{}', 'completed')));
  if (opts.terminal !== false) out.push(ev.completed([], id));
  return out;
}

/** What a response's text is: its parts in output order, joined with nothing. */
const textOf = (texts: ReadonlyArray<readonly [number, string]>): string => [...texts].sort((a, b) => a[0] - b[0]).map(([, t]) => t).join('');

const last = async (events: E[]) => (await lastValueFrom(from(events).pipe(outputText(), toArray()))).at(-1);

describe('several responses on one stream', () => {
  const turns: Array<[string, ReadonlyArray<readonly [number, string]>]> = [
    ['r1', [[0, 'Let me look.']]],
    ['r2', [[0, 'Found it: '], [1, 'b.']]],
    ['r3', [[1, 'Second '], [0, 'First ']]],
  ];
  const expected = turns.map(([, t]) => textOf(t)).join('\n\n');

  test.each<[string, (id: string, i: number) => { created?: boolean; terminal?: boolean }]>([
    ['created and terminal events', () => ({})],
    ['no response.created (the terminal event ends each)', () => ({ created: false })],
    ['no terminal events (response.created with another id starts each)', () => ({ terminal: false })],
    ['no terminal events, every response named resp_1 (response.created starts each)', () => ({ terminal: false })],
  ])('outputText: every turn\'s text in order, a blank line between turns — %s', async (name, opts) => {
    const sameId = name.includes('resp_1');
    const events = turns.flatMap(([id, texts], i) => [...response(sameId ? 'resp_1' : id, texts, opts(id, i)), agentEvent('agent.turn.finished')]);
    expect(await last(events)).toBe(expected);
  });

  test('outputText: a turn that only calls tools adds nothing, and the values only grow', async () => {
    const events = [
      ...response('r1', [], { call: true }), agentEvent('agent.tool_call.completed'),
      ...response('r2', [[0, 'Let me look. ']], { call: true }), agentEvent('agent.tool_call.completed'),
      ...response('r3', [[0, 'It is 14:05.']]),
      agentEvent('agent.run.finished'),
    ];
    const values = await lastValueFrom(from(events).pipe(outputText(), toArray()));
    expect(values[0]).toBe(''); // the first turn's terminal event: no text so far
    const texts = values.slice(1);
    texts.forEach((v, i) => i > 0 && expect(v.startsWith(texts[i - 1]!)).toBe(true));
    expect(values.at(-1)).toBe('Let me look. \n\nIt is 14:05.');
  });

  test('outputText: a resumed stream (in_progress of the same response, no created) continues the same text', async () => {
    const events = [ev.created('r1'), ev.itemAdded(0, ev.msg('m')), ev.textDelta('m', 0, 0, 'Hel'), ev.inProgress('r1'), ev.textDelta('m', 0, 0, 'lo'), ev.completed([], 'r1')];
    expect(await last(events)).toBe('Hello');
  });

  test('outputText, accumulateText: a terminal event naming another id (asOneResponse\'s last turn) ends the current response, not doubling it', async () => {
    const answer = ev.msg('m', [ev.textPart('Hi.')], 'completed');
    const events = [ev.created('r1'), ev.itemAdded(0, ev.msg('m')), ev.textDelta('m', 0, 0, 'Hi.'), ev.completed([answer], 'r3')];
    expect(await last(events)).toBe('Hi.');
    const snaps = await lastValueFrom(from(events).pipe(accumulateText(), toArray()));
    expect(snaps.filter((s) => s.done).map((s) => s.text)).toEqual(['Hi.']);
  });

  test('outputText: text carried only by each turn\'s terminal output', async () => {
    const answer = (id: string, text: string) => [ev.created(id), ev.completed([ev.msg(`m${id}`, [ev.textPart(text)], 'completed')], id)];
    expect(await last([...answer('r1', 'One.'), ...answer('r2', 'Two.')])).toBe('One.\n\nTwo.');
  });

  test('accumulateText: each response\'s parts close before the next response\'s first snapshot; texts never mix', async () => {
    const events = [...response('r1', [[0, 'one'], [1, 'two']], { terminal: false }), ...response('r2', [[0, 'three']], { terminal: false })];
    const snaps = await lastValueFrom(from(events).pipe(accumulateText(), toArray()));
    const firstOfR2 = snaps.findIndex((s) => s.text.startsWith('thr'));
    expect(snaps.slice(0, firstOfR2).filter((s) => s.done).map((s) => [s.outputIndex, s.text])).toEqual([[0, 'one'], [1, 'two']]);
    expect(snaps.slice(firstOfR2).map((s) => s.text)).toEqual(['thr', 'three', 'three']);
    expect(snaps.filter((s) => s.done).map((s) => s.text)).toEqual(['one', 'two', 'three']);
  });

  test('accumulateText: a response cut off without its terminal event closes its open parts when the next one starts', async () => {
    const events = [ev.created('r1'), ev.textDelta('a', 0, 0, 'cut'), ev.created('r2'), ev.textDelta('b', 0, 0, 'whole'), ev.completed([], 'r2')];
    const snaps = await lastValueFrom(from(events).pipe(accumulateText(), toArray()));
    expect(snaps.map((s) => [s.itemId, s.text, s.done])).toEqual([['a', 'cut', false], ['a', 'cut', true], ['b', 'whole', false], ['b', 'whole', true]]);
  });

  test.each<[string, boolean]>([['with response.created', true], ['without response.created', false]])(
    'accumulateResponse: each value is the current response, its output its own (%s)', async (_, created) => {
      const events = [
        ...response('r1', [[0, 'one'], [1, 'two']], { call: true, created }), agentEvent('agent.turn.finished'),
        ...response('r2', [[0, 'three']], { created }),
      ];
      const values = await lastValueFrom(from(events).pipe(accumulateResponse(), toArray()));
      const texts = (r: (typeof values)[number]) => r.output.map((i) => (i.type === 'message' ? (i.content[0] as { text?: string } | undefined)?.text ?? '' : i.type));
      const firstDone = values.findIndex((r) => r.status === 'completed');
      expect(texts(values[firstDone]!)).toEqual(['one', 'two', 'function_call']);
      expect(values.slice(firstDone + 1).every((r) => !texts(r).includes('one') && !texts(r).includes('function_call'))).toBe(true);
      expect(texts(values.at(-1)!)).toEqual(['three']);
      if (created) expect(values.at(-1)!.id).toBe('r2');
    },
  );

  test('accumulateResponse: the same response id resent (a resume) keeps what streamed', async () => {
    const events = [ev.created('r1'), ev.itemAdded(0, ev.msg('m')), ev.textDelta('m', 0, 0, 'Hel'), ev.inProgress('r1'), ev.textDelta('m', 0, 0, 'lo')];
    const r = await lastValueFrom(from(events).pipe(accumulateResponse()));
    expect(r.output.map((i) => (i as { content: Array<{ text: string }> }).content[0]?.text)).toEqual(['Hello']);
  });
});
