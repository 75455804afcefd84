import { DecodeError } from '../../lib/errors';
import { from, lastValueFrom, Observable, toArray } from 'rxjs';
import { accumulateText, outputText, type TextSnapshot } from '../../operators/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromResponsesSSE } from '../../index';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';
import * as ev from './events';

const run = (events: ResponseStreamEvent[], op = accumulateText()) => lastValueFrom(from(events).pipe(op, toArray()));
const finals = (snaps: TextSnapshot[]) => snaps.filter((s) => s.done).map((s) => [s.kind, s.outputIndex, s.contentIndex, s.text]);

describe('accumulateText', () => {
  test('one snapshot per delta, then one final snapshot per part', async () => {
    const out = await run([
      ev.created(), ev.itemAdded(0, ev.msg('m1')), ev.partAdded('m1', 0, 0),
      ev.textDelta('m1', 0, 0, 'He'), ev.textDelta('m1', 0, 0, 'llo'), ev.textDone('m1', 0, 0, 'Hello'),
      ev.partDone('m1', 0, 0, ev.textPart('Hello')), ev.itemDone(0, ev.msg('m1', [ev.textPart('Hello')], 'completed')), ev.completed(),
    ]);
    expect(out).toEqual([
      { kind: 'output_text', itemId: 'm1', outputIndex: 0, contentIndex: 0, delta: 'He', text: 'He', done: false },
      { kind: 'output_text', itemId: 'm1', outputIndex: 0, contentIndex: 0, delta: 'llo', text: 'Hello', done: false },
      { kind: 'output_text', itemId: 'm1', outputIndex: 0, contentIndex: 0, delta: '', text: 'Hello', done: true },
    ]);
  });

  test('the .done text wins over the sum of the deltas', async () => {
    const out = await run([ev.textDelta('m1', 0, 0, 'Helo'), ev.textDone('m1', 0, 0, 'Hello'), ev.completed()]);
    expect(out.map((s) => [s.text, s.done])).toEqual([['Helo', false], ['Hello', true]]);
  });

  test('a missing .done: the closed item supplies the final text', async () => {
    const out = await run([
      ev.textDelta('m1', 0, 0, 'Hi'), ev.itemDone(0, ev.msg('m1', [ev.textPart('Hi there')], 'completed')), ev.textDone('m1', 0, 0, 'late'), ev.completed(),
    ]);
    expect(finals(out)).toEqual([['output_text', 0, 0, 'Hi there']]);
  });

  test('the closed item or the terminal output correcting a .done text gives a corrected final snapshot', async () => {
    const out = await run([
      ev.textDelta('m1', 0, 0, 'Hi'), ev.textDone('m1', 0, 0, 'Hi!'), ev.itemDone(0, ev.msg('m1', [ev.textPart('Hi')], 'completed')),
      ev.completed([ev.msg('m1', [ev.textPart('Hi.')], 'completed')]),
    ]);
    expect(finals(out)).toEqual([['output_text', 0, 0, 'Hi!'], ['output_text', 0, 0, 'Hi'], ['output_text', 0, 0, 'Hi.']]);
    // The same text again is not a correction.
    const same = await run([ev.textDelta('m1', 0, 0, 'Hi'), ev.textDone('m1', 0, 0, 'Hi'), ev.itemDone(0, ev.msg('m1', [ev.textPart('Hi')], 'completed')), ev.completed()]);
    expect(finals(same)).toEqual([['output_text', 0, 0, 'Hi']]);
  });

  test('a missing .done and item: the response end closes the part with its output, or with the deltas', async () => {
    const withOutput = await run([ev.textDelta('m1', 0, 0, 'Hi'), ev.completed([ev.msg('m1', [ev.textPart('Hi!')], 'completed')])]);
    expect(finals(withOutput)).toEqual([['output_text', 0, 0, 'Hi!']]);
    const withoutOutput = await run([ev.textDelta('m1', 0, 0, 'Hi'), ev.incomplete()]);
    expect(finals(withoutOutput)).toEqual([['output_text', 0, 0, 'Hi']]);
  });

  test('a cut-off stream (source completes without a terminal event) still closes its parts', async () => {
    const out = await run([ev.textDelta('m1', 0, 0, 'Hal'), ev.textDelta('m1', 0, 1, 'x')]);
    expect(finals(out)).toEqual([['output_text', 0, 0, 'Hal'], ['output_text', 0, 1, 'x']]);
  });

  test('rotated item ids: parts are keyed by output and content index', async () => {
    const out = await run([ev.textDelta('a1', 0, 0, 'A'), ev.textDelta('a2', 0, 0, 'B'), ev.textDone('a3', 0, 0, 'AB'), ev.completed()]);
    expect(out.map((s) => [s.itemId, s.text, s.done])).toEqual([['a1', 'A', false], ['a2', 'AB', false], ['a3', 'AB', true]]);
  });

  test('interleaved items are tracked independently', async () => {
    const out = await run([
      ev.textDelta('x', 0, 0, '1'), ev.textDelta('y', 1, 0, 'a'), ev.textDelta('x', 0, 0, '2'), ev.textDelta('y', 1, 0, 'b'),
      ev.textDone('y', 1, 0, 'ab'), ev.textDone('x', 0, 0, '12'), ev.completed(),
    ]);
    expect(out.map((s) => `${s.outputIndex}:${s.text}${s.done ? '!' : ''}`)).toEqual(['0:1', '1:a', '0:12', '1:ab', '1:ab!', '0:12!']);
  });

  test('kind option: refusal, reasoning, summary, all', async () => {
    const events = [
      ev.reasoningDelta('r', 0, 0, 'think'), ev.summaryDelta('r', 0, 0, 'sum'), ev.summaryDone('r', 0, 0, 'summary'),
      ev.refusalDelta('m', 1, 0, 'no'), ev.refusalDone('m', 1, 0, 'no.'), ev.textDelta('m', 1, 1, 'x'), ev.completed(),
    ];
    expect(finals(await run(events))).toEqual([['output_text', 1, 1, 'x']]);
    expect(finals(await run(events, accumulateText({ kind: 'refusal' })))).toEqual([['refusal', 1, 0, 'no.']]);
    expect(finals(await run(events, accumulateText({ kind: ['reasoning_text', 'reasoning_summary_text'] })))).toEqual([
      ['reasoning_summary_text', 0, 0, 'summary'], ['reasoning_text', 0, 0, 'think'],
    ]);
    expect(finals(await run(events, accumulateText({ kind: 'all' }))).length).toBe(4);
  });

  test('reasoning content and summary of one item at the same index do not collide', async () => {
    const out = await run([ev.reasoningDelta('r', 0, 0, 'long'), ev.summaryDelta('r', 0, 0, 'short'), ev.completed()], accumulateText({ kind: 'all' }));
    expect(finals(out).sort()).toEqual([['reasoning_summary_text', 0, 0, 'short'], ['reasoning_text', 0, 0, 'long']]);
  });

  test('a part only present in the closed item still gets its final snapshot', async () => {
    const out = await run([ev.itemAdded(0, ev.msg('m')), ev.itemDone(0, ev.msg('m', [ev.textPart('whole')], 'completed')), ev.completed()]);
    expect(out).toEqual([{ kind: 'output_text', itemId: 'm', outputIndex: 0, contentIndex: 0, delta: '', text: 'whole', done: true }]);
  });

  test('a new response on the same stream starts afresh', async () => {
    const out = await run([ev.textDelta('m', 0, 0, 'one'), ev.completed(), ev.created('resp_2'), ev.textDelta('n', 0, 0, 'two'), ev.completed([], 'resp_2')]);
    expect(finals(out)).toEqual([['output_text', 0, 0, 'one'], ['output_text', 0, 0, 'two']]);
  });

  test('unknown events are ignored', async () => {
    const out = await run([ev.unknownEvent(), ev.textDelta('m', 0, 0, 'a'), ev.unknownEvent(), ev.completed()]);
    expect(out.map((s) => s.text)).toEqual(['a', 'a']);
  });

  test('an error passes through without final snapshots', async () => {
    const boom = new Error('boom');
    const src = new Observable<ResponseStreamEvent>((s) => {
      s.next(ev.textDelta('m', 0, 0, 'a'));
      s.error(boom);
    });
    const seen: TextSnapshot[] = [];
    let error: unknown;
    src.pipe(accumulateText()).subscribe({ next: (s) => seen.push(s), error: (e: unknown) => (error = e) });
    expect(error).toBe(boom);
    expect(seen.map((s) => s.done)).toEqual([false]);
  });

  test.each(responsesFixtures())('%s: final texts equal the response output', async (name) => {
    const sse = fixture(name);
    const ps = payloads(sse);
    const terminal = ps.find((p) => ['response.completed', 'response.incomplete', 'response.failed'].includes(p['type'] as string));
    const out: TextSnapshot[] = [];
    out.push(...(await valuesToEnd(fromResponsesSSE(sse).pipe(accumulateText({ kind: 'all' })), responsesEnding(sse))));
    // Every part's final text equals what the final response (or else the closed items) says, once.
    const expected: Array<[number, number, string]> = [];
    const output = ((terminal?.['response'] as { output?: unknown[] } | undefined)?.output ?? []) as Array<Record<string, unknown>>;
    const items = output.length > 0 ? output : ps.filter((p) => p['type'] === 'response.output_item.done').map((p) => p['item'] as Record<string, unknown>);
    items.forEach((item, oi) => {
      for (const [ci, c] of ((item['content'] as Array<Record<string, unknown>> | undefined) ?? []).entries()) expected.push([oi, ci, (c['text'] ?? c['refusal']) as string]);
      for (const [si, c] of ((item['summary'] as Array<Record<string, unknown>> | undefined) ?? []).entries()) expected.push([oi, si, c['text'] as string]);
    });
    const got = out.filter((s) => s.done).map((s) => [s.outputIndex, s.contentIndex, s.text]);
    if (items.length > 0) expect(got.sort()).toEqual(expected.sort());
    // Deltas grow monotonically until the final snapshot.
    const texts = new Map<string, string>();
    for (const s of out) {
      const k = `${s.kind}:${s.outputIndex}:${s.contentIndex}`;
      if (!s.done) expect(s.text).toBe((texts.get(k) ?? '') + s.delta);
      texts.set(k, s.text);
    }
  });

  test('1,000,000 one-character deltas accumulate to the right text', async () => {
    const n = 1_000_000;
    const src = new Observable<ResponseStreamEvent>((s) => {
      for (let i = 0; i < n; i++) s.next(ev.textDelta('m', 0, 0, String.fromCharCode(97 + (i % 26))));
      s.next(ev.completed());
      s.complete();
    });
    let last: TextSnapshot | undefined;
    let count = 0;
    src.pipe(accumulateText()).subscribe((s) => {
      count++;
      last = s;
    });
    expect(count).toBe(n + 1);
    expect(last?.done).toBe(true);
    expect(last?.text.length).toBe(n);
    let expected = '';
    for (let i = 0; i < 26; i++) expected += String.fromCharCode(97 + i);
    expect(last?.text.slice(0, 26)).toBe(expected);
    expect(last?.text).toBe(expected.repeat(Math.ceil(n / 26)).slice(0, n));
  });
});

