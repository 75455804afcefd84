// The official SDK reads a Chat Completions endpoint served from Responses transcripts by
// toChatChunks + toChatSSE, over a real node:http server on 127.0.0.1.
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { toChatChunks } from '../../operators/toChatChunks';
import { toChatSSE } from '../../operators/toChatSSE';
import { expectedFromResponse } from './expect';
import { responsesCases } from './cases';
import { startChatServer } from './server';

const cases = new Map(responsesCases());
let server: Awaited<ReturnType<typeof startChatServer>>;
let baseURL: string;

beforeAll(async () => {
  server = await startChatServer(({ url, params }) => {
    const sse = cases.get(params.model);
    if (url !== '/v1/chat/completions' || !params.stream || sse === undefined) return undefined;
    return fromResponsesSSE(sse).pipe(toChatChunks({ includeUsage: params.stream_options?.include_usage === true }), toChatSSE({ onError: 'event' }));
  });
  baseURL = server.baseURL;
});
afterAll(() => server.close());

describe('Chat Completions served from Responses transcripts, read by the official SDK', () => {
  it.each([...cases.keys()])('%s: content, refusal, tool calls, finish_reason and usage match the transcript', async (name) => {
    const events = await lastValueFrom(fromResponsesSSE(cases.get(name)!).pipe(toArray()));
    const terminal = events[events.length - 1] as { type: string; response: Record<string, unknown> };
    const want = expectedFromResponse(terminal);
    const wantReasoning = events
      .filter((e) => e.type === 'response.reasoning_summary_text.done' || e.type === 'response.reasoning_text.done')
      .map((e) => (e as { text: string }).text)
      .join('\n\n');

    const client = new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: name, messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    let reasoning = '';
    let streamedContent = '';
    stream.on('chunk', (c) => {
      const d = c.choices[0]?.delta as { reasoning_content?: string } | undefined;
      if (d?.reasoning_content) reasoning += d.reasoning_content;
    });
    stream.on('content.delta', ({ delta }) => (streamedContent += delta));
    const final = await stream.finalChatCompletion();

    const choice = final.choices[0]!;
    expect(final.id).toBe(terminal.response['id']);
    expect(final.model).toBe(terminal.response['model']);
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content ?? '').toBe(want.content);
    expect(streamedContent).toBe(want.content);
    expect(choice.message.refusal ?? null).toBe(want.refusal);
    expect((choice.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.type === 'function' ? t.function.name : '', arguments: t.type === 'function' ? t.function.arguments : '' }))).toEqual(want.toolCalls);
    expect(choice.finish_reason).toBe(want.finish);
    expect(final.usage ?? null).toEqual(want.usage);
    expect(reasoning).toBe(wantReasoning);
  });

  it('covers text, reasoning, one and several parallel calls, refusal and an incomplete response', () => {
    const finishes = new Set<string>();
    let maxCalls = 0;
    let reasoning = false;
    let refusal = false;
    for (const [, sse] of cases) {
      const lines = sse.split('\n').filter((l) => l.startsWith('data: '));
      const terminal = JSON.parse(lines[lines.length - 1]!.slice(6)) as { type: string; response: Record<string, unknown> };
      const want = expectedFromResponse(terminal);
      finishes.add(want.finish!);
      maxCalls = Math.max(maxCalls, want.toolCalls.length);
      reasoning ||= sse.includes('reasoning_summary_text.delta') || sse.includes('reasoning_text.delta');
      refusal ||= want.refusal !== null;
    }
    expect([...finishes].sort()).toEqual(['content_filter', 'length', 'stop', 'tool_calls']);
    expect(maxCalls).toBeGreaterThanOrEqual(2);
    expect(reasoning && refusal).toBe(true);
  });
});
