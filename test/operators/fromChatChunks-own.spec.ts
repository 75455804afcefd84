// fromChatChunks reads only a chunk's own properties: a field that a chunk (or any object or list in it) only
// inherits, through a prototype, is read as absent. So an object merged from JSON with a `__proto__` key, one
// created over another, or a polluted Object.prototype cannot inject text, reasoning or tool calls.
import { from, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat';
import { fromChatChunks } from '../../operators/fromChatChunks';

type Json = Record<string, unknown>;
const chunk = (delta: Json | null, finish: string | null = null, extra: Json = {}) =>
  ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });

const stream: Json[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'Think.' }),
  { ...chunk({ content: 'Hi ' }), choices: [{ index: 0, delta: { content: 'Hi ' }, logprobs: { content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.1, bytes: null }] }] }, finish_reason: null }] },
  chunk({ content: [{ type: 'text', text: 'there' }], annotations: [{ type: 'url_citation', url_citation: { start_index: 0, end_index: 2, url: 'https://x.test', title: 'X' } }] }),
  chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
  chunk({}, 'tool_calls', { citations: ['https://y.test'] }),
  { ...chunk(null), choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, completion_tokens_details: { reasoning_tokens: 1 } } },
];

/** What fromChatChunks makes of `chunks`: its events and how it ended, as JSON. */
function run(chunks: unknown[]): string {
  const out: unknown[] = [];
  let end = 'pending';
  from(chunks as ChatCompletionChunk[]).pipe(fromChatChunks(), toArray()).subscribe({
    next: (es) => out.push(...es),
    error: (e: unknown) => (end = `error: ${String((e as Error).message)}`),
    complete: () => (end = 'complete'),
  });
  return JSON.stringify({ out, end });
}

type Path = Array<string | number>;

/** Every (path, key) of an own property of an object in `v`, and every index of a list. */
function places(v: unknown, path: Path = []): Path[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...path, i], ...places(x, [...path, i])]);
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [[...path, k], ...places(x, [...path, k])]);
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const parentOf = (root: unknown, path: Path): Json | unknown[] => path.slice(0, -1).reduce<unknown>((o, k) => (o as Json)[k as string], root) as Json | unknown[];

/** `root` with the property at `path` moved from its holder onto a prototype of the holder. */
function inherited(root: unknown, path: Path): unknown {
  const r = clone(root);
  const holder = parentOf(r, path);
  const key = path[path.length - 1]!;
  const value = (holder as Json)[key as string];
  const proto = Array.isArray(holder) ? Object.create(Array.prototype) : {};
  (proto as Json)[key as string] = value;
  delete (holder as Json)[key as string];
  Object.setPrototypeOf(holder, proto);
  return r;
}

/** `root` with the property at `path` absent (a list element left `undefined`, so the others keep their index). */
function absent(root: unknown, path: Path): unknown {
  const r = clone(root);
  const holder = parentOf(r, path);
  const key = path[path.length - 1]!;
  if (Array.isArray(holder)) holder[key as number] = undefined;
  else delete holder[key as string];
  return r;
}

describe('fromChatChunks reads only own properties', () => {
  test('the stream is read whole (the cases below start from a stream that uses every field)', () => {
    const r = JSON.parse(run(stream)) as { out: Array<{ type: string }>; end: string };
    expect(r.end).toBe('complete');
    expect(r.out.map((e) => e.type)).toEqual(expect.arrayContaining(['response.reasoning_text.delta', 'response.output_text.delta', 'response.function_call_arguments.delta', 'response.output_text.annotation.added']));
  });

  const cases = stream.flatMap((c, i) => places(c).map((p) => [`chunk ${i}: ${p.join('.')}`, i, p] as const));

  test.each(cases)('%s, only inherited, is read as absent', (_, i, path) => {
    const withInherited = stream.map((c, j) => (j === i ? inherited(c, path) : c));
    const withAbsent = stream.map((c, j) => (j === i ? absent(c, path) : c));
    expect(run(withInherited)).toBe(run(withAbsent));
  });

  test('a delta merged from JSON with a "__proto__" key (Object.assign) injects nothing', () => {
    const parsed = JSON.parse('{"__proto__": {"content": "injected", "tool_calls": [{"index": 0, "id": "x", "function": {"name": "rm", "arguments": "{}"}}]}}') as Json;
    const delta = Object.assign({}, parsed);
    expect((delta as { content?: unknown }).content).toBe('injected'); // what a plain read would see
    expect(run([chunk(delta), chunk({}, 'stop')])).toBe(run([chunk({}), chunk({}, 'stop')]));
  });

  test('a polluted Object.prototype injects nothing', () => {
    const clean = run(stream);
    const keys = ['content', 'tool_calls', 'reasoning_content', 'refusal', 'finish_reason', 'usage', 'citations'];
    try {
      Object.defineProperty(Object.prototype, 'content', { value: 'injected', configurable: true, writable: true });
      for (const k of keys.slice(1)) Object.defineProperty(Object.prototype, k, { value: k === 'usage' ? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } : k === 'finish_reason' ? 'stop' : k === 'tool_calls' || k === 'citations' ? [] : 'injected', configurable: true, writable: true });
      expect(run(stream)).toBe(clean);
    } finally {
      for (const k of keys) delete (Object.prototype as Json)[k];
    }
  });
});
