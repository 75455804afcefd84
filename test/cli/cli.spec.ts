import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { lastValueFrom, toArray } from 'rxjs';
import { connectResponsesSocket, fromChatCompletionsSSE, HTTPError, outputText, StreamInterruptedError, streamResponse } from '../../index';
import { parseTranscript, startTestServer } from '../../testing/index';
import { CLIError } from '../../cli/args';
import { runDemo } from '../../cli/demo';
import { demoDurable } from '../../cli/demo-durable';
import { run, type IO } from '../../cli/run';
import { DEMO_ANSWER, DEMO_CALLS, demoBackground, embeddedTranscripts } from '../../cli/transcripts';

const FIXTURES = join(__dirname, '..', 'fixtures');
const ANSI = /\u001b\[/;

function capture(tty = false) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { stream, text: () => text };
}

function io(extra: Partial<IO> & { stdinText?: string } = {}) {
  const stdout = capture();
  const stderr = capture();
  const value: IO = {
    stdout: stdout.stream, stderr: stderr.stream, stdin: Readable.from([extra.stdinText ?? '']), env: {},
    ...(extra.interrupted ? { interrupted: extra.interrupted } : {}),
    ...(extra.env ? { env: extra.env } : {}),
  };
  return { io: value, out: stdout.text, err: stderr.text };
}

const tmp = mkdtempSync(join(tmpdir(), 'openai-rx-cli-'));
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const finalText = (sse: string) =>
  parseTranscript(sse).events.map((e) => e.payload).find((p) => p?.['type'] === 'response.output_text.done')?.['text'];

