import fc from 'fast-check';
import { map, Observable, take, type SchedulerLike, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { InvalidOptionError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import type { TextSnapshot } from '../operators/accumulateText';
import { graphemeStarts } from '../operators/internal/smooth-chunking';
import { smoothText, type Chunking } from '../operators/smoothText';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
type E = ResponseStreamEvent;
/** The paced copy of a text delta event: its fields, the piece, and the logprobs of the events it completes. */
const piece = (e: E, delta: string) => ({ ...e, delta, logprobs: [] }) as E;
const snap = (text: string, delta: string, done = false): TextSnapshot => ({ kind: 'output_text', itemId: 'm', outputIndex: 0, contentIndex: 0, delta, text, done });

describe('smoothText: chunking', () => {
  test("'word' (default): one word with its spaces per delay, the first at once; the trailing word held until completion", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a--------------|', { a: 'One two three' });
      expectObservable(src.pipe(smoothText({ delayMs: 3 }))).toBe('-x--y-----------(z|)', { x: 'One ', y: 'One two ', z: 'One two three' });
    });
  });

  test("'word' on text without spaces (Japanese): cut at Intl.Segmenter word boundaries, punctuation stays with its word", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a----------|', { a: '今日はいい天気ですね。' });
      expectObservable(src.pipe(smoothText({ delayMs: 2, strings: 'deltas' }))).toBe('-a-b-c-d-e--(f|)', { a: '今日', b: 'は', c: 'いい', d: '天気', e: 'です', f: 'ね。' });
    });
  });

  test("'word': punctuation stays with its word (an ellipsis, '?!', quotes around a word); emoji in a row go one by one", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-----------|', { a: 'Wait... "what?!" 👍👍 ok' });
      expectObservable(src.pipe(smoothText({ delayMs: 2, strings: 'deltas' }))).toBe('-a-b-c-d-----(e|)', { a: 'Wait... ', b: '"what?!" ', c: '👍', d: '👍 ', e: 'ok' });
    });
  });

  test("'word': an emoji, a flag or a combining mark split across deltas (even inside a surrogate pair) stays whole", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-abcd-----|', { a: 'Go 🇫', b: '🇷🇺🇸 👍\ud83c', c: '\udffd cafe', d: '\u0301 ok' });
      expectObservable(src.pipe(smoothText({ delayMs: 2, strings: 'deltas' }))).toBe('-x-y-z-w-v(u|)', {
        x: 'Go ', y: '🇫🇷', z: '🇺🇸 ', w: '👍🏽 ', v: 'cafe\u0301 ', u: 'ok',
      });
    });
  });

  test("'line': a line with its newline; a line closed by its \\n is not held", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a----b----|', { a: 'one\ntwo\nthr', b: 'ee\n' });
      expectObservable(src.pipe(smoothText({ chunking: 'line', delayMs: 2, strings: 'deltas' }))).toBe('-x-y--z----|', { x: 'one\n', y: 'two\n', z: 'three\n' });
    });
  });

  test("'grapheme': never inside a grapheme, even one split across two deltas (combining mark, ZWJ family)", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-ab-------|', { a: 'e\u0301👨\u200d', b: '👩\u200d👧 ok' });
      expectObservable(src.pipe(smoothText({ chunking: 'grapheme', delayMs: 2, strings: 'deltas' }))).toBe('-x-y-z-w--(k|)', {
        x: 'e\u0301', y: '👨\u200d👩\u200d👧', z: ' ', w: 'o', k: 'k',
      });
    });
  });

  test('a RegExp: a segment ends where a match ends (sentences here)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a------|', { a: 'Hi there. How are you? Fine' });
      expectObservable(src.pipe(smoothText({ chunking: /[.?!]\s+/, delayMs: 3, strings: 'deltas' }))).toBe('-x--y---(z|)', { x: 'Hi there. ', y: 'How are you? ', z: 'Fine' });
    });
  });

  test('a RegExp matching the empty string cannot hang: empty matches at a segment start are skipped, and no grapheme is split', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-----|', { a: 'ab👍🏽c' });
      expectObservable(src.pipe(smoothText({ chunking: /(?:)/u, delayMs: 2, strings: 'deltas' }))).toBe('-x-y-z-(w|)', { x: 'a', y: 'b', z: '👍🏽', w: 'c' });
    });
    scheduler().run(({ cold, expectObservable }) => {
      // A lookahead (an empty match after the start) cuts before each space.
      const src = cold('-a---|', { a: 'one two three' });
      expectObservable(src.pipe(smoothText({ chunking: /(?=\s)/, delayMs: 2, strings: 'deltas' }))).toBe('-x-y-(z|)', { x: 'one', y: ' two', z: ' three' });
    });
  });

  test('an Intl.Segmenter: its segments (sentences here)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a----|', { a: 'Hi there. How are you? Fine' });
      const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });
      expectObservable(src.pipe(smoothText({ chunking: sentences, delayMs: 3, strings: 'deltas' }))).toBe('-x--y-(z|)', { x: 'Hi there. ', y: 'How are you? ', z: 'Fine' });
    });
  });

  test('the trailing segment is held until more text arrives, then released with it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a--------b--------c----|', { a: 'Hello wor', b: 'Hello world ', c: 'Hello world again' });
      // 'world ' is still the last segment at b (it may grow): released only once 'again' follows it.
      expectObservable(src.pipe(smoothText({ delayMs: 3 }))).toBe('-x-----------------y----(z|)', { x: 'Hello ', y: 'Hello world ', z: 'Hello world again' });
    });
  });
});

