// Shared by the package tests: the repo root, a built dist/ (built once when missing), and `npm pack` run
// locally (no network, no lifecycle scripts: dist/ is built here first).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(__dirname, '..', '..');
export const run = promisify(execFile);

/** npm itself: the one running the tests when there is one (npm test), else the one on PATH. */
export function npm(args: string[], cwd = ROOT): Promise<{ stdout: string; stderr: string }> {
  const execPath = process.env['npm_execpath'];
  return execPath && /npm-cli\.js$/.test(execPath)
    ? run(process.execPath, [execPath, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 })
    : run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * Builds dist/ when it is missing or older than its sources (`--if-stale`: a dist/ built before an entry changed
 * would test the old package). scripts/build.mjs replaces it in one step, so a concurrent reader never sees half of it.
 */
export async function ensureBuilt(): Promise<void> {
  await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
}

export interface PackedFile {
  readonly path: string;
  readonly size: number;
}

export interface PackResult {
  readonly filename: string;
  readonly files: readonly PackedFile[];
  readonly entryCount: number;
  readonly unpackedSize: number;
}

/** `npm pack --json` of the repo root, without scripts (`--dry-run` lists only; else the tarball goes to `destination`). */
export async function pack(options: { dryRun: true } | { destination: string }): Promise<PackResult> {
  const args = ['pack', '--json', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'];
  if ('dryRun' in options) args.push('--dry-run');
  else args.push('--pack-destination', options.destination);
  const { stdout } = await npm(args);
  const [result] = JSON.parse(stdout) as PackResult[];
  if (!result) throw new Error(`npm pack printed no result: ${stdout}`);
  return result;
}

/** The ancestors of `dir` (itself excluded) that hold a node_modules. */
export function helpedBy(dir: string): string[] {
  const found: string[] = [];
  for (let d = dirname(dir); ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) found.push(join(d, 'node_modules'));
    if (d === parse(d).root) return found;
  }
}

/**
 * A new folder under the first of the temporary directories whose ancestors hold no node_modules: TypeScript
 * (node_modules/@types) and Node look in every ancestor, and a consumer project must be checked alone.
 */
export function cleanWorkDir(prefix: string): string {
  const bases = [tmpdir(), '/var/tmp', '/tmp'];
  for (const base of bases) {
    if (!existsSync(base) || existsSync(join(base, 'node_modules')) || helpedBy(base).length > 0) continue;
    return mkdtempSync(join(base, prefix));
  }
  throw new Error(`every temporary directory (${bases.join(', ')}) has a node_modules in it or above it: the consumer projects would not be checked alone`);
}

/**
 * Installs the package into `modules` (a consumer's node_modules) from its tarball (a copy, not a link: a
 * linked package would find its dependencies from where the link points), and links `names` from this repo.
 */
export async function installPacked(tarball: string, modules: string, names: readonly string[]): Promise<void> {
  mkdirSync(join(modules, 'openai-rx'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'openai-rx'), '--strip-components=1']);
  for (const name of names) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
}
