// The built program (dist/cjs/cli/main.js, `npm run build` first), spawned as a user runs it (issue 14):
// --version, exit statuses (2 for usage errors), validated numbers, and a closed pipe (`| head`) ending
// quietly with status 0 for every command. No test depends on speed: bounds are generous and explicit.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'cjs', 'cli', 'main.js');
const FIXTURES = join(__dirname, '..', 'fixtures');
const env = { PATH: process.env['PATH'] ?? '' };
// Spawning node a dozen times on two busy cores can take a while: a generous bound per test.
jest.setTimeout(120_000);
const STACK = /\n\s+at |Error:|EPIPE/;

const exec = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/**
 * Runs the program with its stdout on a pipe whose reading end is destroyed once `closeWhen` says so
 * (default: at once, before the program has written anything), as `| head` does. `then` runs after that.
 */
function closedPipe(args: string[], options: { closeWhen?: (seen: string) => boolean; then?: (seen: string) => Promise<void> | void } = {}) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let seen = '';
    let closed = false;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const close = () => {
      if (closed) return;
      closed = true;
      child.stdout.destroy();
      Promise.resolve(options.then?.(seen)).catch(reject);
    };
    if (!options.closeWhen) close();
    else {
      child.stdout.on('data', (c: Buffer) => {
        seen += c.toString('utf8');
        if (options.closeWhen!(seen)) close();
      });
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

describe('the built binary', () => {
  test('--version prints the package version', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(await exec(['--version'])).toEqual({ code: 0, stdout: `openai-rx ${version}\n`, stderr: '' });
  });

  test('exit statuses: 0 done (a failed response included), 1 broken capture or unreadable file, 2 usage', async () => {
    expect((await exec(['--help'])).code).toBe(0);
    const help = await exec(['replay', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: openai-rx[\s\S]*exit status:\n  0  done/);
    expect((await exec(['replay', join(FIXTURES, 'failed.sse')])).code).toBe(0);
    expect((await exec(['replay', join(FIXTURES, 'error.sse'), '--json'])).code).toBe(0);
    expect(await exec(['replay', '/nonexistent/capture.sse'])).toEqual({ code: 1, stdout: '', stderr: 'openai-rx: /nonexistent/capture.sse: no such file\n' });
    const usage: Array<[string[], RegExp]> = [
      [[], /^usage: openai-rx/],
      [['frobnicate'], /^openai-rx: unknown command "frobnicate" \(commands: demo, replay, serve, gateway, streams; try --help\)\n$/],
      [['--frobnicate'], /^openai-rx: unknown option "--frobnicate" before a command \(try --help\)\n$/],
      [['replay', '--frobnicate', 'x.sse'], /^openai-rx: Unknown option '--frobnicate'\n$/],
      [['replay'], /^openai-rx: replay needs a FILE \(or - for standard input\)\n$/],
      [['replay', 'x.sse', '--to', 'xml'], /^openai-rx: --to must be chat or responses, got "xml"\n$/],
      [['serve', '--port', '-1'], /^openai-rx: --port needs a whole number from 0 to 65535 \(0 picks a free port\), got "-1"\n$/],
      [['serve', '--port', '70000'], /^openai-rx: --port needs a whole number from 0 to 65535 \(0 picks a free port\), got "70000"\n$/],
      [['serve', '--chunk-size', '0'], /^openai-rx: --chunk-size needs a whole number, at least 1 \(bytes per write\), got "0"\n$/],
      [['serve', '--drop-after', '-3'], /^openai-rx: --drop-after needs a whole number \(0 or more\) \(events before the cut\), got "-3"\n$/],
      [['serve', '--delay', '1.5'], /^openai-rx: --delay needs a whole number from 0 to 60000 \(milliseconds between writes\), got "1.5"\n$/],
      [['serve', '--status', '200'], /^openai-rx: --status takes HTTP error codes \(400-599\), got "200"\n$/],
      [['demo', '--model', 'x'], /^openai-rx: --model applies to --live only\n$/],
    ];
    for (const [args, stderr] of usage) {
      const r = await exec(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(stderr);
    }
  });

  describe('a closed pipe (| head) ends quietly with status 0', () => {
    const quiet = (r: { code: number | null; signal: NodeJS.Signals | null; stderr: string }) => {
      expect(r.signal).toBeNull();
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(STACK);
    };

    test('replay, replay --json, replay --to chat, --help and --version', async () => {
      for (const args of [
        ['replay', join(FIXTURES, 'long-text.sse')],
        ['replay', '--json', join(FIXTURES, 'long-text.sse')],
        ['replay', '--to', 'chat', join(FIXTURES, 'long-text.sse')],
        ['--help'],
        ['--version'],
      ]) {
        quiet(await closedPipe(args));
      }
    });

    test('replay of a long capture (many responses), after its reader took the first chunk', async () => {
      const many = join(mkdtempSync(join(tmpdir(), 'openai-rx-pipe-')), 'many.sse');
      writeFileSync(many, readFileSync(join(FIXTURES, 'long-text.sse'), 'utf8').repeat(40));
      quiet(await closedPipe(['replay', many], { closeWhen: (seen) => seen.length > 0 }));
      quiet(await closedPipe(['replay', many, '--to', 'chat'], { closeWhen: (seen) => seen.length > 0 }));
    });

    test('demo, after its reader took the first lines', async () => {
      quiet(await closedPipe(['demo'], { closeWhen: (seen) => seen.includes('1. Streaming text') }));
    });

    test('serve, when it logs a request after its reader went away', async () => {
      const r = await closedPipe(['serve', '--port', '0'], {
        closeWhen: (seen) => /at (http:\S+)/.test(seen),
        then: async (seen) => {
          const baseURL = /at (http:\S+)/.exec(seen)![1]!;
          // The log line for this request is written to the closed pipe: serve stops, with status 0.
          for (let i = 0; i < 20; i++) {
            const ok = await fetch(`${baseURL}/responses`, { method: 'POST', body: JSON.stringify({ model: 'demo-text', stream: true }) })
              .then((res) => res.text())
              .then(() => true, () => false);
            if (!ok) break;
            await new Promise((res) => setTimeout(res, 100));
          }
        },
      });
      quiet(r);
    });
  });
});
