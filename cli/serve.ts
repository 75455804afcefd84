// `openai-rx serve`: the loopback server as a standalone fake provider, until Ctrl-C.
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { startTestServer, type Fault, type RecordedRequest } from '../testing/index.js';
import { CLIError, parse, usage } from './args.js';
import { untilInterrupted } from './interrupted.js';
import type { IO } from './run.js';
import { parseCapture, readCapture } from './replay.js';
import { formatBytes, outFor, paint } from './style.js';
import { embeddedTranscripts } from './transcripts.js';

/** What `serve` reads and writes: the CLI's own IO. */
export type ServeIO = IO;

/**
 * Transcripts from files and folders (`.sse`, `.jsonl`, `.txt`), named after the file without its extension. Each
 * is checked like a replay; one that cannot be read or is malformed is left out, `warn` told what was wrong
 * (as `replay` says it), so that one bad file in a folder does not keep the others from being served. A path
 * that does not exist is an error; so is a set of paths that leaves nothing to serve.
 */
export async function loadTranscripts(paths: readonly string[], warn: (message: string) => void = () => undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const files: string[] = [];
  const skipped: string[] = [];
  for (const p of paths) {
    let s;
    try {
      s = await stat(p);
    } catch {
      throw new CLIError(`${p}: no such file or folder`);
    }
    if (s.isDirectory()) {
      const found = (await readdir(p)).filter((f) => /\.(sse|jsonl|txt)$/.test(f)).sort();
      if (found.length === 0) skipped.push(`${p}: no .sse, .jsonl or .txt transcripts in this folder`);
      files.push(...found.map((f) => join(p, f)));
    } else files.push(p);
  }
  for (const f of files) {
    let capture;
    try {
      capture = parseCapture(await readCapture(f, process.stdin), f);
    } catch (e) {
      if (!(e instanceof CLIError)) throw e;
      skipped.push(e.message);
      continue;
    }
    if (capture.cutAtLine !== undefined) warn(`${f}:${capture.cutAtLine}: the capture was cut in the middle of this line; serving the events before it`);
    out[basename(f, extname(f))] = capture.sse;
  }
  const served = Object.keys(out).length;
  // Nothing to serve, for one reason: that reason is the error, as before.
  if (served === 0 && skipped.length === 1) throw new CLIError(skipped[0]!);
  for (const reason of skipped) warn(`${reason} (skipped)`);
  if (served === 0) throw new CLIError(`no transcript to serve: ${skipped.length} skipped (see above)`);
  return out;
}

function statuses(v: string | undefined): number[] {
  if (v === undefined) return [];
  return v.split(',').map((s) => {
    const n = Number(s.trim());
    if (!/^\s*\d+\s*$/.test(s) || n < 400 || n > 599) throw usage(`--status takes HTTP error codes (400-599), got ${JSON.stringify(s)}`);
    return n;
  });
}

