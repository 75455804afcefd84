// Hand-written argument parsing on node:util parseArgs, with one-line errors.
import { parseArgs } from 'node:util';

/** An error meant for the user: printed as one line, exit code 2 for usage, 1 otherwise. */
export class CLIError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

export type FlagKinds = Readonly<Record<string, 'boolean' | 'string'>>;

export interface Parsed {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** The flag as a non-negative integer, or a CLIError naming it. */
  int(name: string): number;
}

export function parse(argv: readonly string[], kinds: FlagKinds, maxPositionals: number): Parsed {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.entries(kinds).map(([k, type]) => [k, { type }])),
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (e) {
    // parseArgs messages are long and mention "strict mode"; keep the first sentence.
    const m = e instanceof Error ? e.message.split(/\.\s/)[0]!.replace(/\. To specify.*$/, '') : String(e);
    throw new CLIError(m, 2);
  }
  if (positionals.length > maxPositionals) throw new CLIError(`unexpected argument ${JSON.stringify(positionals[maxPositionals])}`, 2);
  return {
    flags: values,
    positionals,
    int(name) {
      const v = values[name];
      if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new CLIError(`--${name} needs a non-negative integer, got ${JSON.stringify(v ?? '')}`, 2);
      return Number(v);
    },
  };
}
