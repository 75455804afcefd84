// Secrets out of errors: a malicious or careless server can echo the API key in an error body, a header
// or an event, and whatever the library raises must not carry it on. Text gets cut on its way into an
// error (excerpts, capped messages, a WebSocket close reason), so a cut copy of a key must be masked as
// surely as a whole one: any long run of a key's characters is masked, and a key's start or end left at
// the edge of a word by a cut. Shapes of credentials (`Bearer …`, `sk-…`) are masked even when the key
// is not known here (a key the server echoes from elsewhere, a header-given one).

/** What a masked credential becomes: no quote nor backslash, so a JSON string stays one. */
export const MASK = '[redacted]';
/** Shorter strings are not treated as secrets: replacing them everywhere would mangle ordinary text. */
const MIN_SECRET = 8;
/** Any substring of a secret this long is masked wherever it appears. */
const MIN_RUN = 8;
/** A secret's first or last characters, this many or more, are masked where a word ends or begins with them. */
const MIN_EDGE = 4;
/** @internal MIN_RUN and MIN_EDGE, for the test on bytes. */
export const MIN_RUN_CHARS = MIN_RUN;
/** @internal */
export const MIN_EDGE_CHARS = MIN_EDGE;

/**
 * Where a credential shape may begin: not inside a longer word, but after a JSON escape (`\n`, `\t`) as after
 * any separator, so that a key on the next line of a JSON string is found as surely as after a space.
 */
const WORD_START = String.raw`(?<=^|[^A-Za-z0-9]|\\[nrtbf])`;
/** `Bearer <token>` / `Basic <token>`: the token (group 1) is what gets masked. */
const AUTH_SCHEME = new RegExp(`${WORD_START}(?:Bearer|Basic)\\s+([A-Za-z0-9._~+/=-]{8,})`, 'gi');
/**
 * An `sk-…` key (OpenAI, Anthropic, OpenRouter and others, `sk-proj-`, `sk-admin-`…) or an `sess-…` session
 * key, whole or in the API's starred echo (`sk-proj-****abcd`).
 */
const SK_KEY = new RegExp(`${WORD_START}(?:sk|sess)-[A-Za-z0-9_*-]{12,}`, 'g');
/** A JWT (or any base64url JSON token): `eyJ…`, with its `.payload.signature` when there. */
const JWT = new RegExp(`${WORD_START.replace('A-Za-z0-9', 'A-Za-z0-9_-')}eyJ[A-Za-z0-9_-]{12,}(?:\\.[A-Za-z0-9_-]+)*`, 'g');

export type Secrets = readonly string[];

/** The secrets worth redacting among these values. */
export function secretsOf(...values: Array<string | undefined>): Secrets {
  // A loop (not filter, Set and spread): a gateway asks this per request, of two or three values.
  const out: string[] = [];
  for (const v of values) if (typeof v === 'string' && v.length >= MIN_SECRET && !out.includes(v)) out.push(v);
  return out;
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key']);

/**
 * The credentials in request headers (`Authorization`, `api-key`, `x-api-key`, any case): the header's value
 * and, after a scheme (`Bearer`, `Basic`), the token alone, so that an echo of either is masked.
 */
export function headerSecrets(headers: Readonly<Record<string, unknown>> | undefined): string[] {
  const out: string[] = [];
  if (!headers) return out;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (typeof value !== 'string' || !SECRET_HEADERS.has(name.toLowerCase())) continue;
    const v = value.trim();
    // The token alone: a scheme word (`Bearer`) as a secret would mask that word everywhere.
    out.push(/^(?:Bearer|Basic|Token)\s+(\S.*)$/i.exec(v)?.[1]?.trim() ?? v);
  }
  return out;
}

const NOT_ASCII = /[^\x00-\x7f]/;
/** @internal Every code of `s` is below 128 (its latin1 bytes are its UTF-8 bytes). */
export const isAsciiText = (s: string): boolean => !NOT_ASCII.test(s);

