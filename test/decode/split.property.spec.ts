import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import type { Observable } from 'rxjs';
import { fromChatCompletionsSSE, fromResponsesSSE, type StreamSource } from '../../index';
import { fixture, FIXTURES_DIR } from '../helpers/fixtures';
import { chunkedSource as source, run, summary, utf8, type Feed } from './sources';

// Any split of a transcript's bytes decodes like the whole transcript. Seeded: set FC_SEED to replay.
const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20260918;
const RUNS = Number(process.env['FC_RUNS'] ?? 25);

const FIXTURES = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse')).sort();
const decoderOf = (name: string): ((s: StreamSource) => Observable<unknown>) =>
  name.startsWith('chat-') ? (s) => fromChatCompletionsSSE(s) : (s) => fromResponsesSSE(s);


async function assertSeeded(property: fc.IAsyncProperty<[number[], Feed]>): Promise<void> {
  try {
    await fc.assert(property, { seed: SEED, numRuns: RUNS });
  } catch (e) {
    throw new Error(`property failed with FC_SEED=${SEED}: ${(e as Error).message}`);
  }
}

test('the property covers non-ASCII, emoji and CRLF', () => {
  const text = fixture('unicode-crlf');
  expect(text).toContain('\r\n');
  expect(text).not.toMatch(/[^\r]\n/);
  expect(/\p{Extended_Pictographic}/u.test(text)).toBe(true);
  expect(utf8(text).length).toBeGreaterThan(text.length);
});

describe.each(FIXTURES)('%s', (name) => {
  const text = fixture(name);
  const bytes = utf8(text);
  const decode = decoderOf(name);
  let whole: ReturnType<typeof summary>;

  beforeAll(async () => {
    whole = summary(await run(decode(text)));
    expect(whole.values.length).toBeGreaterThan(3);
  });

  test('any split into chunks, as a stream or an iterable, decodes like the whole transcript', async () => {
    const cuts = fc.oneof(
      fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 80 }),
      // Fixed small chunk sizes, so every region of the transcript gets cut.
      fc.integer({ min: 1, max: 24 }).map((k) => Array.from({ length: Math.ceil(bytes.length / k) }, (_, i) => (i + 1) * k)),
    );
    const feed = fc.constantFrom<Feed>('stream', 'bytes-iterable', 'string-iterable');
    await assertSeeded(
      fc.asyncProperty(cuts, feed, async (c, f) => {
        expect(summary(await run(decode(source(bytes, c, f))))).toEqual(whole);
      }),
    );
  });

  test('one byte at a time', async () => {
    const every = Array.from({ length: bytes.length }, (_, i) => i);
    expect(summary(await run(decode(source(bytes, every, 'stream'))))).toEqual(whole);
  });

  test('cut inside every multi-byte character at once', async () => {
    // Offsets of UTF-8 continuation bytes (10xxxxxx): cutting there splits a character.
    const inside = [...bytes.keys()].filter((i) => (bytes[i]! & 0xc0) === 0x80);
    if (name === 'unicode-crlf.sse') expect(inside.length).toBeGreaterThan(50);
    expect(summary(await run(decode(source(bytes, inside, 'bytes-iterable'))))).toEqual(whole);
  });
});
