// Masking a text that arrives in pieces (a body relayed as it streams): the same masks as `redactString` on the
// whole, whatever the cuts between pieces, holding back only a bounded tail. A credential cut in two by a chunk
// boundary is masked as one; a key-shaped token too long for that tail is masked, and what follows of it is
// dropped, however long it runs.
import { mayHoldCredential } from './redact-bytes.js';
import { credentialRanges, escapeAround, escapeAroundIn, isAsciiText, isWordChar, MASK, MIN_RUN_CHARS, PreparedSecrets, type Secrets } from './redact.js';

/**
 * Characters held back at the end of each piece, after its last line break: enough to see every bounded match
 * whole (a run of 8 of a secret's characters, a cut end of one at a word's edge, `Bearer ` and the 8 characters
 * that make its token one, a JSON escape) before anything of it is let out.
 */
const HOLD = 64;
/** Characters already let out that are kept to look behind (a word's edge, `Bearer `, a key's run crossing the cut). */
const CONTEXT = 64;

/**
 * Pieces of bytes at least this long are first tested on their bytes (`pushBytes`); shorter ones (a paced delta)
 * go the string's way, where the test's fixed cost would not pay. More than HOLD and an escape: the cut then
 * falls inside the piece.
 */
export const BYTES_AT_LEAST = 1024;
/** The junction of what is held and a piece: every match that crosses it ends within this many of the piece's characters. */
const JUNCTION = 8;

/** A character that may continue a credential token: `[A-Za-z0-9._~+/=*-]`. */
function continuesToken(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95 || c === 46 || c === 126 || c === 43 || c === 47 || c === 61 || c === 42;
}

/** Whether `text` from `at` on holds only token characters (a match reaching that far may go on). */
function tokenToEnd(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) if (!continuesToken(text.charCodeAt(i))) return false;
  return true;
}

/**
 * `text.slice(from, to)`, a copy of its own when it is a small part of `text`: V8's sliced string would keep the
 * whole piece (an idle stream's last chunk, often its first events, ~1 KB) alive until the next one comes.
 */
function part(text: string, from: number, to: number): string {
  if (to - from === text.length) return text;
  return to - from > 0 && to - from < text.length >> 1 ? (' ' + text.slice(from, to)).slice(1) : text.slice(from, to);
}

/** The context after a line break that nothing before it can join (see `afterLineBreak`). */
const LINE_BREAK = '\n';
const SPACE = /\s/;

/**
 * Whether the text whose code at `i` is `code(i)` ends, at `cut`, with a line break that no match of a mask can
 * cross: no secret holds one (each is split at them) and no shape but `Bearer`/`Basic` and its token's
 * whitespace does, which a word's character before the whitespace would show. Then the line break alone is
 * context enough (a word's edge): an SSE stream keeps nothing of an event once its blank line has come, rather
 * than a copy of its last characters per stream until the next event (each one a survivor of V8's scavenges).
 */
function afterLineBreak(code: (i: number) => number, cut: number): boolean {
  if (cut === 0 || code(cut - 1) !== 10) return false;
  let i = cut - 2;
  for (let c = code(i); i >= 0 && (c === 32 || (c >= 9 && c <= 13) || (c > 127 && SPACE.test(String.fromCharCode(c)))); c = code(--i));
  return i < 0 || !isWordChar(code(i));
}

/**
 * Masks a text given in pieces: `push` each piece in order and write what it returns, then what `end` returns. The
 * output is the text with the secrets and credential shapes masked as `redactString` masks them; at most about 128
 * characters are held at any time. Characters are whatever unit the caller chose (a body's bytes as latin1 chars
 * keep binary bodies byte for byte).
 *
 * ```ts
 * const r = new StreamRedactor(['sk-proj-abc…']);
 * for (const piece of pieces) out.write(r.push(piece));
 * out.end(r.end());
 * ```
 */