/** @internal A word character (`[A-Za-z0-9_-]`): a cut start or end of a secret counts only at a word's edge. */
export const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

const B = 131;
const slot = (h: number): number => (h ^ (h >>> 16)) & 0xffff;
const hashOf = (s: string, at: number): number => {
  let h = 0;
  for (let i = 0; i < MIN_RUN; i++) h = (Math.imul(h, B) + s.charCodeAt(at + i)) | 0;
  return h;
};

/**
 * Every run of MIN_RUN characters holds, at one of its first STRIDE positions, a TRI-gram that starts at a multiple
 * of STRIDE: testing those alone (3 loads per 6 characters) finds every run.
 */
const TRI = 3;
/** @internal TRI and STRIDE, for the test on bytes. */
export const TRI_CHARS = TRI;
/** @internal */
export const STRIDE = MIN_RUN - TRI + 1;
const triOf = (s: string, at: number): number =>
  Math.imul((s.charCodeAt(at) << 16) ^ (s.charCodeAt(at + 1) << 8) ^ s.charCodeAt(at + 2), 0x9e3779b1) >>> 16;

// The same two hashes over bytes (a latin1 text's codes), for the test on a body's bytes (lib/redact-bytes.ts).
/** @internal `slot(hashOf(text, at))` of the text whose codes `b` holds. */
export const runSlotOfBytes = (b: ArrayLike<number>, at: number): number => {
  let h = 0;
  for (let i = 0; i < MIN_RUN; i++) h = (Math.imul(h, B) + b[at + i]!) | 0;
  return slot(h);
};
/** A text's codes as bytes (a code past 255 keeps its low byte: a byte test then finds more, never less). */
const latin1Codes = (s: string): Uint8Array => Uint8Array.from({ length: s.length }, (_, i) => s.charCodeAt(i) & 0xff);
/** @internal `triOf(text, at)` of the text whose codes `b` holds. */
export const triOfBytes = (b: ArrayLike<number>, at: number): number =>
  Math.imul((b[at]! << 16) ^ (b[at + 1]! << 8) ^ b[at + 2]!, 0x9e3779b1) >>> 16;

/**
 * A secret's MIN_RUN-grams, a 64 Ki-entry table of their hashes and one of its TRI-grams' (the cheap first test at
 * every STRIDE-th position of a text), and its first and last MIN_EDGE characters (what every cut start or end
 * holds). Made once per secret and shared (see `preparedSecret`): the tables are 64 KB each.
 */
class PreparedSecret {
  readonly grams = new Set<string>();
  readonly hashes = new Uint8Array(1 << 16);
  /** The secret's first MIN_EDGE characters: every cut start holds them. */
  readonly head: string;
  /** The secret's last MIN_EDGE characters: every cut end holds them. */
  readonly tail: string;
  /** 1 at the hash of each of the secret's TRI-grams: the test made at every STRIDE-th position of a text. */
  readonly tris = new Uint8Array(1 << 16);
  /** Its codes as bytes, for the test on a body's bytes (lib/redact-bytes.ts). */
  readonly codes: Uint8Array;
  constructor(readonly secret: string) {
    for (let i = 0; i + MIN_RUN <= secret.length; i++) {
      this.grams.add(secret.slice(i, i + MIN_RUN));
      this.hashes[slot(hashOf(secret, i))] = 1;
    }
    for (let i = 0; i + TRI <= secret.length; i++) this.tris[triOf(secret, i)] = 1;
    this.head = secret.slice(0, MIN_EDGE);
    this.tail = secret.slice(secret.length - MIN_EDGE);
    this.codes = latin1Codes(secret);
  }
}

/**
 * The prepared form of each secret, shared by every text and stream that masks it while any of them is alive (a
 * gateway masks each stream's answer for its caller's key: one table per key, not per stream).
 */
