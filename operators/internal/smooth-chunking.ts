// Where smoothText may cut text into segments (not exported from the package).
import { invalidOption } from '../../lib/options.js';

/** How text is cut into the segments that smoothText releases one at a time. */
export type Chunking = 'word' | 'line' | 'grapheme' | RegExp | Intl.Segmenter;

/**
 * Cuts text into complete segments. `cut(text)` returns the ends of the segments that cannot change any more,
 * in increasing order, each `< text.length` unless the text ends on a boundary that no later text can move (a
 * line's `\n`). What follows the last end is the trailing segment: it may still grow, so it is held.
 */
export interface Chunker {
  cut(text: string): number[];
}

type SegmenterCtor = new (locale?: string, options?: { granularity?: 'grapheme' | 'word' | 'sentence' }) => Intl.Segmenter;
const Segmenter: SegmenterCtor | undefined = (globalThis as { Intl?: { Segmenter?: SegmenterCtor } }).Intl?.Segmenter;

let graphemes: Intl.Segmenter | undefined;

/** The start of each grapheme of `text` after the first (extended grapheme clusters). */
export function graphemeStarts(text: string): number[] {
  const out: number[] = [];
  if (Segmenter !== undefined) {
    graphemes ??= new Segmenter(undefined, { granularity: 'grapheme' });
    for (const s of graphemes.segment(text)) if (s.index > 0) out.push(s.index);
    return out;
  }
  // Without Intl.Segmenter: never inside a surrogate pair, before a mark, a joiner or a variation selector, or after a joiner.
  for (let i = 1; i < text.length; i++) if (isGraphemeStart(text, i)) out.push(i);
  return out;
}

const EXTENDS = /[\p{M}\u200d\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u{1f3fb}-\u{1f3ff}]/u;

function isGraphemeStart(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
    const p = text.charCodeAt(i - 1);
    if (p >= 0xd800 && p <= 0xdbff) return false;
  }
  if (text.charCodeAt(i - 1) === 0x200d) return false;
  if (text.charCodeAt(i - 1) === 0x0d && c === 0x0a) return false;
  const cp = text.codePointAt(i) ?? 0;
  // Regional indicators pair up into flags: inside a run of them, a boundary only after an even count.
  if (isRegional(cp)) {
    let n = 0;
    for (let j = i - 2; j >= 0 && isRegional(text.codePointAt(j) ?? 0); j -= 2) n++;
    if (n % 2 === 1) return false;
  }
  return !EXTENDS.test(String.fromCodePoint(cp));
}

const isRegional = (cp: number): boolean => cp >= 0x1f1e6 && cp <= 0x1f1ff;

/** The smallest grapheme start ≥ `at` in the sorted `starts`, else `text.length`. */
function snapUp(starts: readonly number[], at: number, length: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return starts[lo] ?? length;
}

const SPACE = /^\s+$/u;
const EMOJI = /^[\p{Extended_Pictographic}\p{Regional_Indicator}]/u;

/**
 * Word chunks from a word segmenter: a word with the punctuation around it and the spaces after it. A new chunk
 * starts after spaces, at a word when the chunk already has one (so CJK text, which has no spaces, is cut at the
 * segmenter's word boundaries), and at an emoji right after another (so text without words still moves).
 * Punctuation never starts a chunk of its own: an ellipsis, `?!` or a closing quote stays with its word.
 */
function wordChunker(segmenter: Intl.Segmenter): Chunker {
  return {
    cut(text) {
      const out: number[] = [];
      let prev: 'word' | 'space' | 'emoji' | 'other' | undefined;
      let hasWord = false; // the current chunk has a word
      for (const s of segmenter.segment(text)) {
        const kind = s.isWordLike === true ? 'word' : SPACE.test(s.segment) ? 'space' : EMOJI.test(s.segment) ? 'emoji' : 'other';
        const starts = prev !== undefined && kind !== 'space' && (prev === 'space' || (kind === 'word' && hasWord) || (kind === 'emoji' && prev === 'emoji'));
        if (starts) {
          out.push(s.index);
          hasWord = false;
        }
        if (kind === 'word') hasWord = true;
        prev = kind;
      }
      return out;
    },
  };
}

/** One chunk per segment (graphemes, sentences). */
function eachSegment(segmenter: Intl.Segmenter): Chunker {
  return {
    cut(text) {
      const out: number[] = [];
      for (const s of segmenter.segment(text)) if (s.index > 0) out.push(s.index);
      return out;
    },
  };
}

/** A chunk ends after each `\n` (a line cannot grow past its end, so a final `\n` closes it too). */
const lineChunker: Chunker = {
  cut(text) {
    const out: number[] = [];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) out.push(i + 1);
    return out;
  },
};

/**
 * A chunk ends where a match of `pattern` ends (moved forward to the next grapheme boundary). A match that
 * ends where the chunk started (an empty match there) is skipped: the search goes on one position later, so a
 * pattern that matches the empty string cannot loop. A match reaching the end of the text may still grow: held.
 */
function regexChunker(pattern: RegExp): Chunker {
  const re = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g');
  return {
    cut(text) {
      const out: number[] = [];
      let starts: number[] | undefined;
      let start = 0;
      let from = 0;
      while (from <= text.length) {
        re.lastIndex = from;
        const m = re.exec(text);
        if (m === null) break;
        let end = m.index + m[0].length;
        if (end <= start) {
          from = Math.max(m.index, from) + 1;
          continue;
        }
        starts ??= graphemeStarts(text);
        end = snapUp(starts, end, text.length);
        if (end >= text.length) break;
        out.push(end);
        start = from = end;
      }
      return out;
    },
  };
}

/** The fallback for word chunking without Intl.Segmenter: runs of non-space characters with the spaces after them. */
const spaceWords = /\S\s+(?=\S)/u;

/** The chunker for an option value. */
export function chunkerFor(chunking: Chunking): Chunker {
  if (chunking instanceof RegExp) return regexChunker(chunking);
  if (chunking === 'line') return lineChunker;
  if (chunking === 'word') return Segmenter !== undefined ? wordChunker(new Segmenter(undefined, { granularity: 'word' })) : regexChunker(spaceWords);
  if (chunking === 'grapheme') return { cut: graphemeStarts };
  if (typeof chunking === 'object' && chunking !== null && typeof (chunking as Intl.Segmenter).segment === 'function') {
    return chunking.resolvedOptions().granularity === 'word' ? wordChunker(chunking) : eachSegment(chunking);
  }
  throw invalidOption('chunking', "'word', 'line', 'grapheme', a RegExp or an Intl.Segmenter", chunking);
}
