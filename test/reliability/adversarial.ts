// Well-formed but adversarial Responses events (and chat chunks) for the fuzz tests: real event types with
// out-of-order, absurd or wrongly typed indices, parts that never opened, duplicated items and prototype keys.
import fc from 'fast-check';
import { RESPONSE_STREAM_EVENT_TYPES } from '../../lib/events/guards';
import { PROTO_KEYS } from './harness';

type Obj = Record<string, unknown>;

/** An object whose keys are own data properties even when named `__proto__` (as JSON.parse makes them). */
export function obj(entries: ReadonlyArray<readonly [string, unknown]>): Obj {
  const o: Obj = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const wrongValue = fc.constantFrom<unknown>('0', '__proto__', 'constructor', 'prototype', null, true, false, {}, [], '', 'x', 1.5);
/**
 * Absurd indices: not array indices (negative, fractional, ≥ 2^32 - 1, huge) and huge array indices (1e9,
 * 2^31 - 1, 2^32 - 2, the largest), which cost time linear in the index in an operator keeping parts in
 * arrays (see operator-bugs.spec.ts). The name is historical: the large array indices came back once fixed.
 */
export const ABSURD_NON_ARRAY_INDICES: readonly number[] = [-1, -0, 0.5, 1e308, 2 ** 32, 4294967295, Number.MAX_SAFE_INTEGER, -1e308, 1e9, 2 ** 31 - 1, 2 ** 32 - 2];
const absurdIndex = fc.constantFrom<number>(...ABSURD_NON_ARRAY_INDICES);

/** Mostly small indices (so parts collide and interleave), sometimes absurd, sometimes not a number. */
export const index: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 3 }) },
  { weight: 2, arbitrary: absurdIndex },
  { weight: 1, arbitrary: wrongValue },
);

const text: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...PROTO_KEYS, '{"a":', '{}', '[1]') },
  { weight: 1, arbitrary: wrongValue },
);

const itemIdArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('item_a', 'item_b', 'fc_1') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...PROTO_KEYS) },
  { weight: 1, arbitrary: wrongValue },
);

const ITEM_TYPES = [
  'message', 'reasoning', 'function_call', 'custom_tool_call', 'mcp_call', 'mcp_approval_request', 'web_search_call', 'file_search_call',
  'code_interpreter_call', 'image_generation_call', 'computer_call', 'local_shell_call', 'shell_call', 'apply_patch_call', 'mcp_list_tools',
  'future_item', '__proto__', 'constructor',
];
const PART_TYPES = ['output_text', 'refusal', 'reasoning_text', 'summary_text', 'input_text', '__proto__', 'future_part'];
const STATUSES = ['in_progress', 'completed', 'incomplete', 'failed', 'searching', '__proto__'];

/** A content / summary part, or something that is not one. */
export const part: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constantFrom(...PART_TYPES), text, refusal: text, annotations: fc.constant([]) }, { requiredKeys: ['type'] }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), text).map(([k, v]) => obj([['type', 'output_text'], [k, { polluted: v }], ['text', v]])) },
  { weight: 1, arbitrary: wrongValue },
);

/** An output item of any type, partial or complete, or something that is not one. */
export const item: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        id: itemIdArb, type: fc.constantFrom(...ITEM_TYPES), status: fc.constantFrom(...STATUSES), role: fc.constant('assistant'),
        content: fc.oneof(fc.array(part, { maxLength: 3 }), wrongValue), summary: fc.oneof(fc.array(part, { maxLength: 2 }), wrongValue),
        call_id: text, name: text, arguments: text, input: text, server_label: text, code: text,
        action: fc.oneof(fc.record({ commands: fc.oneof(fc.array(text, { maxLength: 2 }), wrongValue) }), wrongValue),
      },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), fc.constantFrom(...ITEM_TYPES)).map(([k, t]) => obj([['type', t], [k, { polluted: 'yes' }], ['id', k]])) },
  { weight: 1, arbitrary: wrongValue },
);

/** A `response` object for lifecycle events. */
export const responseObj: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        id: fc.oneof(fc.constantFrom('resp_1', 'resp_2'), wrongValue), object: fc.constant('response'), status: fc.constantFrom(...STATUSES),
        output: fc.oneof(fc.array(item, { maxLength: 3 }), wrongValue), error: fc.oneof(fc.record({ code: text, message: text }), wrongValue),
        usage: fc.oneof(fc.record({ input_tokens: index, output_tokens: index, total_tokens: index }), wrongValue),
        incomplete_details: fc.oneof(fc.record({ reason: text }), wrongValue),
        created_at: index, model: text,
      },
      { requiredKeys: ['id', 'status'] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS).map((k) => obj([['id', 'resp_1'], ['status', 'completed'], [k, { polluted: 'yes' }], ['output', []]])) },
  { weight: 1, arbitrary: wrongValue },
);

