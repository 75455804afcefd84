// Deterministic reproductions of what the operator fuzz found. `test.failing` marks a known library bug
// (reported with a suggested fix); the owner flips it to `test` once fixed.
import { concat, config, defer, from, throwError, type Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { StreamInterruptedError } from '../../lib/errors';
import { accumulateResponse, accumulateText, fromChatChunks, resumeFrom, toChatChunks } from '../../operators';
import { assertNoPollution, assertTypedOutcome, runAsync, runSync } from './harness';

type Ev = ResponseStreamEvent;
const events = (xs: unknown[]) => from(xs as Ev[]);

let unhandled: unknown[] = [];
const previous = config.onUnhandledError;
beforeAll(() => (config.onUnhandledError = (e) => unhandled.push(e)));
afterAll(() => (config.onUnhandledError = previous));
beforeEach(() => (unhandled = []));
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function expectTyped<T>(o: Observable<T>): Promise<void> {
  const outcome = runSync(o);
  await flush();
  expect(unhandled).toEqual([]);
  assertTypedOutcome(outcome, 'operator');
}

/**
 * Counts array-iterator steps (for…of over arrays) while `f` runs: a deterministic measure of work, so a
 * cost linear in an index shows without timing anything.
 */
function iterationSteps(f: () => void): number {
  const proto = Object.getPrototypeOf([][Symbol.iterator]()) as { next: (...a: unknown[]) => unknown };
  const original = proto.next;
  let steps = 0;
  proto.next = function (this: unknown, ...a: unknown[]) {
    steps++;
    return original.apply(this, a);
  };
  try {
    f();
  } finally {
    proto.next = original;
  }
  return steps;
}

const msgItem = { id: 'item_a', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
const hugeIndexStream = (oi: number, ci: number) =>
  events([
    { type: 'response.output_item.added', output_index: oi, item: msgItem, sequence_number: 0 },
    { type: 'response.output_text.delta', item_id: 'item_a', output_index: oi, content_index: ci, delta: 'a', logprobs: [], sequence_number: 1 },
    { type: 'response.output_item.done', output_index: oi, item: { ...msgItem, status: 'completed', content: [{ type: 'output_text', text: 'a', annotations: [] }] }, sequence_number: 2 },
    { type: 'response.completed', response: { id: 'resp_1', object: 'response', status: 'completed', output: [] }, sequence_number: 3 },
  ]);

describe('absurd array indices (strictly valid: indices are plain numbers)', () => {
  // With 1e9 the same code spends minutes per event: a denial of service from one hostile event.
  const N = 1e6;
  const ops: Array<[string, OperatorFunction<Ev, unknown>, boolean]> = [
    // Was a bug in operators/accumulateResponse.ts (fixed: a Map plus a sorted list): `items[e.output_index] = …`
    // made a sparse array of length index+1 and `emit()` walked it with for…of on every event.
    ['accumulateResponse (output_index 1e6)', accumulateResponse(), false],
    // Was a bug in operators/accumulateText.ts (fixed: Maps): `list[index] = p` (content/summary arrays) then
    // `for (const p of it.content)` in closeItem walked index+1 slots.
    ['accumulateText (content_index 1e6)', accumulateText({ kind: 'all' }), false],
    ['toChatChunks (output_index 1e6)', toChatChunks(), false],
  ];
  for (const [name, op, buggy] of ops) {
    (buggy ? test.failing : test)(`${name}: work does not grow with the index`, () => {
      const steps = iterationSteps(() => runSync(hugeIndexStream(N, name.includes('content_index') ? N : 0).pipe(op)));
      expect(steps).toBeLessThan(10_000);
    });
  }
});

describe('prototype keys as indices (wrong types, e.g. validate: "off")', () => {
  // Was a bug in operators/accumulateText.ts partAt() (fixed: events whose index is not a non-negative safe
  // integer are ignored; Maps): `list[index]` with content_index "__proto__" returned Array.prototype, and the
  // part update wrote `itemId` / `text` onto it.
  test('accumulateText: content_index "__proto__" does not pollute Array.prototype', async () => {
    try {
      await expectTyped(events([{ type: 'response.output_text.delta', item_id: 'x', output_index: 0, content_index: '__proto__', delta: 'a', logprobs: [] }]).pipe(accumulateText()));
    } finally {
      assertNoPollution();
    }
  });
  // Was a bug in operators/accumulateResponse.ts (fixed as above): `items["__proto__"] = item` swapped the
  // prototype of the items array, and the next emit threw a TypeError inside `next`.
  test('accumulateResponse: output_index "__proto__" ends in values or a typed error', async () => {
    await expectTyped(
      events([
        { type: 'response.output_item.added', output_index: '__proto__', item: msgItem },
        { type: 'response.output_text.delta', item_id: 'x', output_index: '__proto__', content_index: 0, delta: 'a', logprobs: [] },
      ]).pipe(accumulateResponse()),
    );
  });
});

describe('missing fields (wrong shapes, e.g. validate: "off")', () => {
  // Was a bug in operators/accumulateText.ts (fixed: such an event is ignored): `contentKind(e.part.type)` with
  // no `part` threw a TypeError inside next.
  test('accumulateText: content_part.added without part', () =>
    expectTyped(events([{ type: 'response.content_part.added', item_id: 'x', output_index: 0, content_index: 0 }]).pipe(accumulateText())));
  // Was a bug in operators/toChatChunks.ts (fixed): read `e.response.id` of a lifecycle event with no `response`.
  test('toChatChunks: response.created without response', () => expectTyped(events([{ type: 'response.created', sequence_number: 0 }]).pipe(toChatChunks())));
  // Was a bug in operators/fromChatChunks.ts (fixed): `for (const f of d.tool_calls)` with `tool_calls: {}` (not iterable).
  test('fromChatChunks: delta.tool_calls that is not an array', () =>
    expectTyped(from([{ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: {} }, finish_reason: null }] }] as never[]).pipe(fromChatChunks())));
});

describe('resumeFrom against a server that replays events without sequence numbers', () => {
  // Was a bug in operators/resumeFrom.ts (fixed): `attempt = 0` on every delivered event, including events
  // without a sequence_number that do not move the cursor, so a server (or proxy) that answers every
  // reconnect with such an event and then drops made resumeFrom reconnect forever.
  test('gives up after maxAttempts reconnects that do not move the cursor', async () => {
    let reconnects = 0;
    const replay = (): Observable<Ev> => {
      reconnects++;
      // Capped, so that the bug shows as a count instead of a hang.
      if (reconnects > 20) return from([]);
      return concat(events([{ type: 'response.output_text.delta', item_id: 'x', output_index: 0, content_index: 0, delta: 'again', logprobs: [] }]), throwError(() => new StreamInterruptedError('resp_1', 0)));
    };
    const first = concat(events([{ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress' } }]), defer(() => throwError(() => new StreamInterruptedError('resp_1', 0))));
    const outcome = await runAsync(first.pipe(resumeFrom(replay, { delayMs: 0, maxAttempts: 3 })));
    expect(reconnects).toBeLessThanOrEqual(3);
    expect(outcome.kind).toBe('error');
  });
});