const preparedCache = new Map<string, WeakRef<PreparedSecret>>();
const preparedGone = new FinalizationRegistry<string>((secret) => {
  if (preparedCache.get(secret)?.deref() === undefined) preparedCache.delete(secret);
});
function preparedSecret(secret: string): PreparedSecret {
  const known = preparedCache.get(secret)?.deref();
  if (known !== undefined) return known;
  const made = new PreparedSecret(secret);
  preparedCache.set(secret, new WeakRef(made));
  preparedGone.register(made, secret);
  return made;
}

/** Secrets made ready once for many texts (a stream's pieces): `credentialRanges` takes them as it takes `Secrets`. */
export class PreparedSecrets {
  /** @internal */
  readonly list: readonly PreparedSecret[];
  constructor(secrets: Secrets) {
    // Each line of a secret on its own (a key or a header value has one): no mask spans a line break, which a
    // stream relies on to let out everything up to its last one. (A loop, not flatMap/split/Set: a gateway makes
    // these once per request, for one or two one-line secrets.)
    const list: PreparedSecret[] = [];
    const add = (line: string): void => {
      if (line.length < MIN_SECRET) return;
      const prepared = preparedSecret(line); // the same object for the same text, while it is in use
      if (!list.includes(prepared)) list.push(prepared);
    };
    for (const s of secrets) {
      if (s.indexOf('\n') === -1 && s.indexOf('\r') === -1) add(s);
      else for (const line of s.split(/[\r\n]+/)) add(line);
    }
    this.list = list;
  }

  /** `secrets` made ready, or as they are when they already are. */
  static of(secrets: Secrets | PreparedSecrets): PreparedSecrets {
    return secrets instanceof PreparedSecrets ? secrets : new PreparedSecrets(secrets);
  }
}

/** Marks, as [start, end) ranges, every place where `text` holds a long run, or an edge-cut start or end, of `secret`. */
function markSecret(text: string, prepared: PreparedSecret, ranges: Array<[number, number]>, textStart: boolean, from: number): void {
  const { secret, grams, hashes, tris, head, tail } = prepared;
  const n = text.length;
  const m = secret.length;
  if (n < MIN_EDGE) return;
  // Runs of MIN_RUN characters. A run starting at a holds the secret's TRI-gram found at the multiple k of STRIDE
  // (from `from`) in [a, a + STRIDE): only every STRIDE-th position is tested, and the runs that may start in
  // [k − STRIDE + 1, k] are looked at where one is found (the rolling hash, then the grams themselves).
  let next = from;
  for (let k = from; k + TRI <= n; k += STRIDE) {
    if (tris[triOf(text, k)] !== 1) continue;
    for (let a = Math.max(next, k - STRIDE + 1); a <= k && a + MIN_RUN <= n; a++) {
      if (hashes[slot(hashOf(text, a))] === 1 && grams.has(text.slice(a, a + MIN_RUN))) ranges.push([a, a + MIN_RUN]);
      next = a + 1;
    }
  }
  // Shorter cut pieces: the secret's start where a word ends, its end where a word begins. Each holds the
  // secret's first (or last) MIN_EDGE characters: one native search for those, then the lengths around a hit.
  for (let i = text.indexOf(head, from); i !== -1; i = text.indexOf(head, i + 1)) {
    let l = MIN_EDGE;
    while (l < MIN_RUN && l < m && i + l < n && text.charCodeAt(i + l) === secret.charCodeAt(l)) l++;
    if (l < MIN_RUN && (i + l === n || !isWordChar(text.charCodeAt(i + l)))) ranges.push([i, i + l]);
  }
  for (let j = text.indexOf(tail, from); j !== -1; j = text.indexOf(tail, j + 1)) {
    // The end of length l starts at j + MIN_EDGE − l: the secret's characters back to it.
    for (let l = MIN_EDGE, i = j; l < MIN_RUN && l < m && i >= from; l++, i--) {
      if (l > MIN_EDGE && text.charCodeAt(i) !== secret.charCodeAt(m - l)) break;
      if (i === 0 ? textStart : !isWordChar(text.charCodeAt(i - 1))) ranges.push([i, i + l]);
    }
  }
}