describe('outputText', () => {
  test('the growing concatenation of every output_text part, in output order', async () => {
    const out = await run(
      [
        ev.textDelta('a', 0, 0, 'Hel'), ev.textDelta('a', 0, 0, 'lo'), ev.textDelta('a', 0, 1, '!'), ev.textDelta('b', 2, 0, ' Bye'),
        ev.refusalDelta('c', 1, 0, 'no'), ev.textDelta('c', 1, 0, ' [x]'), ev.textDone('a', 0, 0, 'Hello'), ev.completed(),
      ],
      outputText() as never,
    );
    expect(out).toEqual(['Hel', 'Hello', 'Hello!', 'Hello! Bye', 'Hello! [x] Bye']);
  });

  test('a .done correction is emitted', async () => {
    const out = await run([ev.textDelta('a', 0, 0, 'Helo'), ev.textDone('a', 0, 0, 'Hello'), ev.completed()], outputText() as never);
    expect(out).toEqual(['Helo', 'Hello']);
  });

  test.each(responsesFixtures())('%s: last value equals the concatenated output_text', async (name) => {
    const sse = fixture(name);
    const ps = payloads(sse);
    const done = ps.filter((p) => p['type'] === 'response.output_item.done').map((p) => p['item'] as { type: string; content?: Array<{ type: string; text?: string }> });
    const expected = done.filter((i) => i.type === 'message').flatMap((i) => i.content ?? []).filter((c) => c.type === 'output_text').map((c) => c.text).join('');
    const values: string[] = [];
    values.push(...(await valuesToEnd(fromResponsesSSE(sse).pipe(outputText()), responsesEnding(sse))));
    if (done.length > 0 && ps.some((p) => p['type'] === 'response.completed')) expect(values[values.length - 1] ?? '').toBe(expected);
  });
});

