// The `openai-rx` commands: demo, replay, serve. Every failure is a CLIError (one line) or an unexpected Error.
import { runDemo } from './demo.js';
import { CLIError, parse } from './args.js';
import { runReplay } from './replay.js';
import { runServe } from './serve.js';
import { outFor } from './style.js';

export const USAGE = `usage: openai-rx <command> [options]

  demo                      run real pipelines against the embedded loopback servers (offline)
    --live                  against the OpenAI API instead (needs OPENAI_API_KEY;
                            OPENAI_BASE_URL picks another compatible provider)
    --model NAME            model for --live (default gpt-5.4-nano)
  replay FILE|-             decode a captured stream (SSE body as saved by curl -N, or JSON lines)
    --to chat|responses     print it re-encoded as Chat Completions / Responses SSE
    --json                  print a JSON summary for scripts
  serve                     a fake OpenAI-compatible provider on loopback (until Ctrl-C)
    --port N  --host H      where to listen (default 127.0.0.1:4010)
    [FILE|DIR ...]          transcripts to serve (.sse; default: the embedded ones); the name is the model
    --drop-after N          cut every stream after N events
    --chunk-size BYTES      bytes per write (default: one event per write)
    --delay MS              milliseconds between writes
    --status CODE[,CODE..]  answer the first requests with these HTTP errors, then normally
    --ws                    also serve WebSocket mode, on the same port ({baseURL}/responses)
`;

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
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case 'demo': {
      const a = parse(rest, { live: 'boolean', model: 'string', delay: 'string' }, 0);
      const apiKey = io.env['OPENAI_API_KEY'];
      if (a.flags.live && !apiKey) throw new CLIError('--live needs OPENAI_API_KEY in the environment (without --live the demo runs offline)');
      if (a.flags.model !== undefined && !a.flags.live) throw new CLIError('--model applies to --live only');
      await runDemo({
        out: outFor(io.stdout, io.env),
        live: a.flags.live === true,
        ...(apiKey ? { apiKey } : {}),
        ...(a.flags.live && io.env['OPENAI_BASE_URL'] ? { baseURL: io.env['OPENAI_BASE_URL'] } : {}),
        ...(typeof a.flags.model === 'string' ? { model: a.flags.model } : {}),
        ...(typeof a.flags.delay === 'string' ? { chunkDelay: a.int('delay') } : {}),
      });
      return 0;
    }
    case 'replay':
      return runReplay(rest, io);
    case 'serve':
      return runServe(rest, io);
    default:
      throw new CLIError(`unknown command ${JSON.stringify(command)} (commands: demo, replay, serve; try --help)`);
  }
}

