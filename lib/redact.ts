// Secrets out of errors: a malicious or careless server can echo the API key in an error body, a header
// or an event, and whatever the library raises must not carry it on.

const MASK = '[redacted]';
/** Shorter strings are not treated as secrets: replacing them everywhere would mangle ordinary text. */
const MIN_SECRET = 8;

export type Secrets = readonly string[];

/** The secrets worth redacting among these values. */
export function secretsOf(...values: Array<string | undefined>): Secrets {
  return values.filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET);
}

export function redactString(s: string, secrets: Secrets): string {
  let out = s;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}

function containsSecret(v: unknown, secrets: Secrets, depth = 0): boolean {
  if (typeof v === 'string') return secrets.some((s) => v.includes(s));
  if (typeof v !== 'object' || v === null || depth > 32) return false;
  for (const k of Object.getOwnPropertyNames(v)) {
    if (containsSecret((v as Record<string, unknown>)[k], secrets, depth + 1)) return true;
  }
  return false;
}

/** A copy of a JSON-like value with every secret masked; the value itself when it holds none. */
export function redactValue<T>(v: T, secrets: Secrets): T {
  if (secrets.length === 0 || !containsSecret(v, secrets)) return v;
  return copy(v, secrets, 0) as T;
}

function copy(v: unknown, secrets: Secrets, depth: number): unknown {
  if (typeof v === 'string') return redactString(v, secrets);
  if (typeof v !== 'object' || v === null || depth > 32) return v;
  if (v instanceof Error) return redactError(v, secrets);
  if (Array.isArray(v)) return v.map((x) => copy(x, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x, secrets, depth + 1);
  return out;
}

/**
 * Masks every secret in an error, in place: its message, stack, own properties (enumerable or not) and
 * cause chain. Returns the same error.
 */
export function redactError<E>(e: E, secrets: Secrets, depth = 0): E {
  if (secrets.length === 0 || typeof e !== 'object' || e === null || depth > 8) return e;
  for (const k of Object.getOwnPropertyNames(e)) {
    const d = Object.getOwnPropertyDescriptor(e, k);
    if (!d || !('value' in d)) continue;
    const v: unknown = d.value;
    const next = v instanceof Error ? redactError(v, secrets, depth + 1) : redactValue(v, secrets);
    if (next !== v) Object.defineProperty(e, k, { ...d, value: next, writable: d.writable });
  }
  return e;
}