describe('accumulateText: indices and malformed events', () => {
  const raw = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
  const delta = (oi: unknown, ci: unknown, d: unknown = 'x') => raw({ type: 'response.output_text.delta', item_id: 'm', output_index: oi, content_index: ci, delta: d, logprobs: [] });

  test('huge indices are one part each; parts close in index order whatever the order they opened in', async () => {
    const out = await run([delta(2 ** 32 - 2, 1e9, 'b'), delta(2 ** 32 - 2, 0, 'a'), delta(Number.MAX_SAFE_INTEGER, 0, 'c')]);
    expect(finals(out)).toEqual([
      ['output_text', 2 ** 32 - 2, 0, 'a'],
      ['output_text', 2 ** 32 - 2, 1e9, 'b'],
      ['output_text', Number.MAX_SAFE_INTEGER, 0, 'c'],
    ]);
  });

  test.each(['__proto__', 'constructor', '0', -1, 0.5, NaN, Infinity, 2 ** 53, null, undefined, {}])(
    'a delta whose index is %p ends with a DecodeError naming the field, and nothing lands on a prototype',
    async (b) => {
      for (const [e, field] of [[delta(b, 0), 'output_index'], [delta(0, b), 'content_index']] as const) {
        const err = await run([delta(0, 0, 'ok'), { ...(e as object), sequence_number: 7 } as ResponseStreamEvent]).catch((x: unknown) => x);
        expect(err).toBeInstanceOf(DecodeError);
        expect(err).toMatchObject({ eventType: 'response.output_text.delta', sequenceNumber: 7, path: field });
      }
      expect(Object.prototype.hasOwnProperty.call(Array.prototype, 'text')).toBe(false);
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'text')).toBe(false);
    },
  );

  test('other events with such indices are ignored', async () => {
    const out = await run([
      delta(0, 0, 'ok'),
      raw({ type: 'response.output_text.done', output_index: '__proto__', content_index: 0, text: 'x' }),
      raw({ type: 'response.content_part.added', output_index: 0, content_index: -1, part: { type: 'output_text', text: '' } }),
    ]);
    expect(out.map((s) => [s.outputIndex, s.contentIndex, s.text, s.done])).toEqual([[0, 0, 'ok', false], [0, 0, 'ok', true]]);
  });

  test('a delta that is not a string ends with a DecodeError (its text would be lost)', async () => {
    await expect(run([delta(0, 0, 'Hi'), delta(0, 0, 42)])).rejects.toMatchObject({ name: 'DecodeError', path: 'delta' });
  });

  test('malformed events without text are ignored: not an object, no part, a part that is not an object', async () => {
    const out = await run([
      null as unknown as ResponseStreamEvent, raw({}), raw({ type: 'response.content_part.added', item_id: 'm', output_index: 0, content_index: 0 }),
      raw({ type: 'response.content_part.done', output_index: 0, content_index: 1, part: 'nope' }),
      delta(0, 0, 'Hi'), raw({ type: 'response.output_item.done', output_index: '__proto__', item: ev.msg('m') }),
    ]);
    expect(out.map((s) => [s.text, s.done])).toEqual([['Hi', false], ['Hi', true]]);
  });

  test('a .done without a string text closes the part with the accumulated text; a missing item_id keeps the last one', async () => {
    const out = await run([delta(0, 0, 'Hel'), raw({ type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'lo' }), raw({ type: 'response.output_text.done', output_index: 0, content_index: 0 })]);
    expect(out.map((s) => [s.itemId, s.text, s.done])).toEqual([['m', 'Hel', false], ['m', 'Hello', false], ['m', 'Hello', true]]);
  });
});
