import type { IO } from './run.js';

/**
 * The promise a long-running command (`serve`, `gateway`) waits on until the user asks it to stop: `io.interrupted`,
 * or else SIGINT / SIGTERM. Call it before printing that the server is ready: a signal sent as soon as that line
 * is read (a test, a supervisor) must find the handlers installed, not end the process by default.
 */
export function untilInterrupted(io: IO): Promise<void> {
  return (
    io.interrupted ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    })
  );
}

/**
 * After a server stopped on a signal: if the process is still running `ms` later, says on stderr what Node still
 * has open (`process.getActiveResourcesInfo()`), so that a supervisor that has to kill it leaves a clue of what kept
 * it. The timer itself keeps nothing alive. Not armed when the caller stops the command itself (`io.interrupted`).
 */
export function explainIfStillRunning(io: IO, ms = 5000): void {
  if (io.interrupted !== undefined) return;
  setTimeout(() => {
    // (Node 17.3+; the typings this package builds with predate it.)
    const open = (process as { getActiveResourcesInfo?: () => string[] }).getActiveResourcesInfo?.() ?? [];
    io.stderr.write(`still running ${ms} ms after stopping; open: ${open.length > 0 ? open.join(', ') : 'nothing Node lists'}\n`);
  }, ms).unref();
}
