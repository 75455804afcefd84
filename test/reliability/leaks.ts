// Leak checks that survive truncation: a cut copy of a key is still a leak, so every string view of a value
// (what a logger, an error reporter or a debugger could print) is searched for any run of the key's characters.
import { inspect } from 'node:util';
import { lastValueFrom, tap, type Observable } from 'rxjs';

/** Every string view of a value, deep: String(), JSON, util.inspect with hidden properties, own properties, causes. */
export function views(e: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 6 || v === null || v === undefined || seen.has(v)) return;
    if (typeof v === 'string') return void out.push(v);
    if (typeof v !== 'object' && typeof v !== 'function') return void out.push(String(v));
    seen.add(v);
    try {
      out.push(String(v));
    } catch {
      /* objects without toString */
    }
    try {
      out.push(JSON.stringify(v) ?? '');
    } catch {
      /* cycles */
    }
    out.push(inspect(v, { depth: 10, showHidden: true, getters: true }));
    for (const k of Object.getOwnPropertyNames(v)) {
      let x: unknown;
      try {
        x = (v as Record<string, unknown>)[k];
      } catch {
        continue;
      }
      visit(x, depth + 1);
    }
    if (v instanceof Error) visit((v as { cause?: unknown }).cause, depth + 1);
  };
  visit(e, 0);
  return out;
}

/** The first run of `run` or more of the secret's characters found in the text, if any. */
export function fragmentIn(text: string, secret: string, run = 8): string | undefined {
  for (let i = 0; i + run <= secret.length; i++) {
    const piece = secret.slice(i, i + run);
    if (text.includes(piece)) return piece;
  }
  return undefined;
}

/** Throws when any view of the value holds a run of 8 of the secret's characters. */
export function expectNoFragment(what: string, value: unknown, secret: string, run = 8): void {
  for (const s of views(value)) {
    const piece = fragmentIn(s, secret, run);
    if (piece !== undefined) throw new Error(`${what}: ${JSON.stringify(piece)} of the secret leaked in ${JSON.stringify(s.slice(0, 300))}`);
  }
}

/** The values an Observable emitted and the error it ended with (throws when it completes). */
export async function valuesAndError<T>(o: Observable<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  try {
    await lastValueFrom(o.pipe(tap((v) => values.push(v))), { defaultValue: undefined });
  } catch (error) {
    return { values, error };
  }
  throw new Error(`expected an error, got completion after ${values.length} values`);
}

/** The error an Observable ended with (throws when it completes). */
export async function errorOf(o: Observable<unknown>): Promise<unknown> {
  return (await valuesAndError(o)).error;
}
