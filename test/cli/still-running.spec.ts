// explainIfStillRunning (cli/interrupted.ts), in processes of their own (the built module: `npm run build` first):
// one that something keeps running past the bound says on stderr what Node has open; one that ends says nothing
// (the timer keeps nothing alive); a caller that stops the command itself (`io.interrupted`) arms nothing.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const MODULE = join(__dirname, '..', '..', 'dist', 'cjs', 'cli', 'interrupted.js');
jest.setTimeout(60_000);

function run(o: { held: boolean; interrupted?: boolean }): Promise<{ code: number; stderr: string }> {
  const io = `{ stderr: process.stderr${o.interrupted ? ', interrupted: new Promise(() => {})' : ''} }`;
  const script = `require(${JSON.stringify(MODULE)}).explainIfStillRunning(${io}, 200);${o.held ? ' setTimeout(() => {}, 1500);' : ''}`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { timeout: 30_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

test('a process still running after the bound names what is open (a timer here)', async () => {
  const r = await run({ held: true });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/^still running 200 ms after stopping; open: .*Timeout/);
});

test('a process that ends in time says nothing, and is not kept by the check', async () => {
  expect(await run({ held: false })).toEqual({ code: 0, stderr: '' });
});

test('with io.interrupted (the caller stops the command) nothing is armed', async () => {
  expect(await run({ held: true, interrupted: true })).toEqual({ code: 0, stderr: '' });
});