const FIELD_ARBS: Record<string, fc.Arbitrary<unknown>> = {
  output_index: index, content_index: index, summary_index: index, annotation_index: index, command_index: index,
  item_id: itemIdArb, delta: text, text, refusal: text, arguments: text, input: text, code: text, name: text, command: text,
  item, part, response: responseObj, annotation: fc.oneof(fc.record({ type: text, url: text }), wrongValue),
  error: fc.oneof(fc.record({ code: text, message: text }), wrongValue), code_: text, message: text, partial_image_b64: text,
  logprobs: fc.oneof(fc.constant([]), wrongValue), obfuscation: text,
};
const FIELD_NAMES = Object.keys(FIELD_ARBS);

const TYPES = [...RESPONSE_STREAM_EVENT_TYPES, 'response.future_thing.happened', '__proto__', 'constructor'];

/**
 * One event: a real type, a sequence number (sometimes absurd or repeated), and a random subset of the
 * fields events carry, each possibly of the wrong type; sometimes a prototype key on top.
 */
export const event: fc.Arbitrary<Obj> = fc
  .record({
    type: fc.constantFrom(...TYPES),
    seq: fc.option(index, { nil: undefined }),
    fields: fc.uniqueArray(fc.constantFrom(...FIELD_NAMES), { minLength: 0, maxLength: 8 }).chain((names) =>
      fc.tuple(...names.map((n) => (FIELD_ARBS[n] as fc.Arbitrary<unknown>).map((v) => [n, v] as const))),
    ),
    proto: fc.option(fc.constantFrom(...PROTO_KEYS), { nil: undefined, freq: 8 }),
  })
  .map(({ type, seq, fields, proto }) => {
    const entries: Array<readonly [string, unknown]> = [['type', type], ...fields.map(([k, v]) => [k === 'code_' ? 'code' : k, v] as const)];
    if (seq !== undefined) entries.push(['sequence_number', seq]);
    if (proto !== undefined) entries.push([proto, { polluted: 'yes', type: 'x' }]);
    return obj(entries);
  });

/** A plausible response, built with the real field shapes, that the adversarial events are mixed into. */
function plausible(): Obj[] {
  const r = (status: string, output: unknown[] = []) => ({ id: 'resp_1', object: 'response', status, output, model: 'm', created_at: 1 });
  const msgItem = (status: string, t = '') => ({ id: 'item_a', type: 'message', role: 'assistant', status, content: status === 'completed' ? [{ type: 'output_text', text: t, annotations: [] }] : [] });
  const fcItem = (status: string, args = '') => ({ id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: args, status });
  return [
    { type: 'response.created', response: r('in_progress') },
    { type: 'response.output_item.added', output_index: 0, item: msgItem('in_progress') },
    { type: 'response.content_part.added', item_id: 'item_a', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: 'item_a', output_index: 0, content_index: 0, delta: 'Hel', logprobs: [] },
    { type: 'response.output_text.delta', item_id: 'item_a', output_index: 0, content_index: 0, delta: 'lo', logprobs: [] },
    { type: 'response.output_text.done', item_id: 'item_a', output_index: 0, content_index: 0, text: 'Hello', logprobs: [] },
    { type: 'response.content_part.done', item_id: 'item_a', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Hello', annotations: [] } },
    { type: 'response.output_item.done', output_index: 0, item: msgItem('completed', 'Hello') },
    { type: 'response.output_item.added', output_index: 1, item: fcItem('in_progress') },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"a":' },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '1}' },
    { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"a":1}' },
    { type: 'response.output_item.done', output_index: 1, item: fcItem('completed', '{"a":1}') },
    { type: 'response.completed', response: r('completed', [msgItem('completed', 'Hello'), fcItem('completed', '{"a":1}')]) },
  ].map((e, i) => ({ ...e, sequence_number: i }));
}

/**
 * A sequence of events: a plausible response with adversarial events spliced in, parts of it shuffled,
 * dropped or duplicated; or adversarial events alone.
 */