/**
 * @internal Whether a text may hold a shape: `sk-`, `sess-`, `eyJ`, or `/bearer|basic/i` (spelt out: faster than the
 * `i` flag). The test on bytes (redact-bytes.ts) looks for the same prefixes.
 */
export const SHAPE_PREFIX = /sk-|sess-|eyJ|[bB](?:[eE][aA][rR][eE][rR]|[aA][sS][iI][cC])/;

/** Marks every match of a credential shape; `AUTH_SCHEME` marks its token only (the scheme word stays readable). */
function markShapes(text: string, ranges: Array<[number, number]>, textStart: boolean): void {
  // One native pass for the common answer, a text with none of the shapes' prefixes (four searches cost 3x more).
  if (!SHAPE_PREFIX.test(text)) return;
  const mark = (re: RegExp, tokenOnly: boolean): void => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      // At 0 of a window into a longer text, the lookbehind saw no character: not known to start a word.
      if (m.index === 0 && !textStart) {
        re.lastIndex = 1;
        continue;
      }
      const end = m.index + m[0].length;
      ranges.push([tokenOnly ? end - m[1]!.length : m.index, end]);
    }
  };
  if (text.includes('sk-') || text.includes('sess-')) mark(SK_KEY, false);
  if (text.includes('eyJ')) mark(JWT, false);
  if (/bearer|basic/i.test(text)) mark(AUTH_SCHEME, true);
}

/**
 * The start of the JSON escape (`\n`, `\"`, `\u00e9`) that `pos` falls strictly inside, if any: a mask must take a
 * whole escape or none of it, or a JSON text would no longer parse (`\[redacted]`).
 */
export function escapeAround(text: string, pos: number): number | undefined {
  for (let p = pos - 1; p >= 0 && p >= pos - 5; p--) {
    if (text.charCodeAt(p) !== 92) continue;
    let before = 0;
    while (p - before - 1 >= 0 && text.charCodeAt(p - before - 1) === 92) before++;
    // An odd run before it: this backslash is the escaped one, its escape began (and ended) just before pos.
    if (before % 2 === 1) return undefined;
    const len = text.charCodeAt(p + 1) === 117 /* u */ ? 6 : 2;
    return pos < p + len ? p : undefined;
  }
  return undefined;
}

/**
 * @internal `escapeAround` of the text whose code at `i` is `code(i)` (any value past its end: not a backslash, not
 * `u`), for a text held as bytes. (The string's own stays a loop of its own: it runs on every piece of a stream.)
 */
export function escapeAroundIn(code: (i: number) => number | undefined, pos: number): number | undefined {
  for (let p = pos - 1; p >= 0 && p >= pos - 5; p--) {
    if (code(p) !== 92) continue;
    let before = 0;
    while (p - before - 1 >= 0 && code(p - before - 1) === 92) before++;
    // An odd run before it: this backslash is the escaped one, its escape began (and ended) just before pos.
    if (before % 2 === 1) return undefined;
    const len = code(p + 1) === 117 /* u */ ? 6 : 2;
    return pos < p + len ? p : undefined;
  }
  return undefined;
}

/**
 * Every place of `text` to mask, as sorted, disjoint [start, end) ranges: each secret whole, in runs of 8 of its
 * characters and as a start or end of 4 cut at a word's edge; each credential shape. A range never splits a JSON
 * escape. `textStart: false` when `text` is a window whose index 0 is not the start of the text (a stream's).
 * `after`: only ranges that end past it are needed (a stream's text before it was masked already), so the secrets
 * are looked for from just before it; ranges ending before it may be missing.
 */
