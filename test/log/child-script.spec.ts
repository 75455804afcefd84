// The takeover specs judge a script run in a process of its own (runChildScript) by its last stdout line (`done`
// or `error …`). A woken-up reader prints its buffered events in one burst and exits: that burst fills the pipe
// when the test is slow to read it (a loaded machine), and process.exit dropped what the pipe had not taken, so
// paused-writer's taker once "ended" at `ev 328` with exit code 0, its `error EventLogError` line lost.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { startChild } from './takeover-helpers';

jest.setTimeout(60_000);

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

test('a script run by runChildScript exits only once the test can read all it printed, even a burst the test does not read at once', async () => {
  const N = 5000; // far more small writes than a pipe holds (a few hundred)
  const p = startChild(children, 'child-burst.ts', [String(N)]);
  // The test not reading meanwhile, as a busy one: its end of the pipe fills while the script writes its burst.
  p.child.stdout!.pause();
  const exited = once(p.child, 'exit');
  const written = new Promise<void>((resolve) => p.child.stderr!.on('data', () => p.stderr().includes('written') && resolve()));
  // Resumed once the script exited, or had time to (a script that waits for its output is still running then).
  await Promise.race([exited, written.then(() => new Promise((r) => setTimeout(r, 1000)))]);
  p.child.stdout!.resume();
  expect(await p.exited).toEqual({ code: 0, signal: null });
  expect(p.lines.at(-1)).toBe('done');
  expect(p.lines).toHaveLength(N + 1);
});

test('a script whose work neither settles nor has anything left to wait for says so (`unsettled`, exit code 1) instead of ending quietly after its last line', async () => {
  const p = startChild(children, 'child-burst.ts', ['3', 'hang']);
  expect(await p.exited).toEqual({ code: 1, signal: null });
  expect(p.lines).toEqual(['ev 0', 'ev 1', 'ev 2', 'unsettled']);
});
