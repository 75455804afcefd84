// Secrets out of errors: a malicious or careless server can echo the API key in an error body, a header
// or an event, and whatever the library raises must not carry it on. Text gets cut on its way into an
// error (excerpts, capped messages, a WebSocket close reason), so a cut copy of a key must be masked as
// surely as a whole one: any long run of a key's characters is masked, and a key's start or end left at
// the edge of a word by a cut. Shapes of credentials (`Bearer …`, `sk-…`) are masked even when the key
// is not known here (a key the server echoes from elsewhere, a header-given one).

const MASK = '[redacted]';
/** Shorter strings are not treated as secrets: replacing them everywhere would mangle ordinary text. */
const MIN_SECRET = 8;
/** Any substring of a secret this long is masked wherever it appears. */
const MIN_RUN = 8;
/** A secret's first or last characters, this many or more, are masked where a word ends or begins with them. */
const MIN_EDGE = 4;

/** `Bearer <token>` / `Basic <token>`: the token. */
const AUTH_SCHEME = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** An `sk-…` key (OpenAI, Anthropic, OpenRouter and others), not part of a longer word. */
const SK_KEY = /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{12,}/g;

export type Secrets = readonly string[];

/** The secrets worth redacting among these values. */
export function secretsOf(...values: Array<string | undefined>): Secrets {
  const out = values.filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET);
  return [...new Set(out)];
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key']);

/**
 * The credentials in request headers (`Authorization`, `api-key`, `x-api-key`, any case): the header's value
 * and, after a scheme (`Bearer`, `Basic`), the token alone, so that an echo of either is masked.
 */
export function headerSecrets(headers: Readonly<Record<string, unknown>> | undefined): string[] {
  const out: string[] = [];
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase()) || typeof value !== 'string') continue;
    const v = value.trim();
    // The token alone: a scheme word (`Bearer`) as a secret would mask that word everywhere.
    out.push(/^(?:Bearer|Basic|Token)\s+(\S.*)$/i.exec(v)?.[1]?.trim() ?? v);
  }
  return out;
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

/** Marks, as [start, end) ranges, every place where `text` holds a long run, or an edge-cut start or end, of `secret`. */
function markSecret(text: string, secret: string, ranges: Array<[number, number]>): void {
  const n = text.length;
  const m = secret.length;
  if (n < MIN_EDGE) return;
  // Runs of MIN_RUN characters, found with a rolling hash over the secret's MIN_RUN-grams (linear in the text).
  const grams = new Set<string>();
  // A 64 Ki-entry table of the grams' hashes: a cheap first test at every position of a long text.
  const hashes = new Uint8Array(1 << 16);
  const slot = (h: number): number => (h ^ (h >>> 16)) & 0xffff;
  const B = 131;
  let bHigh = 1;
  for (let i = 1; i < MIN_RUN; i++) bHigh = Math.imul(bHigh, B);
  const hashOf = (s: string, at: number): number => {
    let h = 0;
    for (let i = 0; i < MIN_RUN; i++) h = (Math.imul(h, B) + s.charCodeAt(at + i)) | 0;
    return h;
  };
  for (let i = 0; i + MIN_RUN <= m; i++) {
    grams.add(secret.slice(i, i + MIN_RUN));
    hashes[slot(hashOf(secret, i))] = 1;
  }
  if (n >= MIN_RUN) {
    let h = hashOf(text, 0);
    for (let i = 0; ; i++) {
      if (hashes[slot(h)] === 1 && grams.has(text.slice(i, i + MIN_RUN))) ranges.push([i, i + MIN_RUN]);
      if (i + MIN_RUN >= n) break;
      h = (Math.imul((h - Math.imul(text.charCodeAt(i), bHigh)) | 0, B) + text.charCodeAt(i + MIN_RUN)) | 0;
    }
  }
  // Shorter cut pieces: the secret's start where a word ends, its end where a word begins.
  const first = secret.charCodeAt(0);
  const ends: string[] = [];
  for (let l = Math.min(MIN_RUN - 1, m - 1); l >= MIN_EDGE; l--) ends.push(secret.slice(m - l));
  const endStarts = new Set(ends.map((e) => e.charCodeAt(0)));
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === first) {
      let l = 0;
      while (l < MIN_RUN && l < m && i + l < n && text.charCodeAt(i + l) === secret.charCodeAt(l)) l++;
      if (l >= MIN_EDGE && l < MIN_RUN && (i + l === n || !isWordChar(text.charCodeAt(i + l)))) ranges.push([i, i + l]);
    }
    if (endStarts.has(c) && (i === 0 || !isWordChar(text.charCodeAt(i - 1)))) {
      const end = ends.find((e) => text.startsWith(e, i));
      if (end !== undefined) ranges.push([i, i + end.length]);
    }
  }
}

/** The text with every secret (whole, cut or in long runs) and every credential shape masked; the same string when there is none. */
export function redactString(s: string, secrets: Secrets = []): string {
  let out = s;
  if (secrets.length > 0) {
    const ranges: Array<[number, number]> = [];
    for (const secret of secrets) markSecret(out, secret, ranges);
    if (ranges.length > 0) {
      ranges.sort((a, b) => a[0] - b[0]);
      let text = '';
      let at = 0;
      for (let i = 0; i < ranges.length; ) {
        const start = ranges[i]![0];
        let end = ranges[i]![1];
        for (i++; i < ranges.length && ranges[i]![0] <= end; i++) end = Math.max(end, ranges[i]![1]);
        text += out.slice(at, start) + MASK;
        at = end;
      }
      out = text + out.slice(at);
    }
  }
  if (out.includes('sk-')) out = out.replace(SK_KEY, MASK);
  if (/bearer|basic/i.test(out)) out = out.replace(AUTH_SCHEME, `$1$2${MASK}`);
  return out;
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