export function credentialRanges(text: string, secrets: Secrets | PreparedSecrets = [], textStart = true, after = 0): Array<[number, number]> {
  const raw: Array<[number, number]> = [];
  const prepared = PreparedSecrets.of(secrets);
  // A secret's match reaching past `after` starts at most MIN_RUN characters before it.
  const from = Math.max(0, after - MIN_RUN);
  for (const secret of prepared.list) markSecret(text, secret, raw, textStart, from);
  markShapes(text, raw, textStart);
  if (raw.length === 0) return raw;
  for (const r of raw) {
    r[0] = escapeAround(text, r[0]) ?? r[0];
    const end = escapeAround(text, r[1]);
    if (end !== undefined) r[1] = end + (text.charCodeAt(end + 1) === 117 ? 6 : 2);
  }
  raw.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of raw) {
    const last = out[out.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The text with every secret (whole, cut or in long runs) and every credential shape masked; the same string when there is none. */
export function redactString(s: string, secrets: Secrets | PreparedSecrets = []): string {
  const ranges = credentialRanges(s, secrets);
  if (ranges.length === 0) return s;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += s.slice(at, start) + MASK;
    at = end;
  }
  return out + s.slice(at);
}

/**
 * A text cut to about `max` characters with credential shapes masked first, so that a cut cannot leave
 * most of a key behind its mask. Only the start of a long text is looked at.
 */
export function redactThenCut(text: string, max: number, secrets: Secrets = []): string {
  const masked = redactString(text.length > max + 512 ? text.slice(0, max + 512) : text, secrets);
  return masked.length > max ? `${masked.slice(0, max)}…` : masked;
}

/** An error of any realm (fetch's errors may come from another one): masked in place, never copied. */
const isError = (v: unknown): v is Error => v instanceof Error || Object.prototype.toString.call(v) === '[object Error]';

function containsSecret(v: unknown, secrets: Secrets, depth = 0): boolean {
  if (typeof v === 'string') return redactString(v, secrets) !== v;
  if (typeof v !== 'object' || v === null || depth > 32) return false;
  for (const k of Object.getOwnPropertyNames(v)) {
    if (containsSecret((v as Record<string, unknown>)[k], secrets, depth + 1)) return true;
  }
  return false;
}

/** A copy of a JSON-like value with every secret and credential shape masked; the value itself when it holds none. */
export function redactValue<T>(v: T, secrets: Secrets): T {
  if (!containsSecret(v, secrets)) return v;
  return copy(v, secrets, 0) as T;
}

function copy(v: unknown, secrets: Secrets, depth: number): unknown {
  if (typeof v === 'string') return redactString(v, secrets);
  if (typeof v !== 'object' || v === null || depth > 32) return v;
  if (isError(v)) return redactError(v, secrets);
  if (Array.isArray(v)) return v.map((x) => copy(x, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x, secrets, depth + 1);
  return out;
}

/**
 * Masks every secret and credential shape in an error, in place: its message, stack, own properties
 * (enumerable or not) and cause chain. Returns the same error.
 */
export function redactError<E>(e: E, secrets: Secrets, depth = 0): E {
  if (typeof e !== 'object' || e === null || depth > 8) return e;
  for (const k of Object.getOwnPropertyNames(e)) {
    const d = Object.getOwnPropertyDescriptor(e, k);
    if (!d || !('value' in d)) continue;
    const v: unknown = d.value;
    const next = isError(v) ? redactError(v, secrets, depth + 1) : redactValue(v, secrets);
    if (next === v) continue;
    try {
      Object.defineProperty(e, k, { ...d, value: next, writable: d.writable });
    } catch {
      // Not configurable (a foreign error's frozen field): assignment is the last resort.
      try {
        (e as Record<string, unknown>)[k] = next;
      } catch {
        /* left as it is */
      }
    }
  }
  return e;
}
