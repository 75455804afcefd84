// Round trips through the chat bridge and the SSE encoder.
import { from, lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { fromChatCompletionsSSE } from '../../lib/decode/chat-sse';
import { decodeTyped } from '../../lib/events/decode';
import { responseEventTable, type ResponseStreamEvent } from '../../lib/events/responses';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { toChatChunks } from '../../operators/toChatChunks';
import { toResponsesSSE } from '../../operators/toResponsesSSE';
import { fixture, responsesFixtures } from '../helpers/fixtures';
import { chunk, usageChunk, CHAT_USAGE } from './build';
import { responsesCases } from './cases';
import { accumulateChat, expectedFromResponse } from './expect';

function eventsOf(sse: string, options: { errorEvents: 'value' }): Promise<ResponseStreamEvent[]> {
  const out: ResponseStreamEvent[] = [];
  // errorEvents: 'value' makes every transcript complete: an error here is a failure, not a partial result.
  return new Promise((resolve, reject) => {
    fromResponsesSSE(sse, options).subscribe({ next: (e) => out.push(e), error: reject, complete: () => resolve(out) });
  });
}

const all = <T>(o: import('rxjs').Observable<T>) => lastValueFrom(o.pipe(toArray()));

describe('Responses → toChatChunks → fromChatChunks', () => {
  it.each(responsesCases())('%s keeps text, tool calls, finish reason and usage', async (_name, sse) => {
    const original = await all(fromResponsesSSE(sse));
    const back = await all(fromResponsesSSE(sse).pipe(toChatChunks({ includeUsage: true }), fromChatChunks()));
    for (const e of back) expect(() => decodeTyped(e, responseEventTable, 'strict', e.type)).not.toThrow();
    const a = expectedFromResponse(original[original.length - 1] as { type: string; response: Record<string, unknown> });
    const b = expectedFromResponse(back[back.length - 1] as { type: string; response: Record<string, unknown> });
    expect(b).toEqual(a);
    expect(back[back.length - 1]!.type).toBe(original[original.length - 1]!.type);
    expect(back.map((e) => e.sequence_number)).toEqual(back.map((_, i) => i));
  });
});

const parallelWithReasoning: ChatCompletionChunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'The user wants ' }),
  chunk({ reasoning_content: 'two lookups.' }),
  chunk({ content: 'Looking up.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_q', type: 'function', function: { name: 'get_time', arguments: '{"tz"' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Rome"}' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: ':"CET"}' } }] }),
  chunk({}, 'tool_calls'),
  usageChunk(CHAT_USAGE),
];

describe('Chat → fromChatChunks → toChatChunks', () => {
  const chatCases: Array<[string, () => Promise<ChatCompletionChunk[]>]> = [
    ['parallel tool calls with reasoning_content', async () => parallelWithReasoning],
    ['length', async () => [chunk({ role: 'assistant', content: 'Trunc' }), chunk({}, 'length'), usageChunk(CHAT_USAGE)]],
    ...['chat-text', 'chat-tools', 'chat-reasoning', 'chat-refusal'].filter((n) => {
      try {
        fixture(n);
        return true;
      } catch {
        return false;
      }
    }).map((n): [string, () => Promise<ChatCompletionChunk[]>] => [n, () => all(fromChatCompletionsSSE(fixture(n)))]),
  ];

  it.each(chatCases)('%s keeps content, reasoning, tool calls, finish reason and usage', async (_name, load) => {
    const chunks = await load();
    const back = await all(from(chunks).pipe(fromChatChunks(), toChatChunks({ includeUsage: true })));
    const a = accumulateChat(chunks);
    const b = accumulateChat(back);
    // The chat side only ever sees usage as prompt/completion/total (+ details filled with 0s).
    const usageCore = (u: Record<string, unknown> | null) => (u ? { p: u['prompt_tokens'], c: u['completion_tokens'], t: u['total_tokens'] } : null);
    expect({ ...b, usage: usageCore(b.usage) }).toEqual({ ...a, usage: usageCore(a.usage) });
    expect(b.toolCalls.length > 0 || a.toolCalls.length === 0).toBe(true);
  });
});

describe('toResponsesSSE', () => {
  it.each(responsesFixtures())('%s decodes back to the same events after re-encoding', async (name) => {
    const sse = fixture(name);
    const options = { errorEvents: 'value' as const };
    // A transcript of a broken stream errors on both sides: the events before the error are compared.
    const events = await eventsOf(sse, options);
    expect(events.length).toBeGreaterThan(0);
    const text = (await all(from(events).pipe(toResponsesSSE()))).join('');
    expect(await eventsOf(text, options)).toEqual(events);
  });
});
