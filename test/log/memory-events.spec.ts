// The memory log's store of one stream's events (lib/log/memory-events.ts): whatever the sizes of the events and
// where the segments fill, staged-then-dropped appends and the trimming at the end, every read gives back exactly
// the texts committed, in order, at every position; and `bytes` is their UTF-8 size.
import fc from 'fast-check';
import { rawDataOf } from '../../lib/decode/raw-data';
import { SEGMENT_BYTES, StoredEvents } from '../../lib/log/memory-events';

/** An event's JSON of about `size` bytes (`pad` characters of `ch`, which may take 1 to 4 bytes). */
const jsonOf = (seq: number, pad: number, ch: string): string => JSON.stringify({ type: 'response.output_text.delta', sequence_number: seq, delta: ch.repeat(pad) });

const texts = (s: StoredEvents, from = 0, to = s.count): string[] => s.read(from, to).map((e) => rawDataOf(e)!);

type Step = { readonly kind: 'commit' | 'drop'; readonly events: ReadonlyArray<{ readonly pad: number; readonly ch: string }> };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<'commit' | 'drop'>('commit', 'commit', 'commit', 'drop'),
  events: fc.array(
    fc.record({
      // Mostly small, some of a segment's size or more (an event larger than a segment takes one of its own).
      pad: fc.oneof({ weight: 8, arbitrary: fc.nat(300) }, { weight: 1, arbitrary: fc.integer({ min: SEGMENT_BYTES / 4, max: SEGMENT_BYTES + 100 }) }),
      ch: fc.constantFrom('a', 'é', '中', '😀', '"'),
    }),
    { minLength: 1, maxLength: 12 },
  ),
});

describe('StoredEvents', () => {
  test('reads back every committed text and none of the dropped, at every position, across segments', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), fc.boolean(), (steps, fitAtEnd) => {
        const s = new StoredEvents();
        const kept: string[] = [];
        let seq = 0;
        for (const st of steps) {
          const staged: string[] = [];
          for (const { pad, ch } of st.events) {
            const text = jsonOf(seq++, pad, ch);
            expect(s.stage(seq, text)).toBe(Buffer.byteLength(text));
            staged.push(text);
          }
          if (st.kind === 'commit') {
            s.commit();
            kept.push(...staged);
          } else {
            s.drop();
            seq -= staged.length; // numbered again by the next append, as a refused append's are
          }
          expect(s.count).toBe(kept.length);
        }
        if (fitAtEnd) s.fit();
        expect(s.bytes).toBe(kept.reduce((n, t) => n + Buffer.byteLength(t), 0));
        expect(texts(s)).toEqual(kept);
        // Every window, from every position (a reader's page after a cursor).
        for (let from = 0; from < kept.length; from += Math.max(1, Math.floor(kept.length / 7))) {
          expect(texts(s, from, Math.min(kept.length, from + 3))).toEqual(kept.slice(from, from + 3));
          expect(s.firstAfter(from)).toBe(from); // event j is numbered j + 1
        }
      }),
      { numRuns: 60 },
    );
  });

  test('a long stream takes new segments without copying the full ones', () => {
    const s = new StoredEvents();
    const text = jsonOf(0, 1000, 'a');
    for (let i = 1; i <= 1000; i++) {
      s.stage(i, text);
      s.commit();
    }
    // ~1 MB: segments of 64 KiB, each a new array; the ones filled are kept as they are.
    const segments = (s as unknown as { earlier: Uint8Array[] }).earlier;
    expect(segments.length).toBeGreaterThanOrEqual(Math.floor(s.bytes / SEGMENT_BYTES) - 1);
    for (const seg of segments.slice(1)) expect(seg.length).toBe(SEGMENT_BYTES);
    const first = segments[0]!;
    s.stage(1001, text);
    s.commit();
    expect((s as unknown as { earlier: Uint8Array[] }).earlier[0]).toBe(first);
    expect(texts(s, 998, 1001)).toEqual([text, text, text]);
  });

  test('fit keeps the full segments and trims the last; a segment begun for dropped events goes', () => {
    const s = new StoredEvents();
    const big = jsonOf(0, SEGMENT_BYTES / 2, 'a');
    for (let i = 1; i <= 5; i++) {
      s.stage(i, big);
      s.commit();
    }
    const before = (s as unknown as { earlier: Uint8Array[] }).earlier.length;
    // Three big events staged then dropped: of the segments begun for them, the first stays as the room for the
    // next append (it begins where the stored events end), the others are given back; fit gives that one back too.
    s.stage(6, big);
    s.stage(7, big);
    s.stage(8, big);
    s.drop();
    expect((s as unknown as { earlier: Uint8Array[] }).earlier.length).toBe(before + 1);
    expect((s as unknown as { base: number }).base).toBe(s.bytes);
    s.fit();
    expect((s as unknown as { earlier: Uint8Array[] }).earlier.length).toBe(before);
    const last = (s as unknown as { data: Uint8Array; base: number }).data;
    expect(last.length).toBe(s.bytes - (s as unknown as { base: number }).base);
    expect(texts(s)).toEqual([big, big, big, big, big]);
  });
});
