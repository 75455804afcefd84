// Hand-written argument parsing on node:util parseArgs, with one-line errors.
import { parseArgs } from 'node:util';

/**
 * An error meant for the user: printed as one line. `exitCode` 2 for usage errors (an unknown command or
 * option, a bad value), 1 when the work itself failed (a file that cannot be read, a broken capture).
 */
export class CLIError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** A usage error: exit code 2. */
export const usage = (message: string): CLIError => new CLIError(message, 2);

export type FlagKinds = Readonly<Record<string, 'boolean' | 'string'>>;

export interface IntRange {
  readonly min?: number;
  readonly max?: number;
  /** What the number is, for the message (e.g. "bytes per write"). */
  readonly what?: string;
}

export interface Parsed {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** The flag as an integer in range (default: 0 or more), or a usage error naming it and the range. */
  int(name: string, range?: IntRange): number;
}

function rangeText(min: number, max: number): string {
  if (max === Number.MAX_SAFE_INTEGER) return min === 0 ? 'a whole number (0 or more)' : `a whole number, at least ${min}`;
  return `a whole number from ${min} to ${max}`;
}

export function parse(argv: readonly string[], kinds: FlagKinds, maxPositionals: number): Parsed {
  // `--port -1`: parseArgs calls the value ambiguous; join it so the range check below can say what is wrong.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (a.startsWith('--') && !a.includes('=') && kinds[a.slice(2)] === 'string' && next !== undefined && /^-\d/.test(next)) {
      args.push(`${a}=${next}`);
      i++;
    } else args.push(a);
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: Object.fromEntries(Object.entries(kinds).map(([k, type]) => [k, { type }])),
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (e) {
    // parseArgs messages are long and mention "strict mode"; keep the first sentence.
    const m = e instanceof Error ? e.message.split(/\.\s/)[0]!.replace(/\. To specify.*$/, '') : String(e);
    throw usage(m);
  }
  if (positionals.length > maxPositionals) throw usage(`unexpected argument ${JSON.stringify(positionals[maxPositionals])}`);
  return {
    flags: values,
    positionals,
    int(name, range = {}) {
      const min = range.min ?? 0;
      const max = range.max ?? Number.MAX_SAFE_INTEGER;
      const v = values[name];
      const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        throw usage(`--${name} needs ${rangeText(min, max)}${range.what ? ` (${range.what})` : ''}, got ${JSON.stringify(v ?? '')}`);
      }
      return n;
    },
  };
}
