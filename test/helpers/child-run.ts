// A program the tests run as a child process, its output gathered as it comes, and every child still running
// killed when the spec file ends (a failed test must not leave a server holding its port or the run open).
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

export interface ChildRun {
  readonly child: ChildProcess;
  /** What it printed so far on stdout. */
  out(): string;
  /** What it printed so far on stderr. */
  err(): string;
  /** Its exit status (`null` when a signal ended it). */
  readonly exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const c of running) c.kill('SIGKILL');
});

/** `node <args>` with stdin closed and stdout/stderr gathered. */
export function runNode(args: readonly string[], options: Omit<SpawnOptions, 'stdio'> = {}): ChildRun {
  const child = spawn(process.execPath, [...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, out: () => out, err: () => err, exited };
}

/** Polls `run`'s stdout until `pattern` matches (its first group, or the whole match); fails if the child exits first. */
export async function printed(run: ChildRun, pattern: RegExp, ready: (out: string) => boolean = () => true): Promise<string> {
  for (;;) {
    const m = pattern.exec(run.out());
    if (m && ready(run.out())) return m[1] ?? m[0];
    if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`exited early (${run.child.exitCode ?? run.child.signalCode}): ${run.err()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
