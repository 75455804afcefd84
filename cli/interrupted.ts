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