export const eventSequence: fc.Arbitrary<Obj[]> = fc.oneof(
  fc.array(event, { maxLength: 25 }),
  fc
    .record({
      base: fc.shuffledSubarray(plausible(), { minLength: 0 }).chain((xs) => fc.constant(xs)),
      inserts: fc.array(fc.tuple(fc.nat(20), event), { maxLength: 8 }),
      dups: fc.array(fc.nat(20), { maxLength: 3 }),
    })
    .map(({ base, inserts, dups }) => {
      const out: Obj[] = [...base];
      for (const d of dups) {
        const e = base[d % Math.max(1, base.length)];
        if (e) out.splice(d % (out.length + 1), 0, e);
      }
      for (const [at, e] of inserts) out.splice(at % (out.length + 1), 0, e);
      return out;
    }),
);

const choiceDelta = fc.record(
  {
    role: fc.oneof(fc.constant('assistant'), wrongValue), content: text, refusal: text, reasoning_content: text,
    tool_calls: fc.oneof(
      fc.array(
        fc.record({ index, id: text, type: fc.oneof(fc.constant('function'), wrongValue), function: fc.oneof(fc.record({ name: text, arguments: text }), wrongValue) }, { requiredKeys: [] }),
        { maxLength: 3 },
      ),
      wrongValue,
    ),
    annotations: fc.oneof(fc.array(fc.record({ type: text }), { maxLength: 2 }), wrongValue),
  },
  { requiredKeys: [] },
);

/** Chat Completions chunks with adversarial choices, indices and field types. */
export const chatChunk: fc.Arbitrary<Obj> = fc
  .record({
    id: fc.oneof(fc.constant('chatcmpl_1'), wrongValue), object: fc.constant('chat.completion.chunk'), created: index, model: text,
    choices: fc.oneof(
      { weight: 8, arbitrary: fc.array(fc.record({ index, delta: fc.oneof({ weight: 5, arbitrary: choiceDelta }, { weight: 1, arbitrary: wrongValue }), finish_reason: fc.oneof(fc.constantFrom(null, 'stop', 'tool_calls', 'length', 'content_filter'), wrongValue) }, { requiredKeys: ['index'] }), { maxLength: 2 }) },
      { weight: 1, arbitrary: wrongValue },
    ),
    usage: fc.oneof(fc.constant(undefined), fc.record({ prompt_tokens: index, completion_tokens: index, total_tokens: index }), wrongValue),
    proto: fc.option(fc.constantFrom(...PROTO_KEYS), { nil: undefined, freq: 8 }),
  }, { requiredKeys: ['choices'] })
  .map(({ proto, ...rest }) => {
    const entries: Array<readonly [string, unknown]> = Object.entries(rest).filter(([, v]) => v !== undefined);
    if (proto !== undefined) entries.push([proto, { polluted: 'yes' }]);
    return obj(entries);
  });

// ---- Strictly valid but adversarial: real events from every transcript, mutated, kept only when the
// library's own strict codecs still accept them (what `validate: 'strict'` lets through to the operators).

import { readdirSync } from 'node:fs';
import { decodeTyped } from '../../lib/events/decode';
import { responseEventTable } from '../../lib/events/responses';
import { decodeChunk } from '../../lib/decode/chat-sse';
import { fixture, FIXTURES_DIR, payloads } from '../helpers/fixtures';

const allFixtures = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse'));
/** Every event of every Responses transcript, and every chunk of every chat transcript (JSON text). */
export const FIXTURE_EVENTS: readonly string[] = allFixtures.filter((f) => !f.startsWith('chat-')).flatMap((f) => payloads(fixture(f)).map((p) => JSON.stringify(p)));
export const FIXTURE_CHUNKS: readonly string[] = allFixtures.filter((f) => f.startsWith('chat-')).flatMap((f) => payloads(fixture(f)).map((p) => JSON.stringify(p)));

const INDEX_KEYS = new Set(['output_index', 'content_index', 'summary_index', 'annotation_index', 'command_index', 'sequence_number', 'index']);
const ID_KEYS = new Set(['item_id', 'id', 'call_id', 'response_id']);

/** A number that a strict codec still accepts where a number goes. */
const numberValue = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }) }, { weight: 2, arbitrary: fc.constantFrom(...ABSURD_NON_ARRAY_INDICES) });
const idValue = fc.constantFrom('item_a', 'item_b', 'resp_1', '__proto__', 'constructor', 'prototype', '');

interface Mutation {
  readonly at: number;
  readonly kind: 'number' | 'id' | 'proto' | 'text';
  readonly value: unknown;
}
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ at: fc.nat(), kind: fc.constant<'number'>('number'), value: numberValue }),
  fc.record({ at: fc.nat(), kind: fc.constant<'id'>('id'), value: idValue }),
  fc.record({ at: fc.nat(), kind: fc.constant<'proto'>('proto'), value: fc.constantFrom(...PROTO_KEYS) }),
  fc.record({ at: fc.nat(), kind: fc.constant<'text'>('text'), value: fc.constantFrom('', '\u0000', '\ud800', '{"a":', '__proto__', 'x'.repeat(1000)) }),
);

