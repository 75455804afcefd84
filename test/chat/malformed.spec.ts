// The SSE encoders given hand-built input they cannot frame: one typed error (or, with onError: 'event',
// an error event), never an exception escaping `next` and never a forged SSE line.
import { from, type Observable } from 'rxjs';
import { DecodeError } from '../../lib/errors';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { toChatSSE } from '../../operators/toChatSSE';
import { toResponsesSSE } from '../../operators/toResponsesSSE';

function run(o: Observable<string>): { values: string[]; error: unknown; completed: boolean } {
  const values: string[] = [];
  let error: unknown;
  let completed = false;
  o.subscribe({ next: (v) => values.push(v), error: (e) => (error = e), complete: () => (completed = true) });
  return { values, error, completed };
}
const good = { type: 'response.output_text.delta', delta: 'a', sequence_number: 3 };
const cyclic: Record<string, unknown> = { type: 'response.created' };
cyclic['self'] = cyclic;

describe('toResponsesSSE with events it cannot frame', () => {
  test.each([
    ['a type with a line break (would forge a data: line)', { type: 'x\ndata: {"forged":true}', sequence_number: 4 }, 'type'],
    ['an event that is not an object', null, ''],
    ['a cyclic event', cyclic, ''],
  ])('%s ends the stream with a DecodeError after what was written', (_label, bad, path) => {
    const r = run(from([good, bad, good] as unknown as ResponseStreamEvent[]).pipe(toResponsesSSE()));
    expect(r.values).toHaveLength(1);
    expect(r.error).toBeInstanceOf(DecodeError);
    expect((r.error as DecodeError).path ?? '').toBe(path);
    expect(r.values.join('')).not.toContain('forged');
  });

  test("with onError: 'event' it is written as a final error event", () => {
    const r = run(from([good, { type: 'a\rb' }] as unknown as ResponseStreamEvent[]).pipe(toResponsesSSE({ onError: 'event' })));
    expect(r.completed).toBe(true);
    expect(r.values).toHaveLength(2);
    expect(r.values[1]).toMatch(/^event: error\ndata: \{"type":"error","code":"decode_error".*"sequence_number":4\}\n\n$/);
  });
});

describe('toChatSSE with chunks it cannot frame', () => {
  const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] };
  test.each([['undefined', undefined], ['a string', 'x'], ['a cyclic object', cyclic]])('%s ends the stream with a DecodeError and no [DONE]', (_label, bad) => {
    const r = run(from([chunk, bad] as unknown as ChatCompletionChunk[]).pipe(toChatSSE()));
    expect(r.values).toEqual([`data: ${JSON.stringify(chunk)}\n\n`]);
    expect(r.error).toBeInstanceOf(DecodeError);
  });

  test("with onError: 'event' it is written as an error payload, without [DONE]", () => {
    const r = run(from([chunk, undefined] as unknown as ChatCompletionChunk[]).pipe(toChatSSE({ onError: 'event' })));
    expect(r.completed).toBe(true);
    expect(r.values).toHaveLength(2);
    expect(JSON.parse(r.values[1]!.slice('data: '.length))).toMatchObject({ error: { code: 'decode_error' } });
  });
});