export class StreamRedactor {
  /** The last characters let out (raw): looked behind, never let out again. */
  private context = '';
  /** Characters let out or dropped so far: while the context holds them all, its 0 is the text's start. */
  private consumed = 0;
  /** Characters not let out yet. */
  private pending = '';
  /** What was let out ends inside a mask whose end was not seen: the token's next characters are dropped. */
  private inMask = false;

  private readonly secrets: PreparedSecrets;

  /**
   * The last `push` let its piece out whole and as it was (nothing held back from before or after it, nothing
   * masked): a caller holding the piece in another form (its bytes) may send that instead of re-encoding the text.
   */
  unchanged = false;

  constructor(secrets: Secrets | PreparedSecrets) {
    this.secrets = PreparedSecrets.of(secrets);
  }

  /** Characters held now (a bound, whatever the pieces' sizes). */
  get held(): number {
    return this.context.length + this.pending.length;
  }

  /** The masked text that can go out once `piece` is added. */
  push(piece: string): string {
    this.unchanged = false;
    if (piece === '') return '';
    const held = this.pending !== '' || this.inMask;
    this.pending += piece;
    const out = this.flush(false);
    this.unchanged = !held && !this.masked && this.pending === '' && out.length === piece.length;
    return out;
  }

  /**
   * `push` for a body's bytes, one latin1 character each (a secret given as its UTF-8 bytes in latin1): the same
   * text out, as bytes. A long piece that holds nothing to mask, nor does its junction with what is held (the test
   * on bytes, lib/redact-bytes.ts), is cut as `push` would cut it without being made a string to scan; its bytes
   * go out, no copy of them when nothing was held before.
   */
  pushBytes(piece: Buffer): Buffer {
    const before = this.pending;
    const p = this.letOutBytes(piece, undefined);
    if (p < 0) return this.pushText(piece);
    return before === '' ? piece.subarray(0, p) : Buffer.concat([latin1(before), piece.subarray(0, p)] as unknown as Uint8Array[]);
  }

  /**
   * `pushBytes` for a piece of ASCII bytes whose latin1 text the caller has made already (a read it decodes as
   * text): what goes out as text, and no copy of the piece made to test it, to join it or to decode it (a part of
   * the text, or what was held joined to it). As bytes when what was held has a code past 127 (part of a UTF-8
   * character cut by the last piece): a text would not be the body's then.
   */
  pushLatin1(piece: Buffer, text: string): string | Buffer {
    const before = this.pending;
    if (!isAsciiText(before)) return this.pushBytes(piece);
    const p = this.letOutBytes(piece, text);
    if (p < 0) return this.push(text);
    // (V8 gives `text` itself for its whole slice, and the other side of a join with '': no copies.)
    return before + text.slice(0, p);
  }

  /**
   * The test on bytes: how much of the piece goes out as it is (after what was held), the state moved past it; or
   * −1 when the piece must be scanned as a string (`push`), nothing moved. `text`: the piece's latin1 text, if made.
   */
  private letOutBytes(piece: Buffer, text: string | undefined): number {
    if (piece.length < BYTES_AT_LEAST || this.inMask) return -1;
    const context = this.context;
    const pending = this.pending;
    const start = context.length;
    const head = context + pending;
    const h = head.length;
    // As `flush`: the secrets looked for from MIN_RUN before the new text, the shapes in all of it.
    const junction = Buffer.from(head + piece.toString('latin1', 0, JUNCTION), 'latin1');
    if (mayHoldCredential(junction, this.secrets, Math.max(0, start - MIN_RUN_CHARS)) || mayHoldCredential(piece, this.secrets, 0, text)) return -1;
    // `flush(false)` with no range and nothing masked before: the cut, and what is let out and kept.
    const len = h + piece.length;
    const nl = piece.lastIndexOf(10);
    let cut = Math.max(start, len - HOLD, (nl !== -1 ? h + nl : head.lastIndexOf('\n')) + 1);
    cut = Math.max(start, escapeAroundIn((i) => (i < h ? head.charCodeAt(i) : piece[i - h]), cut) ?? cut);
    // (No UTF-16 pair to keep whole: every code is a byte.) The piece is longer than HOLD and an escape: cut ≥ h.
    const p = cut - h;
    this.consumed += cut - start;
    if (afterLineBreak((i) => (i < h ? head.charCodeAt(i) : piece[i - h]!), cut)) this.context = LINE_BREAK;
    else this.context = p >= CONTEXT ? piece.toString('latin1', p - CONTEXT, p) : head.slice(Math.max(0, cut - CONTEXT)) + piece.toString('latin1', 0, p);
    // A copy, not a part of `text`: what is held must not keep the whole piece's text alive.
    this.pending = piece.toString('latin1', p);
    this.masked = false;
    this.unchanged = pending === '' && this.pending === '' && p === piece.length;
    return p;
  }