describe('smoothText: pacing', () => {
  test("defaults: 'word', one piece per 10 ms; a backlog of more than 250 ms of text (26 words) goes out two words at once", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a 99ms |', { a: 'One two three four' });
      expectObservable(src.pipe(smoothText())).toBe('-w 9ms x 9ms y 79ms (z|)', { w: 'One ', x: 'One two ', y: 'One two three ', z: 'One two three four' });
    });
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `).join('');
    scheduler().run(({ cold, expectObservable }) => {
      // 25 complete words (and a trailing one) are 250 ms of text at 10 ms each: not beyond maxLagMs, one at a time.
      const src = cold('a 999ms |', { a: `${words(25)}end` });
      const out = Array.from({ length: 25 }, (_, i) => `w${i} `);
      expectObservable(src.pipe(smoothText({ strings: 'deltas' }))).toBe(`${out.map((_, i) => String.fromCharCode(65 + i)).join(' 9ms ')} 759ms (z|)`, {
        ...Object.fromEntries(out.map((w, i) => [String.fromCharCode(65 + i), w])), z: 'end',
      });
    });
    scheduler().run(({ cold, expectObservable }) => {
      // 26 are 260 ms: two at once; then 24 (240 ms) are left: one at a time.
      const src = cold('a 999ms |', { a: `${words(26)}end` });
      expectObservable(src.pipe(smoothText({ strings: 'deltas' })).pipe(take(2))).toBe('a 9ms (b|)', { a: 'w0 w1 ', b: 'w2 ' });
    });
  });

  test('text arriving after a pause goes out at once; text arriving within the delay waits for it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b------c---|', { a: 'a b ', b: 'a b c d ', c: 'a b c d e f' });
      // a at 1 ('a '), 'b ' at 4, 'c ' at 7, (held: 'd ') … c at 10: 'd ' at once (the delay has passed), 'e ' at 13.
      expectObservable(src.pipe(smoothText({ delayMs: 3, strings: 'accumulated' }))).toBe('-w--x--y--z--v(u|)', {
        w: 'a ', x: 'a b ', y: 'a b c ', z: 'a b c d ', v: 'a b c d e ', u: 'a b c d e f',
      });
    });
  });

  test('a backlog beyond maxLagMs goes out in larger pieces, catching up in about maxLagMs', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a 28ms |', { a: 'a b c d e f g' });
      // 6 complete segments at delay 10 = 60 ms > maxLagMs 20: 3 at once, then 2, then 1.
      expectObservable(src.pipe(smoothText({ delayMs: 10, maxLagMs: 20 }))).toBe('-x 9ms y 9ms z--------(w|)', { x: 'a b c ', y: 'a b c d e ', z: 'a b c d e f ', w: 'a b c d e f g' });
    });
  });

  test("finish: 'paced' goes on pacing after completion and completes after the last piece", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a|', { a: 'a b c' });
      expectObservable(src.pipe(smoothText({ delayMs: 3, finish: 'paced' }))).toBe('-x--y--(z|)', { x: 'a ', y: 'a b ', z: 'a b c' });
    });
  });

  test('on error, everything received goes out before the error', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const boom = new Error('boom');
      const src = cold('-a---#', { a: 'One two three' }, boom);
      expectObservable(src.pipe(smoothText({ delayMs: 10 }))).toBe('-x---(z#)', { x: 'One ', z: 'One two three' }, boom);
    });
  });

  test('events: on error, the text received goes out, then the events held behind it, in order, then the error', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const boom = new Error('boom');
      const a = ev.textDelta('m', 0, 0, 'one two three');
      const f = ev.itemAdded(1, ev.fc('fc_1', 'call_1', 'lookup'));
      const b = ev.textDelta('n', 2, 0, 'x y');
      expectObservable(cold('-afb-#', { a, f, b }, boom).pipe(smoothText({ delayMs: 10 }))).toBe('-a---(tfx#)', {
        a: piece(a, 'one '), t: piece(a, 'two three'), f, x: piece(b, 'x y'),
      }, boom);
    });
  });

  test('unsubscribing cancels every scheduled release', () => {
    const ts = scheduler();
    const made: Array<{ sub: Subscription; ran: boolean }> = [];
    const recording: SchedulerLike = {
      now: () => ts.now(),
      schedule: (work, delay, state) => {
        const entry = { sub: undefined as unknown as Subscription, ran: false };
        const run = function (this: unknown, st: unknown): void {
          entry.ran = true;
          (work as (s: unknown) => void).call(this, st);
        };
        entry.sub = ts.schedule(run as never, delay, state);
        made.push(entry);
        return entry.sub;
      },
    };
    ts.run(({ cold, expectObservable, flush }) => {
      const a = ev.textDelta('m', 0, 0, 'a b c d ');
      const b = ev.textDelta('n', 1, 0, 'x y z w ');
      // Two parts, each with its timer (at 7 and 8) when the subscriber leaves at 6.
      expectObservable(cold('-ab------|', { a, b }).pipe(smoothText({ delayMs: 3, scheduler: recording })), '^-----!').toBe('-ab-cd', {
        a: piece(a, 'a '), b: piece(b, 'x '), c: piece(a, 'b '), d: piece(b, 'y '),
      });
      flush();
    });
    // The two that had not run (at 7 and 8) were cancelled, not left in the scheduler's queue.
    const pending = made.filter((m) => !m.ran);
    expect(made).toHaveLength(4);
    expect(pending).toHaveLength(2);
    expect(pending.every((m) => m.sub.closed)).toBe(true);
  });

  test('a subscriber that leaves during a release (take(1)) leaves no release scheduled', () => {
    const ts = scheduler();
    const made: Subscription[] = [];
    const recording: SchedulerLike = {
      now: () => ts.now(),
      schedule: (work, delay, state) => {
        const sub = ts.schedule(work as never, delay, state);
        made.push(sub);
        return sub;
      },
    };
    ts.run(({ cold, expectObservable }) => {
      const src = cold('-a----|', { a: 'one two three four' });
      expectObservable(src.pipe(smoothText({ delayMs: 3, scheduler: recording }), take(1))).toBe('-(x|)', { x: 'one ' });
    });
    expect(made.every((s) => s.closed)).toBe(true);
    expect(made).toHaveLength(0);
  });

  test('a scheduler passed as an option is used (here a TestScheduler outside run mode)', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    const seen: Array<[number, string]> = [];
    const src = new Observable<string>((s) => {
      s.next('one two three');
      s.complete();
    });
    src.pipe(smoothText({ delayMs: 50, scheduler: ts, finish: 'paced' })).subscribe((t) => seen.push([ts.now(), t]));
    expect(seen).toEqual([[0, 'one ']]);
    ts.flush();
    expect(seen).toEqual([[0, 'one '], [50, 'one two '], [100, 'one two three']]);
  });
});

describe('smoothText: the forms of text stream', () => {
  test('events: a non-text event waits for the text before it, and text after it waits for the event', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const a = ev.textDelta('m', 0, 0, 'one two ');
      const f = ev.itemAdded(1, ev.fc('fc_1', 'call_1', 'lookup'));
      const b = ev.textDelta('n', 2, 0, 'x y ');
      expectObservable(cold('-afb------|', { a, f, b }).pipe(smoothText({ delayMs: 4 }))).toBe('-a---(tfx)(y|)', {
        a: piece(a, 'one '), t: { ...piece(a, 'two '), logprobs: [] }, f, x: piece(b, 'x '), y: piece(b, 'y '),
      });
    });
  });

  test('events: the terminal event and .done come after the text; a piece carries the fields and logprobs of the last event it completes', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const lp = (token: string) => ({ token, logprob: -0.1, top_logprobs: [] });
      const la = [lp('One'), lp(' t')];
      const lb = [lp('wo'), lp(' three ')];
      const a = { ...ev.textDelta('m', 0, 0, 'One t'), logprobs: la } as E;
      const b = { ...ev.textDelta('m', 0, 0, 'wo three '), logprobs: lb } as E;
      const d = ev.textDone('m', 0, 0, 'One two three ');
      const c = ev.completed();
      expectObservable(cold('-abdc-------|', { a, b, d, c }).pipe(smoothText({ delayMs: 3 }))).toBe('-x--y--(zdc)|', {
        x: { ...a, delta: 'One ', logprobs: [] },
        y: { ...a, delta: 'two ', logprobs: la },
        z: { ...b, delta: 'three ', logprobs: lb },
        d, c,
      });
    });
  });

  test('events: each part (output_index / content_index) is paced on its own clock', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const a = ev.textDelta('m', 0, 0, 'a b c ');
      const b = ev.textDelta('n', 1, 0, 'x y z ');
      expectObservable(cold('-ab---------|', { a, b }).pipe(smoothText({ delayMs: 4 }))).toBe('-ab--cd-----(ef|)', {
        a: piece(a, 'a '), b: piece(b, 'x '), c: piece(a, 'b '), d: piece(b, 'y '), e: piece(a, 'c '), f: piece(b, 'z '),
      });
    });
  });

  test('events: reasoning summaries and refusals are paced too, keyed by summary_index', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const s = ev.summaryDelta('rs', 0, 1, 'Thinking it over');
      const r = ev.refusalDelta('m', 1, 0, 'I cannot help');
      const strip = (e: E, delta: string) => ({ ...e, delta }) as E; // no logprobs field on these
      expectObservable(cold('-sr---|', { s, r }).pipe(smoothText({ delayMs: 2 }))).toBe('-abcd-(ef|)', {
        a: strip(s, 'Thinking '), b: strip(r, 'I '), c: strip(s, 'it '), d: strip(r, 'cannot '), e: strip(s, 'over'), f: strip(r, 'help'),
      });
    });
  });

  test("TextSnapshots (accumulateText): one per piece with the part's released text; the final snapshot after its text", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const a = snap('One two ', 'One two ');
      const b = snap('One two three', 'three');
      const d = snap('One two three!', '', true);
      expectObservable(cold('-abd-------|', { a, b, d }).pipe(smoothText({ delayMs: 3 }))).toBe('-x--y--(zd)|', {
        x: snap('One ', 'One '), y: snap('One two ', 'two '), z: snap('One two three', 'three'), d,
      });
    });
  });

  test("TextSnapshots: a piece made of two snapshots' text carries the part's text up to its end", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const a = snap('Hel', 'Hel');
      const b = snap('Hello big world', 'lo big world');
      expectObservable(cold('-ab---|', { a, b }).pipe(smoothText({ delayMs: 2 }))).toBe('--x-y-(z|)', {
        x: snap('Hello ', 'Hello '), y: snap('Hello big ', 'big '), z: snap('Hello big world', 'world'),
      });
    });
  });

  test("strings: 'deltas': pieces in, pieces out", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-ab---|', { a: 'Hel', b: 'lo big world' });
      expectObservable(src.pipe(smoothText({ delayMs: 2, strings: 'deltas' }))).toBe('--x-y-(z|)', { x: 'Hello ', y: 'big ', z: 'world' });
    });
  });

  test('accumulated strings: a correction (not an extension) releases what is pending, then the corrected text at once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-ab---|', { a: 'Hello world ', b: 'Hello, world!' });
      expectObservable(src.pipe(smoothText({ delayMs: 5 }))).toBe('-x(yz)|', { x: 'Hello ', y: 'Hello world ', z: 'Hello, world!' });
    });
  });

  test("raw deltas without strings: 'deltas': each is taken as a correction and goes out as it came (nothing lost, nothing paced)", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-ab---c|', { a: 'Hel', b: 'lo big ', c: 'world' });
      expectObservable(src.pipe(smoothText({ delayMs: 2 }))).toBe('--(xy)z|', { x: 'Hel', y: 'lo big ', z: 'world' });
    });
  });

  test("outputText's '' for an answer without text comes out at completion, when no text came", () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('---a|', { a: '' }).pipe(smoothText())).toBe('----(a|)', { a: '' });
      expectObservable(cold('---a|', { a: '' }).pipe(smoothText({ finish: 'paced' }))).toBe('----(a|)', { a: '' });
    });
  });

  test("an empty first string (a run's first turn only called tools), then text: no empty value", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-ab-c--|', { a: '', b: 'One two', c: 'One two' });
      expectObservable(src.pipe(smoothText({ delayMs: 3 }))).toBe('--x----(y|)', { x: 'One ', y: 'One two' });
    });
  });

  test('TextSnapshots and events that add nothing (an empty first one) release no empty piece', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const snaps = cold('-ab-|', { a: snap('', ''), b: snap('Hi there', 'Hi there') });
      expectObservable(snaps.pipe(smoothText({ delayMs: 2 }))).toBe('--x-(y|)', { x: snap('Hi ', 'Hi '), y: snap('Hi there', 'there') });
      const d0 = ev.textDelta('m', 0, 0, '');
      const d1 = ev.textDelta('m', 0, 0, 'Hi there');
      const deltas = cold('-ab-|', { a: d0, b: d1 }).pipe(smoothText({ delayMs: 2 }), map((e) => (e as { delta: string }).delta));
      expectObservable(deltas).toBe('--x-(y|)', { x: 'Hi ', y: 'there' });
    });
  });

  test('bad options are refused at the call', () => {
    expect(() => smoothText({ delayMs: -1 })).toThrow(InvalidOptionError);
    expect(() => smoothText({ maxLagMs: 0 })).toThrow(InvalidOptionError);
    expect(() => smoothText({ chunking: 'sentence' as never })).toThrow(InvalidOptionError);
    expect(() => smoothText({ chunking: 'sentence' as never })).toThrow(/chunking/);
    expect(() => smoothText({ finish: 'later' as never })).toThrow(InvalidOptionError);
    expect(() => smoothText({ strings: 'delta' as never })).toThrow(InvalidOptionError);
  });
});

describe('smoothText without Intl.Segmenter (older browsers)', () => {
  /** The chunking module loaded while Intl.Segmenter is missing. */
  function withoutSegmenter(): typeof import('../operators/internal/smooth-chunking') {
    const saved = Intl.Segmenter;
    let mod: typeof import('../operators/internal/smooth-chunking') | undefined;
    try {
      (Intl as { Segmenter?: unknown }).Segmenter = undefined;
      jest.isolateModules(() => {
        mod = jest.requireActual<typeof import('../operators/internal/smooth-chunking')>('../operators/internal/smooth-chunking');
      });
    } finally {
      (Intl as { Segmenter?: unknown }).Segmenter = saved;
    }
    return mod!;
  }

  test("graphemes: flags, ZWJ sequences, skin tones and combining marks stay whole; 'word' cuts after spaces", () => {
    const m = withoutSegmenter();
    const text = 'a🇫🇷🇺🇸🇩e\u0301👨\u200d👩👍🏽 b';
    expect(m.graphemeStarts(text)).toEqual(graphemeStarts(text));
    const cut = m.chunkerFor('word').cut('one two  three');
    expect(cut).toEqual([4, 9]);
  });
});

describe('smoothText: properties', () => {
  // Words, CJK, emoji (ZWJ, skin tones, flags), combining marks, punctuation, spaces and newlines.
  const atoms = ['a', 'word', 'Hello', ' ', '  ', '\n', '\r\n', '.', ', ', '今日', 'は', '天気', '。', '😀', '👨\u200d👩\u200d👧', '👍🏽', '🇫🇷', 'e\u0301', '\u0301', '\u200d', '-', '‍'];
  const textArb = fc.array(fc.constantFrom(...atoms), { maxLength: 40 }).map((a) => a.join(''));
  const chunkingArb = fc.constantFrom<Chunking>('word', 'line', 'grapheme', /[.!?]\s+/, /(?:)/u, /x*/, new Intl.Segmenter('ja', { granularity: 'word' }));
  /** Cuts `text` at the given positions (any code unit, even inside a surrogate pair). */
  const split = (text: string, cuts: number[]) => {
    const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((x, y) => x - y);
    const out: string[] = [];
    let from = 0;
    for (const c of at) {
      out.push(text.slice(from, c));
      from = c;
    }
    out.push(text.slice(from));
    return out.filter((p) => p !== '');
  };
  const params = fc.record({
    text: textArb,
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
    gaps: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 13, maxLength: 13 }),
    chunking: chunkingArb,
    delay: fc.integer({ min: 0, max: 12 }),
    maxLagMs: fc.integer({ min: 1, max: 80 }),
    finish: fc.constantFrom<'flush' | 'paced'>('flush', 'paced'),
  });

  /** Runs `pieces` through smoothText on virtual time, `gaps[i]` frames apart; returns what came out. */
  function run<T extends string | E | TextSnapshot>(values: T[], gaps: number[], options: Parameters<typeof smoothText>[0], operator = smoothText): T[] {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    const out: T[] = [];
    ts.run(({ flush }) => {
      const src = new Observable<T>((s) => {
        let t = 0;
        values.forEach((v, i) => {
          t += gaps[i] ?? 1;
          ts.schedule(() => s.next(v), t);
        });
        ts.schedule(() => s.complete(), t + 1);
      });
      let completed = false;
      // A module loaded apart (jest.isolateModules) has its own rxjs, whose asyncScheduler run mode does not drive.
      src.pipe(operator({ ...(operator !== smoothText && { scheduler: ts }), ...options })).subscribe({ next: (v) => out.push(v), complete: () => (completed = true) });
      flush();
      expect(completed).toBe(true);
    });
    return out;
  }

  test('for any input chunking, the concatenated output is the input text; no piece ends inside a grapheme', () => {
    fc.assert(
      fc.property(params, ({ text, cuts, gaps, chunking, delay, maxLagMs, finish }) => {
        const parts = split(text, cuts);
        const pieces = run(parts, gaps, { chunking, delayMs: delay, maxLagMs, finish, strings: 'deltas' });
        expect(pieces.join('')).toBe(text);
        expect(pieces.every((p) => p !== '')).toBe(true);
        const starts = new Set(graphemeStarts(text));
        let at = 0;
        for (const p of pieces.slice(0, -1)) {
          at += p.length;
          expect(starts.has(at)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('without Intl.Segmenter (older browsers): the same, with the fallback chunkers', () => {
    const saved = Intl.Segmenter;
    let fallback: typeof smoothText | undefined;
    try {
      (Intl as { Segmenter?: unknown }).Segmenter = undefined;
      jest.isolateModules(() => {
        fallback = (jest.requireActual('../operators/smoothText') as { smoothText: typeof smoothText }).smoothText;
      });
    } finally {
      (Intl as { Segmenter?: unknown }).Segmenter = saved;
    }
    const noSegmenter = params.filter((p) => !(p.chunking instanceof Intl.Segmenter));
    fc.assert(
      fc.property(noSegmenter, ({ text, cuts, gaps, chunking, delay, maxLagMs, finish }) => {
        const pieces = run(split(text, cuts), gaps, { chunking, delayMs: delay, maxLagMs, finish, strings: 'deltas' }, fallback);
        expect(pieces.join('')).toBe(text);
        const starts = new Set(graphemeStarts(text));
        let at = 0;
        for (const p of pieces.slice(0, -1)) expect(starts.has((at += p.length))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('accumulated strings: every output extends the previous one, and the last is the input text', () => {
    fc.assert(
      fc.property(params, ({ text, cuts, gaps, chunking, delay, maxLagMs, finish }) => {
        const parts = split(text, cuts);
        const acc = parts.map((_, i) => parts.slice(0, i + 1).join(''));
        const outs = run(acc, gaps, { chunking, delayMs: delay, maxLagMs, finish });
        outs.forEach((o, i) => expect(o.startsWith(outs[i - 1] ?? '')).toBe(true));
        expect(outs[outs.length - 1] ?? '').toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  test("TextSnapshots: each part's pieces spell its text, each snapshot's text is its part's pieces so far, a final snapshot comes after its part's text", () => {
    fc.assert(
      fc.property(params, fc.array(fc.nat({ max: 2 }), { minLength: 13, maxLength: 13 }), ({ text, cuts, gaps, chunking, delay, maxLagMs, finish }, owners) => {
        const parts = split(text, cuts);
        const texts = ['', '', ''];
        const input: TextSnapshot[] = parts.map((p, i) => {
          const oi = owners[i] ?? 0;
          texts[oi] += p;
          return { ...snap(texts[oi]!, p), outputIndex: oi, itemId: `m${oi}` };
        });
        texts.forEach((t, oi) => t !== '' && input.push({ ...snap(t, '', true), outputIndex: oi, itemId: `m${oi}` }));
        const out = run(input, gaps, { chunking, delayMs: delay, maxLagMs, finish });
        expect(out.filter((o) => o.done)).toEqual(input.filter((o) => o.done));
        texts.forEach((t, oi) => {
          const mine = out.filter((o) => o.outputIndex === oi);
          const pieces = mine.filter((o) => !o.done);
          expect(pieces.map((o) => o.delta).join('')).toBe(t);
          let so = '';
          for (const o of pieces) {
            so += o.delta;
            expect(o.text).toBe(so);
            expect(o.delta).not.toBe('');
          }
          // The final snapshot is the part's last value out.
          if (t !== '') expect(mine[mine.length - 1]?.done).toBe(true);
          const starts = new Set(graphemeStarts(t));
          let at = 0;
          for (const o of pieces.slice(0, -1)) expect(starts.has((at += o.delta.length))).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  test('events: the deltas out spell the deltas in, part by part, and the other events keep their order after their text', () => {
    fc.assert(
      fc.property(params, fc.array(fc.nat({ max: 2 }), { minLength: 13, maxLength: 13 }), ({ text, cuts, gaps, chunking, delay, maxLagMs, finish }, owners) => {
        const parts = split(text, cuts);
        // Deltas spread over three parts, with a marker event after every third.
        const input: E[] = [];
        parts.forEach((p, i) => {
          input.push(ev.textDelta('m', owners[i] ?? 0, 0, p));
          if (i % 3 === 2) input.push(ev.unknownEvent());
        });
        input.push(ev.completed());
        const out = run(input, gaps, { chunking, delayMs: delay, maxLagMs, finish });
        const textOf = (es: E[], oi: number) => es.filter((e) => e.type === 'response.output_text.delta' && e.output_index === oi).map((e) => (e as { delta: string }).delta).join('');
        for (const oi of [0, 1, 2]) expect(textOf(out, oi)).toBe(textOf(input, oi));
        const others = (es: E[]) => es.filter((e) => e.type !== 'response.output_text.delta');
        expect(others(out)).toEqual(others(input));
        // Everything before a non-text event in the input is out before it.
        for (const o of others(input)) {
          const before = input.slice(0, input.indexOf(o));
          const outBefore = out.slice(0, out.indexOf(o));
          for (const oi of [0, 1, 2]) expect(textOf(outBefore, oi).startsWith(textOf(before, oi))).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
