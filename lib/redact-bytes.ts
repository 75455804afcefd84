// The masking's first look at a body's bytes (Node only). Most socket reads of an answer hold nothing to mask,
// and scanning a long one as a string costs more than testing its bytes (measured at ~7 ns against a third of that
// per character, before the string scan's 2026-12-03 rework: docs/performance.md, the gateway's eighth round). A
// "maybe" sends the read through the exact scan on the string (`credentialRanges`), so the masks are the same:
// this test may answer "maybe" too often, never "no" where that scan finds something.
import { isWordChar, MIN_EDGE_CHARS, MIN_RUN_CHARS, runSlotOfBytes, SHAPE_PREFIX, STRIDE, TRI_CHARS, triOfBytes, type PreparedSecrets } from './redact.js';

/**
 * The places to look at closer, as one expression: each secret's first and last MIN_EDGE characters and the
 * shapes' prefixes (markShapes's `SHAPE_PREFIX`). One native pass over the read's latin1 text; a native search per
 * needle took 3-7 ns per byte of a read where a needle's first byte is common (a secret's last 4 in an id, the
 * shapes' `-` in prose, `s` everywhere), and the JS scan it gave way to as much.
 */
const places = new WeakMap<PreparedSecrets, { readonly re: RegExp; readonly edges: ReadonlySet<string> }>();
function placesOf(secrets: PreparedSecrets): { readonly re: RegExp; readonly edges: ReadonlySet<string> } {
  let found = places.get(secrets);
  if (found === undefined) {
    const edges = new Set(secrets.list.flatMap((p) => [p.head, p.tail]));
    const escaped = [...edges].map((e) => e.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
    // The shapes first: where one starts, it is the match (a maybe), whatever edge starts there too.
    found = { re: new RegExp([SHAPE_PREFIX.source, ...escaped].join('|'), 'g'), edges };
    places.set(secrets, found);
  }
  return found;
}

/**
 * Whether `credentialRanges(text, secrets, _, after)` may find a range in the text whose codes are `b` (a latin1
 * text: one byte per character), where `from` is `max(0, after − 8)`: the secrets are looked for from `from` on,
 * the credential shapes in the whole text, as there. `false` means that scan finds nothing. `latin1`: that text,
 * when the caller has made it already (it is not made again).
 */
export function mayHoldCredential(b: Buffer, secrets: PreparedSecrets, from: number, latin1?: string): boolean {
  for (const p of secrets.list) if (mayHoldRun(b, p.tris, p.hashes, from)) return true;
  const text = latin1 ?? b.toString('latin1');
  const { re, edges } = placesOf(secrets);
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const at = m[0];
    if (!edges.has(at)) return true; // a shape's prefix (no edge, of 4 characters, is one of them)
    const i = m.index;
    if (i >= from) {
      // Every secret whose first or last 4 these are (several may share them).
      for (const p of secrets.list) {
        if (p.head === at && cutStartAt(b, p.codes, i)) return true;
        if (p.tail === at && cutEndAt(b, p.codes, i, from)) return true;
      }
    }
    // The next place may start inside this one.
    re.lastIndex = i + 1;
  }
  return false;
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