  /** `push` of the piece's text: its own bytes out when they went out whole and as they were. */
  private pushText(piece: Buffer): Buffer {
    const out = this.push(piece.toString('latin1'));
    return this.unchanged ? piece : latin1(out);
  }

  /** The masked rest, once the text has ended. */
  end(): string {
    const out = this.flush(true);
    this.context = '';
    this.pending = '';
    this.inMask = false;
    this.consumed = 0;
    return out;
  }

  /** The last flush let out a mask. */
  private masked = false;

  private flush(final: boolean): string {
    this.masked = false;
    // After a line break nothing before it can be part of a match: the new text is scanned alone, its start a word's edge.
    const lineStart = this.context === LINE_BREAK;
    const start = lineStart ? 0 : this.context.length;
    // Joined, not `+`: a flat string, where `+` makes a rope that every character read of the scan walks through.
    const text = start === 0 ? this.pending : [this.context, this.pending].join('');
    const len = text.length;
    // The context was looked at when it came: only what reaches into the new text is looked for again.
    const ranges = credentialRanges(text, this.secrets, lineStart || this.consumed === start, start);
    let from = start;
    if (this.inMask) {
      // The rest of the masked token: the mask already went out.
      for (const [a, b] of ranges) if (a < start && b > from) from = b;
      while (from < len && continuesToken(text.charCodeAt(from))) from++;
      if (from === len && !final) return this.keep(text, lineStart, start, len, '');
      this.inMask = false;
    }
    // Up to a line break nothing is held back: no mask spans one, and no match before it needs what follows
    // (an SSE event goes out whole as soon as its blank line has come).
    let cut = final ? len : Math.max(from, len - HOLD, text.lastIndexOf('\n') + 1);
    // Never between a JSON escape's backslash and its letters, nor inside a UTF-16 pair: a mask may need both.
    if (!final) {
      cut = Math.max(from, escapeAround(text, cut) ?? cut);
      const c = text.charCodeAt(cut - 1);
      if (cut > from && c >= 0xd800 && c <= 0xdbff) cut--;
    }
    let out = '';
    let at = from;
    for (const [a, b] of ranges) {
      if (b <= from) continue;
      if (a >= cut) break;
      out += text.slice(at, Math.max(a, from)) + MASK;
      this.masked = true;
      at = b;
      if (b < cut) continue;
      cut = b;
      // A token running on to the end of what has come may go on in the next piece: masked to its end, wherever.
      if (!final && tokenToEnd(text, b)) {
        this.inMask = true;
        at = cut = len;
      }
    }
    out += text.slice(at, cut);
    return this.keep(text, lineStart, start, cut, out);
  }

  /** `text[start, cut)` let out (or dropped), `text[cut…]` held; `lineStart`: a line break came just before `text`. */
  private keep(text: string, lineStart: boolean, start: number, cut: number, out: string): string {
    this.consumed += cut - start;
    if (afterLineBreak((i) => text.charCodeAt(i), cut)) this.context = LINE_BREAK;
    else if (lineStart && cut < CONTEXT) this.context = [LINE_BREAK, text.slice(0, cut)].join('');
    else this.context = part(text, Math.max(0, cut - CONTEXT), cut);
    this.pending = part(text, cut, text.length);
    return out;
  }
}

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
