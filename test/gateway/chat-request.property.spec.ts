// chatRequestToResponses over generated requests: every conversation a real client could send maps, with calls
// and results paired; any JSON at all maps or is a 400, and never throws. Seeded: FC_SEED replays a failure.
import fc from 'fast-check';
import { chatRequestToResponses } from '../../gateway/chat-request';
import { BASE as base, USER_HI, call } from './chat-bodies';

const text = fc.string({ maxLength: 12 });
const id = fc.stringMatching(/^call_[a-z0-9]{1,8}$/);
const textParts = fc.array(text.map((t) => ({ type: 'text', text: t })), { minLength: 1, maxLength: 3 });
const userPart = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({ url: fc.webUrl(), detail: fc.constantFrom('auto', 'low', 'high') }).map((image_url) => ({ type: 'image_url', image_url })),
  fc.constant({ type: 'file', file: { file_id: 'file-1' } }),
);
const plain = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'developer'), content: fc.oneof(text, textParts) }),
  fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.array(userPart, { minLength: 1, maxLength: 4 })) }),
  fc.record({ role: fc.constant('assistant'), content: fc.oneof(text, textParts) }),
);
// An assistant turn with 1–3 parallel calls followed by their results, in any order.
const toolTurn = fc
  .uniqueArray(id, { minLength: 1, maxLength: 3 })
  .chain((ids) => fc.tuple(fc.constant(ids), fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }), fc.constantFrom(null, '', 'Let me check.')))
  .map(([ids, order, content]) => [
    { role: 'assistant', content, tool_calls: ids.map((c) => call(c, 'f', '{"x":1}')) },
    ...order.map((c) => ({ role: 'tool', tool_call_id: c, content: `result ${c}` })),
  ]);
const conversation = fc
  .array(fc.oneof(plain.map((m) => [m]), toolTurn), { minLength: 1, maxLength: 6 })
  .map((turns) => [USER_HI, ...turns.flat()]);
const params = fc.record(
  {
    stream: fc.boolean(), temperature: fc.double({ min: 0, max: 2, noNaN: true }), top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    max_tokens: fc.nat(4096), max_completion_tokens: fc.constant(null), parallel_tool_calls: fc.boolean(), store: fc.boolean(),
    tool_choice: fc.constantFrom('auto', 'none', 'required', { type: 'function', function: { name: 'f' } }, { type: 'custom', custom: { name: 'g' } }),
    response_format: fc.constantFrom(
      { type: 'text' }, { type: 'json_object' }, { type: 'json_schema', json_schema: { name: 'o', schema: { type: 'object' }, strict: true } },
    ),
    reasoning_effort: fc.constantFrom('minimal', 'low', 'medium', 'high'), verbosity: fc.constantFrom('low', 'medium', 'high'),
    tools: fc.constant([
      { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
      { type: 'custom', custom: { name: 'g', format: { type: 'text' } } },
    ]),
    user: text, metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), text, { maxKeys: 3 }),
    stream_options: fc.record({ include_usage: fc.boolean() }),
  },
  { requiredKeys: [] },
);

/** The text of chat content or Responses content: a string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
}

function texts(input: ReadonlyArray<{ type: string; content?: unknown; output?: unknown }>): string {
  return input.map((i) => textOf(i.type === 'message' ? i.content : i.output)).join('');
}

describe('chatRequestToResponses: properties', () => {
  const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261130;

  it('every generated valid request maps; calls precede their results, one output per tool message', () => {
    fc.assert(
      fc.property(conversation, params, (messages, p) => {
        const r = chatRequestToResponses({ model: 'gpt-test', messages, ...p });
        if (!r.ok) throw new Error(JSON.stringify(r.error.body));
        const input = r.request.input;
        const seen = new Set<string>();
        let outputs = 0;
        for (const item of input) {
          if (item.type === 'function_call') seen.add(item.call_id);
          if (item.type === 'function_call_output') {
            expect(seen.has(item.call_id)).toBe(true);
            outputs++;
          }
        }
        expect(outputs).toBe(messages.filter((m) => m.role === 'tool').length);
        const calls = messages.flatMap((m) => ('tool_calls' in m ? m.tool_calls : []));
        expect(input.filter((i) => i.type === 'function_call')).toHaveLength(calls.length);
        // Every text, in order: message contents and tool results (an assistant's parts are joined, nothing is lost).
        expect(texts(input)).toBe(messages.map((m) => textOf(m.content)).join(''));
        expect(JSON.parse(JSON.stringify(r.request))).toEqual(r.request);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('any JSON value as a body, as messages or as a message maps or is a 400, and never throws', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const body = fc.oneof(
      json,
      json.map((messages) => ({ model: 'm', messages })),
      fc.array(json, { maxLength: 4 }).map((messages) => ({ model: 'm', messages })),
      fc.dictionary(fc.constantFrom('model', 'messages', 'tools', 'tool_choice', 'response_format', 'stop', 'n', 'metadata'), json).map((o) => ({ ...base, ...o })),
    );
    fc.assert(
      fc.property(body, (b) => {
        const r = chatRequestToResponses(b);
        if (!r.ok) {
          expect(r.error.status).toBe(400);
          expect(r.error.body.error.type).toBe('invalid_request_error');
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
