// `openai-rx replay FILE|-`: decode a captured stream and show what it holds, response by response.
import { from, lastValueFrom, toArray } from 'rxjs';
import { toChatSSE, toResponsesSSE } from '../index.js';
import { parse, usage } from './args.js';
import { parseCapture, readCapture } from './capture.js';
import { decodeSegment, type Decoded } from './capture-decode.js';
import { toChatKeepingCustomTools } from './chat.js';
import { render, summarise, type ReplaySummary, type ResponseSummary } from './replay-summary.js';
import { outFor, paint } from './style.js';

export { parseCapture, readCapture, type Capture, type CaptureMessage, type CaptureSegment } from './capture.js';
export { decodeSegment, type Decoded, type Ending } from './capture-decode.js';
export { describeCall, summarise, type ReplaySummary, type ResponseSummary, type ToolCallSummary } from './replay-summary.js';

type ReplayIO = { stdout: NodeJS.WritableStream & { isTTY?: boolean }; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv };

export async function runReplay(argv: readonly string[], io: ReplayIO): Promise<number> {
  const a = parse(argv, { to: 'string', json: 'boolean' }, 1);
  const file = a.positionals[0];
  if (file === undefined) throw usage('replay needs a FILE (or - for standard input)');
  const to = a.flags.to;
  if (to !== undefined && to !== 'chat' && to !== 'responses') throw usage(`--to must be chat or responses, got ${JSON.stringify(to)}`);
  if (to !== undefined && a.flags.json) throw usage('--to and --json cannot be combined');
  const name = file === '-' ? '<stdin>' : file;
  const capture = parseCapture(await readCapture(file, io.stdin), name);
  const decoded: Decoded[] = [];
  for (let i = 0; i < capture.segments.length; i++) decoded.push(await decodeSegment(capture, capture.segments[i]!, name, i === capture.segments.length - 1));
  const brokenAt = decoded.find((d) => d.ending.kind === 'broken')?.ending as { reason: string } | undefined;
  const code = brokenAt ? 1 : 0;

  if (to !== undefined) {
    for (const d of decoded) {
      const events$ = from(d.events);
      const body = await lastValueFrom(
        (to === 'chat' ? events$.pipe(toChatKeepingCustomTools(), toChatSSE({ onError: 'event' })) : events$.pipe(toResponsesSSE({ onError: 'event' }))).pipe(toArray()),
      );
      io.stdout.write(body.join(''));
      if (d.ending.kind === 'failed') io.stderr.write(`openai-rx: ${name}: the response failed: ${d.ending.code ?? '(no code)'}: ${d.ending.message}\n`);
    }
    if (brokenAt) io.stderr.write(`openai-rx: ${brokenAt.reason.startsWith(name) ? '' : `${name}: `}${brokenAt.reason}\n`);
    return code;
  }

  const responses: ResponseSummary[] = [];
  for (let i = 0; i < decoded.length; i++) responses.push(await summarise(capture.segments[i]!, decoded[i]!));
  const summary: ReplaySummary = {
    kind: capture.kind,
    format: capture.format,
    events: responses.reduce((n, r) => n + r.events, 0),
    responses,
    broken: brokenAt?.reason ?? null,
  };
  if (a.flags.json) {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return code;
  }
  const out = outFor(io.stdout, io.env);
  const w = (t: string) => io.stdout.write(t);
  const status = (r: ResponseSummary) =>
    `${r.responseId ? `response ${r.responseId}` : 'no response id'}${r.status ? `, ${paint(out, r.status === 'completed' ? 'green' : r.status === 'failed' ? 'red' : 'yellow', r.status)}` : ''}`;
  const what = `${capture.kind === 'chat' ? 'Chat Completions' : 'Responses'} ${capture.format === 'jsonl' ? 'JSON lines' : 'SSE'}`;
  if (responses.length === 1) {
    w(`${paint(out, 'bold', name)}: ${what}, ${summary.events} events, ${status(responses[0]!)}\n`);
    render(out, w, responses[0]!);
  } else {
    w(`${paint(out, 'bold', name)}: ${what}, ${responses.length} responses, ${summary.events} events\n`);
    responses.forEach((r, i) => {
      w(`\n${paint(out, 'bold', `── Response ${i + 1} of ${responses.length}`)}: ${status(r)}, ${r.events} events ${paint(out, 'dim', `(lines ${r.lines[0]}–${r.lines[1]})`)}\n`);
      render(out, w, r);
    });
  }
  if (brokenAt) io.stderr.write(`openai-rx: ${brokenAt.reason.startsWith(name) ? '' : `${name}: `}${brokenAt.reason}\n`);
  return code;
}
