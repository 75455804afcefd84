// Truncation at every byte offset of every recorded transcript: the decoder yields the events up to the cut
// followed by StreamInterruptedError, or the whole stream; never a shorter stream that looks complete.
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { fromChatCompletionsSSE, fromResponsesSSE } from '../../index.js';
import { StreamInterruptedError } from '../../lib/errors';
import { fixture, FIXTURES_DIR } from '../helpers/fixtures';
import { params, runSync, type Outcome } from './harness';

const files = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse'));
const decode = (f: string, bytes: Uint8Array): Outcome<unknown> =>
  runSync<unknown>(f.startsWith('chat-') ? fromChatCompletionsSSE(bytes) : fromResponsesSSE(bytes));

interface Full {
  readonly outcome: Outcome<unknown>;
  readonly json: string[];
}

function checkCut(f: string, bytes: Uint8Array, full: Full, k: number): void {
  const o = decode(f, bytes.subarray(0, k));
  const json = o.values.map((v) => JSON.stringify(v));
  const where = `${f} cut at byte ${k}/${bytes.length}`;
  // Always a prefix of the full stream, event for event.
  if (json.length > full.json.length) throw new Error(`${where}: more events than the full stream`);
  for (let i = 0; i < json.length; i++) if (json[i] !== full.json[i]) throw new Error(`${where}: event ${i} differs from the full stream`);
  if (o.kind === 'pending') throw new Error(`${where}: neither completed nor errored`);
  const isFull = json.length === full.json.length && o.kind === full.outcome.kind;
  if (isFull) {
    if (o.kind === 'error' && full.outcome.kind === 'error') expect((o.error as Error).name).toBe((full.outcome.error as Error).name);
    return;
  }
  if (o.kind !== 'error' || !(o.error instanceof StreamInterruptedError)) {
    throw new Error(`${where}: ${json.length}/${full.json.length} events then ${o.kind === 'error' ? String(o.error) : 'completion'}: a cut must end in StreamInterruptedError`);
  }
}

describe('truncation at every byte offset', () => {
  // long-text.sse (110 KB) is covered by the sampled property below; every other transcript byte by byte.
  for (const f of files.filter((x) => x !== 'long-text.sse')) {
    test(f, () => {
      const bytes = new TextEncoder().encode(fixture(f));
      const outcome = decode(f, bytes);
      expect(outcome.kind).not.toBe('pending');
      // The full transcript is not cut: a terminal event ends it (error transcripts end in a typed error).
      if (outcome.kind === 'error') expect(outcome.error).not.toBeInstanceOf(StreamInterruptedError);
      const full: Full = { outcome, json: outcome.values.map((v) => JSON.stringify(v)) };
      expect(full.json.length).toBeGreaterThan(2);
      for (let k = 0; k < bytes.length; k++) checkCut(f, bytes, full, k);
    });
  }

  test('long-text.sse at sampled offsets (seeded), and every offset around each event boundary', () => {
    const f = 'long-text.sse';
    const text = fixture(f);
    const bytes = new TextEncoder().encode(text);
    const outcome = decode(f, bytes);
    const full: Full = { outcome, json: outcome.values.map((v) => JSON.stringify(v)) };
    const boundaries: number[] = [];
    for (let i = text.indexOf('\n\n'); i !== -1; i = text.indexOf('\n\n', i + 1)) boundaries.push(new TextEncoder().encode(text.slice(0, i)).length);
    for (const b of boundaries.slice(-40)) for (let d = -3; d <= 3; d++) if (b + d >= 0 && b + d < bytes.length) checkCut(f, bytes, full, b + d);
    fc.assert(fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (k) => checkCut(f, bytes, full, k)), params(150));
  });
});
