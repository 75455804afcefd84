#!/usr/bin/env node
import { runDemo } from './demo.js';

async function main(argv: string[]): Promise<number> {
  const [command = 'demo'] = argv;
  switch (command) {
    case 'demo':
      await runDemo({ out: process.stdout, chunkDelay: 15 });
      return 0;
    default:
      process.stderr.write(`openai-rx: unknown command ${JSON.stringify(command)} (try: demo)\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`openai-rx: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
