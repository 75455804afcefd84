// What `openai-rx --help` and `openai-rx COMMAND --help` print: each command's usage written once, the
// global help made of them all.

/** A command's synopsis (after `openai-rx`) and its lines of the help: what it does, then its options. */
interface CommandHelp {
  readonly synopsis: string;
  readonly lines: string;
}

export const COMMAND_HELP = {
  demo: {
    synopsis: 'demo [--live [--model NAME] | --delay MS]',
    lines: `  demo                      run real pipelines against the embedded loopback servers (offline)
    --live                  against the OpenAI API instead (needs OPENAI_API_KEY;
                            OPENAI_BASE_URL picks another compatible provider)
    --model NAME            model for --live (default gpt-5.4-nano)
    --delay MS              milliseconds between the loopback servers' writes (offline only)
`,
  },
  replay: {
    synopsis: 'replay FILE|- [--json | --to chat|responses]',
    lines: `  replay FILE|-             show a captured stream: SSE as saved by curl -N, or JSON lines of
                            Responses events or Chat Completions chunks (no [DONE] needed); every
                            response in it, its text, tool calls, events, and how it ended
    --to chat|responses     print it re-encoded as Chat Completions / Responses SSE
    --json                  print a JSON summary for scripts
`,
  },
  serve: {
    synopsis: 'serve [FILE|DIR ...] [options]',
    lines: `  serve [FILE|DIR ...]      a fake OpenAI-compatible provider on loopback (until Ctrl-C); the
                            transcripts (.sse, .jsonl; default: the embedded ones) are named after
                            their files, and a request picks one with "model": NAME (GET /v1/models
                            lists them); a malformed file is skipped with a warning
    --port N  --host H      where to listen (default 127.0.0.1:4010; --port 0 picks a free port)
    --drop-after N          cut the first stream of each response after N events (resumes are not cut)
    --chunk-size BYTES      bytes per write, 1 or more (default: one event per write; HTTP only)
    --delay MS              milliseconds between writes (WebSocket: between frames)
    --status CODE[,CODE..]  answer the first requests with these HTTP errors, then normally
    --ws                    also serve WebSocket mode, on the same port ({baseURL}/responses)
`,
  },
  gateway: {
    synopsis: 'gateway [options]',
    lines: `  gateway                   an OpenAI-compatible gateway (Responses and Chat Completions) whose
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
    --pass-through LIST     forward these routes too, unchecked ("GET /v1/files,POST /v1/files";
                            default none: routes the gateway does not implement are a 404)
    --access-log            one JSON line per request on stdout (never a key or a body)
`,
  },
  streams: {
    synopsis: 'streams [--port N] [--host H] [--redis URL [--cluster]] [--long-poll-ms N]',
    lines: `  streams                   a Durable Streams server (the open protocol: append-only streams read
                            and resumed by offset, live by long-poll or SSE) under /v1/stream/
                            (until Ctrl-C)
    --port N  --host H      where to listen (default 127.0.0.1:4437; --port 0 picks a free port)
    --redis URL             keep the streams in Redis (redis://…), shared by every instance
                            (default: in memory, this process only)
    --cluster               the --redis URL is one node of a Redis Cluster (the others are found)
    --long-poll-ms N        how long a long-poll waits for data before its 204 (default 30000)
`,
  },
} as const satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMAND_HELP;

export const isCommand = (name: string): name is CommandName => Object.prototype.hasOwnProperty.call(COMMAND_HELP, name);

const EXIT_STATUS = `exit status:
  0  done; for replay also a capture whose response failed or ended with an error event (shown,
     and in --json as "error"); a closed pipe (| head) also ends with 0
  1  the work failed: a file that cannot be read, or a broken capture (malformed or invalid
     line, cut in the middle of a line, or ending before its response finished)
  2  usage: an unknown command or option, a missing or invalid value (--port -1, --chunk-size 0),
     or --live without OPENAI_API_KEY
`;

export const USAGE = `usage: openai-rx <command> [options]

${Object.values(COMMAND_HELP)
  .map((c) => c.lines)
  .join('')}  --version                 print the version
  --help                    print this help
  <command> --help          print that command's help

${EXIT_STATUS}`;

/** `openai-rx COMMAND --help`: that command's usage and options, and what its exit status means. */
export function commandUsage(name: CommandName): string {
  const c = COMMAND_HELP[name];
  return `usage: openai-rx ${c.synopsis}

${c.lines}    -h, --help              print this help

${EXIT_STATUS}`;
}