/** Applies a mutation to the `at`-th matching slot of a parsed JSON value (walk order), in place. */
function mutate(root: unknown, m: Mutation): void {
  let seen = 0;
  const walk = (o: unknown): boolean => {
    if (typeof o !== 'object' || o === null) return false;
    const rec = o as Record<string, unknown>;
    if (m.kind === 'proto' && !Array.isArray(o)) {
      if (seen++ === m.at % 7) {
        Object.defineProperty(rec, m.value as string, { value: { polluted: 'yes', text: 'x', type: 'x' }, enumerable: true, writable: true, configurable: true });
        return true;
      }
    }
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      const fits =
        (m.kind === 'number' && typeof v === 'number' && INDEX_KEYS.has(k)) ||
        (m.kind === 'id' && typeof v === 'string' && ID_KEYS.has(k)) ||
        (m.kind === 'text' && typeof v === 'string' && (k === 'delta' || k === 'text' || k === 'arguments' || k === 'refusal' || k === 'input'));
      if (fits && seen++ === m.at % 5) {
        rec[k] = m.value;
        return true;
      }
      if (walk(v)) return true;
    }
    return false;
  };
  walk(root);
}

function strictlyValid(u: unknown): boolean {
  try {
    decodeTyped(u, responseEventTable, 'strict');
    return true;
  } catch {
    return false;
  }
}

/** One transcript event, mutated a few times, still strictly valid (else the unmutated event). */
export const validEvent: fc.Arbitrary<Obj> = fc
  .tuple(fc.constantFrom(...FIXTURE_EVENTS), fc.array(mutation, { maxLength: 3 }))
  .map(([json, ms]) => {
    const u = JSON.parse(json) as Obj;
    for (const m of ms) mutate(u, m);
    return strictlyValid(u) ? u : (JSON.parse(json) as Obj);
  });

/**
 * Sequences of strictly valid events: one transcript in order with mutations, dropped and duplicated events
 * (parts that never opened, `.done` without `.added`, duplicate items), shuffled, or events from any transcript.
 */
export const validSequence: fc.Arbitrary<Obj[]> = fc.oneof(
  fc.array(validEvent, { maxLength: 30 }),
  fc
    .record({
      file: fc.constantFrom(...allFixtures.filter((f) => !f.startsWith('chat-'))),
      keep: fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
      dups: fc.array(fc.nat(), { maxLength: 4 }),
      inserts: fc.array(fc.tuple(fc.nat(), validEvent), { maxLength: 6 }),
      muts: fc.array(fc.tuple(fc.nat(), mutation), { maxLength: 20 }),
      shuffle: fc.boolean(),
      seed: fc.nat(),
    })
    .map(({ file, keep, dups, inserts, muts, shuffle, seed }) => {
      let out = payloads(fixture(file)).filter((_, i) => keep[i % keep.length] !== false || i % 3 === 0) as Obj[];
      for (const d of dups) if (out.length > 0) out.splice(d % out.length, 0, JSON.parse(JSON.stringify(out[d % out.length])) as Obj);
      for (const [at, e] of inserts) out.splice(at % (out.length + 1), 0, e);
      for (const [at, m] of muts) {
        const e = out[at % Math.max(1, out.length)];
        if (!e) continue;
        const copy = JSON.parse(JSON.stringify(e)) as Obj;
        mutate(copy, m);
        if (strictlyValid(copy)) out[at % out.length] = copy;
      }
      if (shuffle) {
        let s = seed;
        out = out.map((e) => [(s = (s * 1103515245 + 12345) % 2147483648), e] as const).sort((a, b) => a[0] - b[0]).map(([, e]) => e);
      }
      return out;
    }),
);

function chunkValid(u: unknown): boolean {
  try {
    decodeChunk(u, 'strict', 0);
    return true;
  } catch {
    return false;
  }
}

/** Chat chunks from the chat transcripts, mutated, still strictly valid. */
export const validChunks: fc.Arbitrary<Obj[]> = fc.array(
  fc.tuple(fc.constantFrom(...FIXTURE_CHUNKS), fc.array(mutation, { maxLength: 3 })).map(([json, ms]) => {
    const u = JSON.parse(json) as Obj;
    for (const m of ms) mutate(u, m);
    return chunkValid(u) ? u : (JSON.parse(json) as Obj);
  }),
  { maxLength: 25 },
);
