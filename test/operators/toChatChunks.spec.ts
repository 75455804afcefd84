// toChatChunks carries text that arrives only whole, and the official SDK's final chat message equals the
// one it reads from a Chat Completions provider (content null for an answer without text).
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromResponsesSSE } from '../../index';
import { outputText, toChatChunks } from '../../operators/index';
import { fixture } from '../helpers/fixtures';
import * as ev from './events';
import { sdkFinal } from '../chat/sdk-final';

const chunksOf = (events: ResponseStreamEvent[]) => lastValueFrom(from(events).pipe(toChatChunks(), toArray()));
type D = { content?: string | null; refusal?: string | null };
const delta = (c: ChatCompletionChunk): D => (c.choices?.[0]?.delta ?? {}) as D;
const content = (chunks: ChatCompletionChunk[]) => chunks.map((c) => delta(c).content ?? '').join('');
const refusal = (chunks: ChatCompletionChunk[]) => chunks.map((c) => delta(c).refusal ?? '').join('');


/** A chat provider's chunks, with the metadata toChatChunks copies from the response. */
const chat = (deltas: Array<[Record<string, unknown>, string | null]>) =>
  deltas.map(([d, finish]) => ({ id: 'resp_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] }));

describe('toChatChunks: text that arrives only whole', () => {
  const open = [ev.created(), ev.itemAdded(0, ev.msg('m')), ev.partAdded('m', 0, 0)];
  const item = ev.msg('m', [ev.textPart('Hello!')], 'completed');

  test.each<[string, ResponseStreamEvent[]]>([
    ['only in output_text.done', [...open, ev.textDone('m', 0, 0, 'Hello!'), ev.completed([item])]],
    ['only in content_part.done', [...open, ev.partDone('m', 0, 0, ev.textPart('Hello!')), ev.completed([item])]],
    ['only in output_item.done', [...open, ev.itemDone(0, item), ev.completed([item])]],
    ['only in the terminal response', [ev.created(), ev.completed([item])]],
    ['partly in deltas, the rest in .done', [...open, ev.textDelta('m', 0, 0, 'Hel'), ev.textDone('m', 0, 0, 'Hello!'), ev.itemDone(0, item), ev.completed([item])]],
  ])('%s: content is the text, once, as outputText says', async (_name, events) => {
    const chunks = await chunksOf(events);
    expect(content(chunks)).toBe('Hello!');
    expect((await lastValueFrom(from(events).pipe(outputText(), toArray()))).at(-1)).toBe('Hello!');
    expect(delta(chunks[0]!)).toEqual({ role: 'assistant', content: '' });
    expect((await sdkFinal(chunks)).choices[0]!.message.content).toBe('Hello!');
  });

  test('a refusal only in refusal.done, in the closed item or in the final output', async () => {
    const r = ev.msg('m', [{ type: 'refusal', refusal: 'No.' }], 'completed');
    for (const events of [
      [ev.itemAdded(0, ev.msg('m')), ev.refusalDone('m', 0, 0, 'No.'), ev.completed([r])],
      [ev.itemAdded(0, ev.msg('m')), ev.itemDone(0, r), ev.completed([r])],
      [ev.completed([r])],
    ]) {
      const chunks = await chunksOf(events);
      expect([content(chunks), refusal(chunks)]).toEqual(['', 'No.']);
    }
  });

  test('a .done that corrects the deltas adds nothing (a chat client cannot take text back)', async () => {
    const chunks = await chunksOf([ev.textDelta('m', 0, 0, 'Helo'), ev.textDone('m', 0, 0, 'Hello'), ev.completed()]);
    expect(content(chunks)).toBe('Helo');
  });
});

describe('toChatChunks read by the official SDK: the final message is a chat provider’s', () => {
  test('refusal only: content null, refusal set', async () => {
    const events = [ev.created(), ev.itemAdded(0, ev.msg('m')), ev.partAdded('m', 0, 0, { type: 'refusal', refusal: '' }), ev.refusalDelta('m', 0, 0, 'I can’t'), ev.refusalDelta('m', 0, 0, ' help.'), ev.completed()];
    const ours = await sdkFinal(await chunksOf(events));
    const theirs = await sdkFinal(chat([[{ role: 'assistant', content: null, refusal: '' }, null], [{ refusal: 'I can’t' }, null], [{ refusal: ' help.' }, null], [{}, 'stop']]));
    expect(ours.choices[0]!.message).toEqual(theirs.choices[0]!.message);
    expect(ours.choices[0]!.message.content).toBeNull();
    expect(ours.choices[0]!.message.refusal).toBe('I can’t help.');
  });

  test('tool calls only: content null, the calls as a provider sends them', async () => {
    const events = [ev.created(), ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')), ev.argsDelta('fc_1', 0, '{"city":"Paris"}'), ev.itemDone(0, ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Paris"}', 'completed')), ev.completed()];
    const ours = await sdkFinal(await chunksOf(events));
    const theirs = await sdkFinal(
      chat([
        [{ role: 'assistant', content: null }, null],
        [{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, null],
        [{}, 'tool_calls'],
      ]),
    );
    expect(ours.choices[0]!.message).toEqual(theirs.choices[0]!.message);
    expect(ours.choices[0]!.message.content).toBeNull();
    expect(ours.choices[0]!.finish_reason).toBe('tool_calls');
  });

  test('reasoning, then tool calls: content null; reasoning, then text: the text', async () => {
    const reasoning = [ev.created(), ev.summaryDelta('rs', 0, 0, 'think')];
    const tools = await sdkFinal(await chunksOf([...reasoning, ev.itemAdded(1, ev.fc('fc_1', 'call_1', 'f')), ev.argsDelta('fc_1', 1, '{}'), ev.completed()]));
    expect(tools.choices[0]!.message.content).toBeNull();
    const text = await sdkFinal(await chunksOf([...reasoning, ev.textDelta('m', 1, 0, 'Hi'), ev.completed()]));
    expect(text.choices[0]!.message.content).toBe('Hi');
  });

  test.each([
    ['refusal', null],
    ['function-calls', null],
    ['plain-text', 'OK.'],
  ])('%s transcript: content %p', async (name, expected) => {
    const chunks = await lastValueFrom(fromResponsesSSE(fixture(name)).pipe(toChatChunks(), toArray()));
    expect((await sdkFinal(chunks)).choices[0]!.message.content).toBe(expected);
  });
});
