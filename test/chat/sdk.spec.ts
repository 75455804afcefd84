// The official SDK reads a Chat Completions endpoint served from Responses transcripts by
// toChatChunks + toChatSSE, over a real node:http server on 127.0.0.1.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { toChatChunks } from '../../operators/toChatChunks';
import { toChatSSE } from '../../operators/toChatSSE';
import { expectedFromResponse } from './expect';
import { responsesCases } from './cases';

const cases = new Map(responsesCases());
let server: Server;
let baseURL: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (s: string) => (body += s));
    req.on('end', () => {
      const params = JSON.parse(body) as { model: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
      const sse = cases.get(params.model);
      if (req.url !== '/v1/chat/completions' || !params.stream || sse === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'unknown', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const sub = fromResponsesSSE(sse)
        .pipe(toChatChunks({ includeUsage: params.stream_options?.include_usage === true }), toChatSSE({ onError: 'event' }))
        .subscribe({ next: (text) => res.write(text), complete: () => res.end(), error: () => res.end() });
      res.on('close', () => sub.unsubscribe());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

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
