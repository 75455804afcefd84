#!/usr/bin/env node
// The `openai-rx` program. Every failure is one line on stderr and a non-zero exit code.
import { CLIError } from './args.js';
import { run } from './run.js';

run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`openai-rx: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = e instanceof CLIError ? e.exitCode : 1;
  },
);
