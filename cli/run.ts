// The `openai-rx` commands: demo, replay, serve, gateway, streams. Every failure is a CLIError (one line) or an unexpected Error.
import { runDemo } from './demo.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CLIError, parse, usage } from './args.js';
import { COMMAND_HELP, commandUsage, isCommand, USAGE } from './help.js';
import { runReplay } from './replay.js';
import { runServe } from './serve.js';
import { runGateway } from './gateway.js';
import { runStreams } from './streams.js';
import { outFor } from './style.js';

export { USAGE } from './help.js';

/** The exit codes, as the help states them. */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;

/** This package's version: from the package.json above the running script (or the working directory). */
export function packageVersion(): string {
  const starts = [process.argv[1] ? dirname(resolve(process.argv[1])) : undefined, process.cwd()];
  for (const start of starts) {
    for (let dir = start; dir !== undefined; ) {
      const file = join(dir, 'package.json');
      if (existsSync(file)) {
        try {
          const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
          if (pkg.name === 'openai-rx' && typeof pkg.version === 'string') return pkg.version;
        } catch {
          // not ours, or unreadable: keep looking
        }
      }
      const up = dirname(dir);
      dir = up === dir ? undefined : up;
    }
  }
  return 'unknown';
}

export interface IO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: NodeJS.ProcessEnv;
  /** Resolves when the user asks to stop (`serve`). Default: SIGINT or SIGTERM. */
  readonly interrupted?: Promise<void>;
}

export async function run(argv: readonly string[], io: IO): Promise<number> {
  const [command, ...rest] = argv;
  // `openai-rx replay --help` and the like: that command's help, not an unknown option.
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (command !== undefined && isCommand(command) && options.some((r) => r === '--help' || r === '-h')) {
    io.stdout.write(commandUsage(command));
    return EXIT_CODES.ok;
  }
  switch (command) {
    case undefined:
      io.stderr.write(USAGE);
      return EXIT_CODES.usage;
    case 'help':
    case '--help':
    case '-h': {
      // `openai-rx help serve`: that command's help.
      const topic = rest[0];
      if (topic !== undefined && !isCommand(topic)) throw usage(`no help for ${JSON.stringify(topic)} (commands: ${Object.keys(COMMAND_HELP).join(', ')})`);
      io.stdout.write(topic === undefined ? USAGE : commandUsage(topic));
      return EXIT_CODES.ok;
    }
    case '--version':
    case '-v':
    case 'version':
      io.stdout.write(`openai-rx ${packageVersion()}\n`);
      return EXIT_CODES.ok;
    case 'demo': {
      const a = parse(rest, { live: 'boolean', model: 'string', delay: 'string' }, 0);
      const apiKey = io.env['OPENAI_API_KEY'];
      if (a.flags.live && !apiKey) throw new CLIError('--live needs OPENAI_API_KEY in the environment (without --live the demo runs offline)', EXIT_CODES.usage);
      if (a.flags.model !== undefined && !a.flags.live) throw usage('--model applies to --live only');
      await runDemo({
        out: outFor(io.stdout, io.env),
        live: a.flags.live === true,
        ...(apiKey ? { apiKey } : {}),
        ...(a.flags.live && io.env['OPENAI_BASE_URL'] ? { baseURL: io.env['OPENAI_BASE_URL'] } : {}),
        ...(typeof a.flags.model === 'string' ? { model: a.flags.model } : {}),
        ...(typeof a.flags.delay === 'string' ? { chunkDelayMs: a.int('delay', { max: 60_000, what: 'milliseconds between writes' }) } : {}),
      });
      return 0;
    }
    case 'replay':
      return runReplay(rest, io);
    case 'serve':
      return runServe(rest, io);
    case 'gateway':
      return runGateway(rest, io);
    case 'streams':
      return runStreams(rest, io);
    default:
      throw usage(
        command.startsWith('-')
          ? `unknown option ${JSON.stringify(command)} before a command (try --help)`
          : `unknown command ${JSON.stringify(command)} (commands: demo, replay, serve, gateway, streams; try --help)`,
      );
  }
}

