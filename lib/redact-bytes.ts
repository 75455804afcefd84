// The masking's first look at a body's bytes (Node only). Most socket reads of an answer hold nothing to mask,
// and scanning a long one as a string costs more than testing its bytes (measured at ~7 ns against a third of that
// per character, before the string scan's 2026-12-03 rework: docs/performance.md, the gateway's eighth round). A
// "maybe" sends the read through the exact scan on the string (`credentialRanges`), so the masks are the same:
// this test may answer "maybe" too often, never "no" where that scan finds something.
import { isWordChar, MIN_EDGE_CHARS, MIN_RUN_CHARS, runSlotOfBytes, STRIDE, TRI_CHARS, triOfBytes, type PreparedSecrets } from './redact.js';

/** How common a byte is in JSON and prose (higher: more): a needle is looked for from its rarest byte. */
function commonness(c: number): number {
  if (c === 32 || c === 34 || c === 44 || c === 58 || c === 10 || c === 123 || c === 125) return 100;
  if (c >= 97 && c <= 122) return 60 - 'etaoinshrdlcumwfgypbvkjxqz'.indexOf(String.fromCharCode(c));
  if (c >= 48 && c <= 57) return 40;
  if (c === 95 || c === 46) return 45;
  if (c >= 65 && c <= 90) return 10;
  return 5;
}

/** Native searches that hit this often in one read give way to one pass in JS (a native call per hit costs more). */
const NATIVE_HITS = 16;

/**
 * A needle looked for natively from its rarest byte (the bytes before it checked then), or by Horspool's skips in
 * JS once it was found often.
 */
class Needle {
  private readonly anchor: number;
  private readonly tail: Uint8Array;
  private readonly shift = new Uint8Array(256);
  constructor(private readonly codes: Uint8Array) {
    const m = codes.length;
    let anchor = 0;
    for (let i = 1; i < m; i++) if (commonness(codes[i]!) < commonness(codes[anchor]!)) anchor = i;
    this.anchor = anchor;
    this.tail = codes.slice(anchor);
    this.shift.fill(m);
    for (let i = 0; i < m - 1; i++) this.shift[codes[i]!] = m - 1 - i;
  }

  /** Calls `hit` with each place from `from` on where `b` holds the needle, until it returns true (then true). */
  some(b: Buffer, from: number, hit: (i: number) => boolean): boolean {
    const { codes, anchor, tail } = this;
    let hits = 0;
    for (let j = b.indexOf(tail, from + anchor); j !== -1; j = b.indexOf(tail, j + 1)) {
      const i = j - anchor;
      if (i < from) continue;
      let k = 0;
      while (k < anchor && b[i + k] === codes[k]) k++;
      if (k === anchor && hit(i)) return true;
      if (++hits === NATIVE_HITS) return this.scan(b, i + 1, hit);
    }
    return false;
  }

  private scan(b: Buffer, from: number, hit: (i: number) => boolean): boolean {
    const { codes, shift } = this;
    const m = codes.length;
    const n = b.length;
    const lastAt = m - 1;
    const last = codes[lastAt];
    for (let i = from; i + m <= n; ) {
      const c = b[i + lastAt]!;
      if (c === last) {
        let k = 0;
        while (k < lastAt && b[i + k] === codes[k]) k++;
        if (k === lastAt && hit(i)) return true;
      }
      i += shift[c]!;
    }
    return false;
  }
}

const ascii = (s: string): Uint8Array => Uint8Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));
const SHAPE_NEEDLES = ['sk-', 'sess-', 'eyJ'].map((s) => new Needle(ascii(s)));
const always = (): boolean => true;
/** markShapes's `/bearer|basic/i`, on the latin1 text (a regular expression is native; case folding in JS is not). */
const SCHEME = /bearer|basic/i;

/** A secret's first and last MIN_EDGE characters, as needles (made once per prepared secret). */
const edgeNeedles = new WeakMap<Uint8Array, { head: Needle; tail: Needle }>();
function edgesOf(codes: Uint8Array): { head: Needle; tail: Needle } {
  let e = edgeNeedles.get(codes);
  if (e === undefined) {
    e = { head: new Needle(codes.slice(0, MIN_EDGE_CHARS)), tail: new Needle(codes.slice(codes.length - MIN_EDGE_CHARS)) };
    edgeNeedles.set(codes, e);
  }
  return e;
}

/**
 * Whether `credentialRanges(text, secrets, _, after)` may find a range in the text whose codes are `b` (a latin1
 * text: one byte per character), where `from` is `max(0, after − 8)`: the secrets are looked for from `from` on,
 * the credential shapes in the whole text, as there. `false` means that scan finds nothing.
 */
export function mayHoldCredential(b: Buffer, secrets: PreparedSecrets, from: number): boolean {
  for (const p of secrets.list) {
    if (mayHoldRun(b, p.tris, p.hashes, from)) return true;
    const { head, tail } = edgesOf(p.codes);
    const codes = p.codes;
    if (head.some(b, from, (i) => cutStartAt(b, codes, i))) return true;
    if (tail.some(b, from, (j) => cutEndAt(b, codes, j, from))) return true;
  }
  for (const shape of SHAPE_NEEDLES) if (shape.some(b, 0, always)) return true;
  return SCHEME.test(b.toString('latin1'));
}

/**
 * markSecret's runs of 8 of the secret from `from` on: each holds one of its 3-grams at a STRIDE-th position, where
 * the runs that may hold it are tested against the table of the secret's 8-grams.
 */
function mayHoldRun(b: Buffer, tris: Uint8Array, runs: Uint8Array, from: number): boolean {
  const n = b.length;
  for (let k = from; k + TRI_CHARS <= n; k += STRIDE) {
    if (tris[triOfBytes(b, k)] !== 1) continue;
    for (let a = Math.max(from, k - STRIDE + 1); a <= k && a + MIN_RUN_CHARS <= n; a++) if (runs[runSlotOfBytes(b, a)] === 1) return true;
  }
  return false;
}

// The cut pieces, as markSecret tests them, except at the ends of `b`, which may not be the text's: a maybe there.

/** A cut start at `i` (the secret's first 4 there): 4 to 7 of its first characters where a word ends. */
function cutStartAt(b: Buffer, secret: Uint8Array, i: number): boolean {
  const n = b.length;
  let l = MIN_EDGE_CHARS;
  while (l < MIN_RUN_CHARS && l < secret.length && i + l < n && b[i + l] === secret[l]) l++;
  return i + l === n || (l < MIN_RUN_CHARS && !isWordChar(b[i + l]!));
}

/** A cut end holding the secret's last 4 at `j`: 4 to 7 of its last characters, from `from` on, where a word begins. */
function cutEndAt(b: Buffer, secret: Uint8Array, j: number, from: number): boolean {
  const m = secret.length;
  // The end of length l starts at j + 4 − l: the secret's characters back to it.
  for (let l = MIN_EDGE_CHARS, i = j; l < MIN_RUN_CHARS && l <= m - 1 && i >= from; l++, i--) {
    if (l > MIN_EDGE_CHARS && b[i] !== secret[m - l]) break;
    if (i === 0 || !isWordChar(b[i - 1]!)) return true;
  }
  return false;
}
