// Harmless junk changes nothing: every recorded transcript (Responses and Chat), with comments, keep-alive
// lines, unknown fields (`id:`, `retry:`, `foo:`), extra blank lines between events, unknown event types,
// extra unknown keys in the payloads, CR / LF / CRLF line ends and a BOM at the start inserted anywhere they
// may go, whole or in any chunking, gives exactly the recorded events and the recorded ending. Not "some typed
// error": the same outcome, event for event.
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { fromChatCompletionsSSE, fromResponsesSSE } from '../../index.js';
import { fixture, FIXTURES_DIR } from '../helpers/fixtures';
import { expectSameError } from '../helpers/marbles';
import { params, runAsync, runSync, type Outcome } from './harness';

const FILES = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse'));
const JUNK_KEY = 'x_junk_key';
const JUNK_TYPE = 'response.x_junk.happened';

/** Anywhere a line may go: comments, keep-alives, unknown fields and fields the decoders ignore. */
const JUNK_LINES = [': keep-alive', ':', ': ping 2026-11-30T00:00:00Z', 'id: 42', 'id:', 'retry: 1000', 'retry: x', 'foo: bar', 'x-unknown-field', ':{"type":"error"}'];

interface Junk {
  readonly lines: ReadonlyArray<readonly [number, number]>; // [line slot, JUNK_LINES index]
  readonly blanks: readonly number[]; // event boundaries that get an extra blank line
  readonly events: readonly number[]; // event boundaries that get an unknown event (Responses only)
  readonly keys: readonly number[]; // data lines that get an extra unknown key
  readonly eol: '\n' | '\r\n' | '\r';
  readonly bom: boolean;
  readonly cuts: readonly number[];
}

const junkArb: fc.Arbitrary<Junk> = fc.record({
  lines: fc.array(fc.tuple(fc.nat(), fc.nat({ max: JUNK_LINES.length - 1 })), { maxLength: 12 }),
  blanks: fc.array(fc.nat(), { maxLength: 4 }),
  events: fc.array(fc.nat(), { maxLength: 4 }),
  keys: fc.array(fc.nat(), { maxLength: 6 }),
  eol: fc.constantFrom<Junk['eol']>('\n', '\r\n', '\r'),
  bom: fc.boolean(),
  cuts: fc.array(fc.nat(), { maxLength: 10 }),
});

/** The transcript with the junk in it. */
function withJunk(sse: string, chat: boolean, j: Junk): string {
  const lines = sse.split(/\r\n|\n|\r/);
  if (lines.at(-1) === '') lines.pop();
  const dataLines = lines.map((l, i) => (l.startsWith('data: {') ? i : -1)).filter((i) => i >= 0);
  const keyed = new Set(j.keys.map((k) => dataLines[k % Math.max(1, dataLines.length)]));
  const out: string[][] = lines.map((l, i) => [keyed.has(i) ? `data: {"${JUNK_KEY}":{"a":[1,"\\n"]},${l.slice('data: {'.length)}` : l]);
  // Before line i (slot lines.length: at the end).
  const before: string[][] = Array.from({ length: lines.length + 1 }, () => []);
  for (const [at, k] of j.lines) before[at % before.length]!.push(JUNK_LINES[k]!);
  // Event boundaries: after a blank line.
  const boundaries = lines.map((l, i) => (l === '' ? i + 1 : -1)).filter((i) => i >= 0);
  if (boundaries.length > 0) {
    for (const b of j.blanks) before[boundaries[b % boundaries.length]!]!.push('');
    if (!chat) for (const b of j.events) before[boundaries[b % boundaries.length]!]!.push(`event: ${JUNK_TYPE}`, `data: {"type":"${JUNK_TYPE}","${JUNK_KEY}":true}`, '');
  }
  const all: string[] = [];
  for (let i = 0; i < lines.length; i++) all.push(...before[i]!, ...out[i]!);
  all.push(...before[lines.length]!);
  return (j.bom ? '\ufeff' : '') + all.join(j.eol) + j.eol;
}

/** The junk taken back out of what was decoded: its events dropped, its key removed. */
function withoutJunk(values: unknown[]): string[] {
  return values
    .filter((v) => (v as { type?: unknown }).type !== JUNK_TYPE)
    .map((v) => {
      const copy = { ...(v as Record<string, unknown>) };
      delete copy[JUNK_KEY];
      return JSON.stringify(copy);
    });
}

function streamOf(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    chunks.push(bytes.subarray(prev, c));
    prev = c;
  }
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctrl) {
      const next = chunks[i++];
      if (next === undefined) ctrl.close();
      else ctrl.enqueue(next);
    },
  });
}

function expectSameOutcome(got: Outcome<unknown>, want: Outcome<unknown>, what: string): void {
  if (got.kind !== want.kind) {
    const e = got.kind === 'error' ? ` (${String(got.error)})` : '';
    throw new Error(`${what}: ${got.kind}${e} where the recording gives ${want.kind}`);
  }
  expect(withoutJunk(got.values)).toEqual(withoutJunk(want.values));
  if (got.kind === 'error' && want.kind === 'error') expectSameError(got.error, want.error as Error);
}

describe('harmless junk anywhere changes no event and the ending of any recording', () => {
  test('every transcript is covered (Responses and Chat)', () => {
    expect(FILES.filter((f) => f.startsWith('chat-')).length).toBeGreaterThan(0);
    expect(FILES.filter((f) => !f.startsWith('chat-')).length).toBeGreaterThan(10);
  });

  test('the junk is really there: unknown events and keys reach the values (and are taken out before comparing)', () => {
    const j: Junk = { lines: [[0, 0], [5, 3], [9, 5]], blanks: [0, 1], events: [0, 2], keys: [0, 1, 2], eol: '\r\n', bom: true, cuts: [] };
    const text = withJunk(fixture('plain-text'), false, j);
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(text).toContain(': keep-alive\r\n');
    const got = runSync<unknown>(fromResponsesSSE(text));
    expect(got.kind).toBe('complete');
    expect(got.values.filter((v) => (v as { type: string }).type === JUNK_TYPE).length).toBeGreaterThan(0);
    expect(got.values.filter((v) => JUNK_KEY in (v as object)).length).toBeGreaterThan(1);
    // A line that is not junk does change the events: the comparison can fail.
    const broken = text.replace('data: {"type":"response.output_text.delta"', 'data: {"type":"response.output_text.delta","delta":7,"x":');
    expect(withoutJunk(runSync<unknown>(fromResponsesSSE(broken)).values)).not.toEqual(withoutJunk(got.values));
  });

  test.each(FILES)('%s', async (f) => {
    const chat = f.startsWith('chat-');
    const decode = (src: string | ReadableStream<Uint8Array>) => (chat ? fromChatCompletionsSSE(src) : fromResponsesSSE(src));
    const sse = fixture(f);
    const want = runSync<unknown>(decode(sse));
    expect(want.kind).not.toBe('pending');
    const runs = f === 'long-text.sse' ? 10 : 40;
    await fc.assert(
      fc.asyncProperty(junkArb, async (j) => {
        const text = withJunk(sse, chat, j);
        expectSameOutcome(runSync<unknown>(decode(text)), want, `${f} with junk, whole`);
        const chunked = await runAsync<unknown>(decode(streamOf(new TextEncoder().encode(text), j.cuts)));
        expectSameOutcome(chunked, want, `${f} with junk, in ${j.cuts.length + 1} chunks`);
      }),
      params(runs),
    );
  });
});
