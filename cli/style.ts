// Terminal output: colour and in-place progress on a TTY, plain text on a pipe (or with NO_COLOR).

export interface Out {
  readonly stream: NodeJS.WritableStream;
  /** Colour and `\r` progress lines. */
  readonly tty: boolean;
}

export function outFor(stream: NodeJS.WritableStream & { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Out {
  return { stream, tty: stream.isTTY === true && !env['NO_COLOR'] && env['TERM'] !== 'dumb' };
}

const codes = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39] } as const;
export type Colour = keyof typeof codes;

export function paint(out: Out, colour: Colour, text: string): string {
  if (!out.tty) return text;
  const [on, off] = codes[colour];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** A progress line rewritten in place on a TTY; nothing on a pipe. */
export function progress(out: Out, text: string): void {
  if (out.tty) out.stream.write(`\r\u001b[2K${text}`);
}

export function clearProgress(out: Out): void {
  if (out.tty) out.stream.write('\r\u001b[2K');
}

/** A plain text table: columns padded to their widest cell, numbers right-aligned. */
export function table(rows: ReadonlyArray<readonly string[]>, header: readonly string[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((cell, i) => (/^[\d.,]+( ms)?$/.test(cell) && i > 0 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}