describe('openai-rx demo', () => {
  test('runs every pipeline offline over real sockets and reports what each produced', async () => {
    const out = capture();
    const r = await runDemo({ out: { stream: out.stream, tty: false }, chunkDelayMs: 0 });
    expect(r.text).toBe(DEMO_ANSWER);
    expect(r.toolCalls.map((c) => (c.type === 'function_call' ? [c.name, c.arguments, c.parsed?.ok] : c.type))).toEqual(DEMO_CALLS.map((c) => [c.name, c.arguments, true]));
    expect(r.toolAnswer).toContain('18 °C');
    expect(r.chatSSE.endsWith('data: [DONE]\n\n')).toBe(true);
    // The chat body decodes back to the same text.
    const chunks = await lastValueFrom(fromChatCompletionsSSE(r.chatSSE).pipe(toArray()));
    expect(chunks).toHaveLength(r.chatChunks);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(DEMO_ANSWER);
    // The drop happened, and the resumed stream is the whole response, each sequence number once.
    expect(r.resumed.cursor?.sequenceNumber).toBe(11);
    const all = parseTranscript(demoBackground()).events.map((e) => e.payload?.['sequence_number']);
    expect(r.resumed.sequence).toEqual(all);
    expect(r.resumed.text).toBe(finalText(demoBackground()));
    expect(r.lanes).toEqual({
      summary: 'RxJS composes asynchronous events as streams of values.',
      translate: 'Bonjour, or more formally: bonne matinée.',
      title: 'Every Token, As It Happens',
    });
    // The producer was dropped mid-answer; the reader of the log took over and ended with the whole recording.
    expect(r.durable.sequence).toEqual(parseTranscript(demoDurable()).events.map((e) => e.payload?.['sequence_number']));
    expect(r.durable.equalsRecording).toBe(true);
    expect(r.durable.text).toBe(finalText(demoDurable()));
    expect(r.durable.storedAtDrop).toBe(9);
    expect(r.steps.map((s) => s.step)).toEqual(['SSE text', 'tool calls', 'tool outputs', 'chat chunks', 'resume', 'WebSocket lanes', 'durable log']);
    expect(r.steps.every((s) => s.events > 0)).toBe(true);
    const text = out.text();
    expect(text).not.toMatch(ANSI);
    expect(text).toContain(DEMO_ANSWER);
    expect(text).toMatch(/Summary\nstep +events +bytes +time +result/);
    expect(text).toContain('resuming after sequence 11');
    expect(text).toMatch(/producer dropped after seq \d+; its lease lapsed and this reader took over \(\d+ ms\)/);
    expect(text).toMatch(/log: seq 0…41, each once; the reader's 172 characters equal the recording ✓/);
  });

  test('colours its output on a terminal', async () => {
    const out = capture(true);
    await runDemo({ out: { stream: out.stream, tty: true }, chunkDelayMs: 0 });
    expect(out.text()).toMatch(ANSI);
  });

  test('--live against OPENAI_BASE_URL: the live path (cut by the demo, resumed, lanes) through a stand-in provider', async () => {
    const provider = await startTestServer({ transcripts: embeddedTranscripts(), webSocket: {} });
    try {
      const h = io({ env: { OPENAI_API_KEY: 'sk-live-demo-SECRET', OPENAI_BASE_URL: provider.baseURL } });
      expect(await run(['demo', '--live', '--model', 'demo-background'], h.io)).toBe(0);
      const out = h.out();
      expect(out).toContain(`against ${provider.baseURL} (model demo-background)`);
      expect(out).toMatch(/dropped; resuming after sequence \d+/);
      expect(out).toContain('each number once, in order');
      expect(out).toMatch(/laneMux: 3 lanes/);
      expect(out).toMatch(/the reader's \d+ characters equal the recording ✓/);
      expect(out).not.toContain('offline');
      expect(out).not.toContain('SECRET');
      // every request went to the stand-in, with the key; the resume asked for the events after the cut
      expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toContain('GET /v1/responses/resp_demo_background');
      expect(provider.requests.some((r) => r.query['starting_after'] !== undefined)).toBe(true);
      expect(provider.webSocket?.counters.received['response.create']).toBe(3);
      expect(provider.webSocket?.handshakes[0]?.['authorization']).toBe('Bearer sk-live-demo-SECRET');
    } finally {
      await provider.close();
    }
  });

  test('--live without OPENAI_API_KEY is a one-line error, and --model needs --live', async () => {
    await expect(run(['demo', '--live'], io().io)).rejects.toThrow(new CLIError('--live needs OPENAI_API_KEY in the environment (without --live the demo runs offline)'));
    await expect(run(['demo', '--model', 'x'], io().io)).rejects.toThrow('--model applies to --live only');
    await expect(run(['demo', '--bogus'], io().io)).rejects.toMatchObject({ exitCode: 2 });
  });

  test('an unknown command is a usage error (2); no command prints the usage on stderr (2)', async () => {
    await expect(run(['frobnicate'], io().io)).rejects.toMatchObject({ message: expect.stringMatching(/unknown command "frobnicate"/), exitCode: 2 });
    const h = io();
    expect(await run([], h.io)).toBe(2);
    expect(h.err()).toMatch(/^usage: openai-rx/);
    expect(h.out()).toBe('');
  });
});

describe('openai-rx replay', () => {
  test('shows the text, the tool calls and the events table of an SSE capture', async () => {
    const h = io();
    expect(await run(['replay', join(FIXTURES, 'function-calls.sse')], h.io)).toBe(0);
    const payloads = parseTranscript(readFileSync(join(FIXTURES, 'function-calls.sse'), 'utf8')).events.map((e) => e.payload);
    const names = payloads.filter((p) => p?.['type'] === 'response.output_item.done').map((p) => (p?.['item'] as { name?: string }).name);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(h.out()).toContain(`${n}(`);
    expect(h.out()).toContain('Tool calls');
    expect(h.out()).toMatch(/response\.function_call_arguments\.delta +\d+/);
    expect(h.out()).not.toMatch(ANSI);
  });

  test('--json gives scripts the text, the calls, the event counts', async () => {
    const sse = readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8');
    const h = io();
    expect(await run(['replay', '--json', join(FIXTURES, 'plain-text.sse')], h.io)).toBe(0);
    const s = JSON.parse(h.out());
    expect(s.responses).toHaveLength(1);
    const r = s.responses[0];
    expect(r.text).toBe(finalText(sse));
    expect(r.status).toBe('completed');
    expect(r.events).toBe(parseTranscript(sse).events.length);
    expect(s.events).toBe(r.events);
    expect(r.eventTypes.reduce((a: number, t: { count: number }) => a + t.count, 0)).toBe(r.events);
    expect(r.error).toBeNull();
    expect(r.broken).toBeNull();
    expect(s.broken).toBeNull();
  });

  test('reads JSON lines from standard input with -', async () => {
    const sse = readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8');
    const jsonl = parseTranscript(sse).events.map((e) => e.data).join('\n') + '\n';
    const h = io({ stdinText: jsonl });
    expect(await run(['replay', '-', '--json'], h.io)).toBe(0);
    const s = JSON.parse(h.out());
    expect(s.format).toBe('jsonl');
    expect(s.responses[0].text).toBe(finalText(sse));
  });

  test('--to chat prints a Chat Completions SSE body of the same text', async () => {
    const sse = readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8');
    const h = io();
    expect(await run(['replay', join(FIXTURES, 'plain-text.sse'), '--to', 'chat'], h.io)).toBe(0);
    const chunks = await lastValueFrom(fromChatCompletionsSSE(h.out()).pipe(toArray()));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(finalText(sse));
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
  });

  test('a Chat Completions capture is replayed too', async () => {
    const h = io();
    expect(await run(['replay', '--json', join(FIXTURES, 'chat-text.sse')], h.io)).toBe(0);
    const s = JSON.parse(h.out());
    expect(s.kind).toBe('chat');
    const chunks = await lastValueFrom(fromChatCompletionsSSE(readFileSync(join(FIXTURES, 'chat-text.sse'), 'utf8')).pipe(toArray()));
    expect(s.responses[0].text).toBe(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''));
  });

  test('a missing file, a malformed line and a capture that stops early are one-line errors (exit 1)', async () => {
    await expect(run(['replay', join(tmp, 'nope.sse')], io().io)).rejects.toThrow(`${join(tmp, 'nope.sse')}: no such file`);
    const broken = write('broken.sse', 'event: response.created\ndata: {"type":"response.created"\n\n');
    await expect(run(['replay', broken], io().io)).rejects.toThrow(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not valid JSON`));
    const jsonl = write('broken.jsonl', '{"type":"response.created","sequence_number":0}\n{"type":\n');
    await expect(run(['replay', jsonl], io().io)).rejects.toThrow(/broken\.jsonl:2: not valid JSON/);
    const sse = readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8');
    const cut = write('cut.sse', parseTranscript(sse).events.slice(0, 6).map((e) => e.raw).join(''));
    const h = io();
    expect(await run(['replay', cut], h.io)).toBe(1);
    expect(h.err()).toMatch(/^openai-rx: .*cut\.sse: the capture ends before the response finished \(no terminal event; last sequence_number 5\)\n$/);
    expect(h.out()).toContain('Events');
    await expect(run(['replay'], io().io)).rejects.toMatchObject({ exitCode: 2 });
  });

  test('an event that fails its schema names the line it is on (exit 1), after showing what came before', async () => {
    const bad = write('schema.jsonl', '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}\n{"type":"response.output_text.delta","sequence_number":1,"delta":5}\n');
    const h = io();
    expect(await run(['replay', bad], h.io)).toBe(1);
    expect(h.err()).toMatch(/^openai-rx: .*schema\.jsonl:2: .*response\.output_text\.delta.*\n$/);
    expect(h.out()).toMatch(/response\.created +1 +0/);
  });
});

describe('openai-rx serve', () => {
  async function serve(args: string[]) {
    let stop!: () => void;
    const interrupted = new Promise<void>((r) => (stop = r));
    const h = io({ interrupted });
    const done = run(['serve', '--port', '0', ...args], h.io);
    for (let i = 0; i < 200 && !/at (http:\S+)/.test(h.out()); i++) await new Promise((r) => setTimeout(r, 10));
    const baseURL = /at (http:\S+)/.exec(h.out())?.[1];
    if (!baseURL) throw new Error(`serve did not start: ${h.out()} ${h.err()}`);
    return { baseURL, out: h.out, stop: async () => (stop(), done) };
  }

  test('serves the embedded transcripts by model name and logs each request', async () => {
    const s = await serve([]);
    try {
      const events = await lastValueFrom(streamResponse({ model: 'demo-text', input: 'hi' }, { baseURL: s.baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(events[events.length - 1]?.type).toBe('response.completed');
      for (let i = 0; i < 100 && !/completed in/.test(s.out()); i++) await new Promise((r) => setTimeout(r, 10));
      expect(s.out()).toMatch(/POST \/v1\/responses model=demo-text → 200 demo-text \d+ events/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  test('serves transcript files from a folder, with --status and --drop-after faults', async () => {
    const dir = join(tmp, 'transcripts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hello.sse'), readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8'));
    const s = await serve([dir, '--status', '503', '--drop-after', '3']);
    try {
      const config = { baseURL: s.baseURL, apiKey: 'k' };
      await expect(lastValueFrom(streamResponse({ model: 'hello', input: 'x' }, config))).rejects.toMatchObject({ status: 503 });
      const seen: string[] = [];
      const err = await lastValueFrom(streamResponse({ model: 'hello', input: 'x' }, config).pipe(toArray())).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StreamInterruptedError);
      await lastValueFrom(streamResponse({ model: 'hello', input: 'x' }, config)).catch((e: unknown) => seen.push(e instanceof StreamInterruptedError ? 'dropped again' : String(e)));
      expect(seen).toEqual(['dropped again']);
      expect(err).not.toBeInstanceOf(HTTPError);
      expect(s.out()).toMatch(/transcripts .*: hello\n/);
    } finally {
      await s.stop();
    }
  });

  test('--ws: WebSocket mode on the same port, answering with the transcript the model names', async () => {
    const s = await serve(['--ws']);
    const socket = connectResponsesSocket({ baseURL: s.baseURL, apiKey: 'k' });
    try {
      expect(s.out()).toContain(`WebSocket mode at ${s.baseURL.replace(/^http/, 'ws')}/responses (the same baseURL)`);
      const overSocket = await lastValueFrom(socket.response({ model: 'demo-text', input: 'hi' }).pipe(outputText()));
      const overSSE = await lastValueFrom(streamResponse({ model: 'demo-text', input: 'hi' }, { baseURL: s.baseURL, apiKey: 'k' }).pipe(outputText()));
      expect(overSocket).toBe(overSSE);
      expect(overSocket.length).toBeGreaterThan(20);
    } finally {
      socket.close();
      expect(await s.stop()).toBe(0);
    }
  });

  test('a port in use and a missing transcript are one-line errors', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(run(['serve', '--port', String(port)], io().io)).rejects.toThrow(`port ${port} on 127.0.0.1 is in use (pick another with --port)`);
    } finally {
      blocker.close();
    }
    await expect(run(['serve', join(tmp, 'missing.sse')], io().io)).rejects.toThrow(`${join(tmp, 'missing.sse')}: no such file or folder`);
    await expect(run(['serve', '--port', 'eighty'], io().io)).rejects.toMatchObject({ message: '--port needs a whole number from 0 to 65535 (0 picks a free port), got "eighty"', exitCode: 2 });
  });
});

describe('the built binary', () => {
  const bin = join(__dirname, '..', '..', 'dist', 'cjs', 'cli', 'main.js');
  const exec = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, ...args], { env: { PATH: process.env['PATH'] ?? '' } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  test('exits non-zero with one line on stderr', async () => {
    const r = await exec(['replay', '/nonexistent/capture.sse']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'openai-rx: /nonexistent/capture.sse: no such file\n' });
    const u = await exec(['replay', 'x', '--to', 'xml']);
    expect(u.code).toBe(2);
    expect(u.stderr.split('\n')).toHaveLength(2);
  });

  test('replays a capture to a pipe as plain text', async () => {
    const r = await exec(['replay', join(FIXTURES, 'plain-text.sse')]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).toContain(String(finalText(readFileSync(join(FIXTURES, 'plain-text.sse'), 'utf8'))));
  });
});
