#!/usr/bin/env node
// The `openai-rx` program. Every failure is one line on stderr and a non-zero exit code (see EXIT_CODES in run.ts).
import { CLIError } from './args.js';
import { run } from './run.js';

// A reader that went away (`openai-rx replay x.sse | head`) is not an error: stop quietly, with status 0.
const closedPipe = (e: NodeJS.ErrnoException): void => {
  if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') process.exit(0);
  process.exitCode = 1;
};
process.stdout.on('error', closedPipe);
process.stderr.on('error', closedPipe);

run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`openai-rx: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = e instanceof CLIError ? e.exitCode : 1;
  },
);
