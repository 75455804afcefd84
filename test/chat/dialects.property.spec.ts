// Every dialect recording decodes and bridges identically in any chunking of its bytes. Seeded: set
// FC_SEED to replay a failure.
import fc from 'fast-check';
import { from, lastValueFrom, toArray, type Observable } from 'rxjs';
import { decodeChatCompletionsSSE, fromChatCompletionsSSE, type StreamSource } from '../../index';
import { fromChatChunks } from '../../operators/fromChatChunks';
import { prng } from '../helpers/prng';
import { chunkedSource as source, cutAt, run, summary, utf8, type Feed } from '../decode/sources';
import { dialect, dialectFiles } from './dialects';

const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20260918;
const RUNS = Number(process.env['FC_RUNS'] ?? 15);

const bridge = (s: StreamSource): Observable<unknown> => fromChatCompletionsSSE(s).pipe(fromChatChunks());


describe.each(dialectFiles())('%s', (name) => {
  const text = dialect(name);
  const bytes = utf8(text);
  let whole: ReturnType<typeof summary>;

  beforeAll(async () => {
    whole = summary(await run(bridge(text)));
    expect(whole.completed).toBe(true);
    expect(whole.values.length).toBeGreaterThan(5);
  });

  test('any split into chunks, as a stream or an iterable, gives the same Responses events', async () => {
    const cuts = fc.oneof(
      fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }),
      fc.integer({ min: 1, max: 24 }).map((k) => Array.from({ length: Math.ceil(bytes.length / k) }, (_, i) => (i + 1) * k)),
    );
    const feed = fc.constantFrom<Feed>('stream', 'bytes-iterable', 'string-iterable');
    try {
      await fc.assert(
        fc.asyncProperty(cuts, feed, async (c, f) => {
          expect(summary(await run(bridge(source(bytes, c, f))))).toEqual(whole);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    } catch (e) {
      throw new Error(`property failed with FC_SEED=${SEED}: ${(e as Error).message}`);
    }
  });

  test('one byte at a time, and cut inside every multi-byte character', async () => {
    expect(summary(await run(bridge(source(bytes, [...bytes.keys()], 'stream'))))).toEqual(whole);
    const inside = [...bytes.keys()].filter((i) => (bytes[i]! & 0xc0) === 0x80);
    expect(summary(await run(bridge(source(bytes, inside, 'bytes-iterable'))))).toEqual(whole);
  });

  test('through the decodeChatCompletionsSSE operator, in seeded random chunkings', async () => {
    const random = prng(SEED ^ bytes.length);
    for (let r = 0; r < 5; r++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 40) }, () => 1 + Math.floor(random() * (bytes.length - 1)));
      const out = await lastValueFrom(from(cutAt(bytes, cuts)).pipe(decodeChatCompletionsSSE(), fromChatChunks(), toArray()));
      expect({ seed: SEED, cuts, same: summary({ values: out, completed: true }) }).toEqual({ seed: SEED, cuts, same: whole });
    }
  });
});
