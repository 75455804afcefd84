// The `openai-rx` commands: demo, replay, serve, gateway. Every failure is a CLIError (one line) or an unexpected Error.
import { runDemo } from './demo.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CLIError, parse, usage } from './args.js';
import { runReplay } from './replay.js';
import { runServe } from './serve.js';
import { runGateway } from './gateway.js';
import { outFor } from './style.js';

export const USAGE = `usage: openai-rx <command> [options]

  demo                      run real pipelines against the embedded loopback servers (offline)
    --live                  against the OpenAI API instead (needs OPENAI_API_KEY;
                            OPENAI_BASE_URL picks another compatible provider)
    --model NAME            model for --live (default gpt-5.4-nano)
  replay FILE|-             show a captured stream: SSE as saved by curl -N, or JSON lines of
                            Responses events or Chat Completions chunks (no [DONE] needed); every
                            response in it, its text, tool calls, events, and how it ended
    --to chat|responses     print it re-encoded as Chat Completions / Responses SSE
    --json                  print a JSON summary for scripts
  serve [FILE|DIR ...]      a fake OpenAI-compatible provider on loopback (until Ctrl-C); the
                            transcripts (.sse, .jsonl; default: the embedded ones) are named after
                            their files, and a request picks one with "model": NAME
    --port N  --host H      where to listen (default 127.0.0.1:4010; --port 0 picks a free port)
    --drop-after N          cut the first stream of each response after N events (resumes are not cut)
    --chunk-size BYTES      bytes per write, 1 or more (default: one event per write; HTTP only)
    --delay MS              milliseconds between writes (WebSocket: between frames)
    --status CODE[,CODE..]  answer the first requests with these HTTP errors, then normally
    --ws                    also serve WebSocket mode, on the same port ({baseURL}/responses)
  gateway                   an OpenAI-compatible gateway (Responses and Chat Completions) whose
                            streams are recorded and resumable from any instance (until Ctrl-C)
    --port N  --host H      where to listen (default 127.0.0.1:8080; --port 0 picks a free port)
    --upstream URL          the provider's base URL with its /v1 (default OPENAI_BASE_URL, else
                            https://api.openai.com/v1); clients' Authorization is forwarded
    --redis URL             record streams in Redis (redis://…), shared by every instance
                            (default: in memory, this process only)
    --background            run upstream responses in the background, so that another instance
                            can continue a stream after this one died
    --lease-ms N            how soon another instance may take a dead one's stream over (default 10000)
    --fake                  serve the built-in fake provider as the upstream (offline, no key)
    --fake-delay MS         milliseconds between the fake provider's events (default 20)
  --version                 print the version
  --help                    print this help

exit status:
  0  done; for replay also a capture whose response failed or ended with an error event (shown,
     and in --json as "error"); a closed pipe (| head) also ends with 0
  1  the work failed: a file that cannot be read, or a broken capture (malformed or invalid
     line, cut in the middle of a line, or ending before its response finished)
  2  usage: an unknown command or option, a missing or invalid value (--port -1, --chunk-size 0),
     or --live without OPENAI_API_KEY
`;

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
  // `openai-rx replay --help` and the like: the help, not an unknown option.
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (command !== undefined && !command.startsWith('-') && options.some((r) => r === '--help' || r === '-h')) {
    io.stdout.write(USAGE);
    return EXIT_CODES.ok;
  }
  switch (command) {
    case undefined:
      io.stderr.write(USAGE);
      return EXIT_CODES.usage;
    case 'help':
    case '--help':
    case '-h':
      io.stdout.write(USAGE);
      return EXIT_CODES.ok;
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
        ...(typeof a.flags.delay === 'string' ? { chunkDelay: a.int('delay', { max: 60_000, what: 'milliseconds between writes' }) } : {}),
      });
      return 0;
    }
    case 'replay':
      return runReplay(rest, io);
    case 'serve':
      return runServe(rest, io);
    case 'gateway':
      return runGateway(rest, io);
    default:
      throw usage(
        command.startsWith('-')
          ? `unknown option ${JSON.stringify(command)} before a command (try --help)`
          : `unknown command ${JSON.stringify(command)} (commands: demo, replay, serve, gateway; try --help)`,
      );
  }
}