export async function runServe(argv: readonly string[], io: ServeIO): Promise<number> {
  const a = parse(argv, { port: 'string', host: 'string', 'drop-after': 'string', 'chunk-size': 'string', delay: 'string', status: 'string', ws: 'boolean' }, Infinity);
  const port = a.flags.port === undefined ? 4010 : a.int('port', { max: 65535, what: '0 picks a free port' });
  const host = typeof a.flags.host === 'string' ? a.flags.host : '127.0.0.1';
  const dropAfter = a.flags['drop-after'] === undefined ? undefined : a.int('drop-after', { what: 'events before the cut' });
  const chunkSize = a.flags['chunk-size'] === undefined ? undefined : a.int('chunk-size', { min: 1, what: 'bytes per write' });
  const delay = a.flags.delay === undefined ? undefined : a.int('delay', { max: 60_000, what: 'milliseconds between writes' });
  const queued = statuses(typeof a.flags.status === 'string' ? a.flags.status : undefined);
  const warn = (message: string) => io.stderr.write(`openai-rx: ${message}\n`);
  const transcripts = a.positionals.length > 0 ? await loadTranscripts(a.positionals, warn) : embeddedTranscripts();

  const out = outFor(io.stdout, io.env);
  const log = (t: string) => io.stdout.write(`${t}\n`);
  const faults = (r: RecordedRequest): Fault | undefined => {
    const status = queued.shift();
    if (status !== undefined) return { type: 'status', status };
    // The first stream of each response is cut; the requests that resume it (GET ?stream=true) are answered in full.
    if (dropAfter !== undefined && (r.route === 'responses.create' || r.route === 'chat.create')) return { type: 'drop', afterEvents: dropAfter };
    return undefined;
  };
  let server;
  try {
    server = await startTestServer({
      transcripts,
      host,
      port,
      faults,
      ...(chunkSize !== undefined ? { chunkSize } : {}),
      ...(delay !== undefined ? { chunkDelayMs: delay } : {}),
      ...(a.flags.ws ? { webSocket: {} } : {}),
      onClose: (r) => {
        const model = (r.body as { model?: unknown } | undefined)?.model;
        const colour = r.status === 200 && r.outcome === 'completed' ? 'green' : r.status === 200 ? 'yellow' : 'red';
        const what = r.transport === 'websocket' ? `WS response.create${r.lane !== undefined ? ` stream_id=${r.lane}` : ''}` : `${r.method} ${r.path}`;
        log(
          `${paint(out, 'dim', new Date(r.closedAt ?? Date.now()).toISOString().slice(11, 23))} ${what}${r.query['starting_after'] ? `?starting_after=${r.query['starting_after']}` : ''}` +
            `${typeof model === 'string' ? ` model=${model}` : ''} → ${paint(out, colour, String(r.status ?? '-'))}` +
            `${r.transcript ? ` ${r.transcript}` : ''} ${r.eventsSent} ${r.transport === 'websocket' ? 'frames' : 'events'} ${formatBytes(r.bytesSent)} ${r.outcome ?? ''}` +
            `${r.fault && r.fault.type !== 'ok' ? ` (fault: ${r.fault.type})` : ''} in ${(r.closedAt ?? Date.now()) - r.openedAt} ms`,
        );
      },
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new CLIError(`port ${port} on ${host} is in use (pick another with --port)`);
    if (code === 'EACCES') throw new CLIError(`not allowed to listen on ${host}:${port}`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new CLIError(`cannot listen on host ${host}`);
    throw e;
  }
  const ws = server.webSocket;

  const interrupted = untilInterrupted(io); // before the ready lines: a signal sent on reading them must be handled
  log(`${paint(out, 'bold', 'openai-rx serve')}: a fake OpenAI-compatible API at ${paint(out, 'cyan', server.baseURL)}`);
  if (ws) {
    log(`WebSocket mode at ${paint(out, 'cyan', ws.url)} (the same baseURL): the same transcripts and faults, logged here too`);
    const differs = [
      dropAfter !== undefined ? `--drop-after drops the whole connection (every lane) after ${dropAfter} frames of a response` : '',
      chunkSize !== undefined ? '--chunk-size does not apply (frames are whole events)' : '',
      queued.length ? '--status sends an error event with that status instead of the response' : '',
    ].filter(Boolean);
    if (differs.length) log(`  over WebSocket: ${differs.join('; ')}`);
  }
  log(`transcripts (pick one with "model": NAME or the x-openai-rx-transcript header; chat requests get a Responses one as chat chunks when no chat one is named): ${Object.keys(transcripts).join(', ')}`);
  const faultText = [
    queued.length ? `status ${queued.join(',')} first` : '',
    dropAfter !== undefined ? `drop the first stream of each response after ${dropAfter} events (resumes are not cut)` : '',
    chunkSize !== undefined ? `${chunkSize}-byte chunks` : '',
    delay !== undefined ? `${delay} ms between writes` : '',
  ].filter(Boolean);
  if (faultText.length) log(`faults: ${faultText.join(', ')}`);
  log(paint(out, 'dim', `try: OPENAI_BASE_URL=${server.baseURL} your-app   (Ctrl-C stops)`));

  await interrupted;
  await server.close();
  log('stopped');
  return 0;
}
