// `openai-rx serve FILE|DIR` (issue 23): transcripts read as a client reads them whatever their line ends (the
// official SDK streams a CRLF file; the events served are those `replay` reads), a malformed file in a folder
// skipped with replay's words on stderr while the rest are served, and GET /v1/models.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../index';
import { textTranscript } from '../../testing/index';
import { CLIError } from '../../cli/args';
import { run, type IO } from '../../cli/run';

jest.setTimeout(60_000); // two busy cores: generous

const tmp = mkdtempSync(join(tmpdir(), 'openai-rx-serve-'));
let folders = 0;
/** A new folder holding these files. */
function folder(files: Record<string, string>): string {
  const dir = join(tmp, `d${folders++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function sink() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { stream, text: () => text };
}

async function serve(args: string[]) {
  let stop!: () => void;
  const interrupted = new Promise<void>((r) => (stop = r));
  const out = sink();
  const err = sink();
  const io: IO = { stdout: out.stream, stderr: err.stream, stdin: Readable.from(['']), env: {}, interrupted };
  const done = run(['serve', '--port', '0', ...args], io);
  let failed: unknown;
  done.catch((e: unknown) => (failed = e));
  for (let i = 0; i < 1000 && failed === undefined && !/at (http:\S+)/.test(out.text()); i++) await new Promise((r) => setTimeout(r, 10));
  if (failed !== undefined) throw failed;
  const baseURL = /at (http:\S+)/.exec(out.text())?.[1];
  if (!baseURL) throw new Error(`serve did not start: ${out.text()}`);
  const sdk = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
  return { baseURL, sdk, out: out.text, err: err.text, stop: async () => (stop(), done) };
}

async function replayJSON(file: string): Promise<{ events: number; responses: Array<{ text: string }> }> {
  const out = sink();
  const io: IO = { stdout: out.stream, stderr: sink().stream, stdin: Readable.from(['']), env: {} };
  expect(await run(['replay', file, '--json'], io)).toBe(0);
  return JSON.parse(out.text()) as { events: number; responses: Array<{ text: string }> };
}

const ANSWER = ['Ten events ', 'in CRLF.'];
const LF = textTranscript({ responseId: 'resp_serve', deltas: ANSWER });
const ends = (eol: (i: number) => string) => {
  let i = 0;
  return LF.replace(/\n/g, () => eol(i++));
};
const LINE_ENDS: Record<string, string> = {
  'crlf.sse': ends(() => '\r\n'),
  'cr.sse': ends(() => '\r'),
  'mixed.sse': ends((i) => ['\r\n', '\n', '\r'][i % 3]!), // never a CR before an LF: that pair is one line end
  'bom-crlf-no-final-blank-line.sse': `\uFEFF${ends(() => '\r\n').replace(/\r\n\r\n$/, '')}`,
};

describe('openai-rx serve: line ends', () => {
  test('each file is served as the events replay and the decoder read in it; the official SDK streams every one', async () => {
    const dir = folder(LINE_ENDS);
    const expected = await lastValueFrom(fromResponsesSSE(LF).pipe(toArray()));
    expect(expected).toHaveLength(10);
    const s = await serve([dir]);
    try {
      for (const [name, text] of Object.entries(LINE_ENDS)) {
        expect(await lastValueFrom(fromResponsesSSE(text).pipe(toArray()))).toEqual(expected);
        const replayed = await replayJSON(join(dir, name));
        expect(replayed.events).toBe(expected.length);
        const seen: unknown[] = [];
        const stream = await s.sdk.responses.create({ model: name.replace(/\.sse$/, ''), input: 'x', stream: true });
        for await (const e of stream) seen.push(e);
        expect(seen).toEqual(expected);
        expect(replayed.responses[0]!.text).toBe(ANSWER.join(''));
      }
      // The log says so too, once the server has seen each stream end.
      for (let i = 0; i < 1000 && (s.out().match(/ 10 events .* completed/g) ?? []).length < 4; i++) await new Promise((r) => setTimeout(r, 10));
      expect(s.out().match(/ \d+ events/g)).toEqual(Array(4).fill(' 10 events'));
      expect(s.err()).toBe('');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe('openai-rx serve DIR: a malformed file', () => {
  const BAD_JSON = 'event: response.created\ndata: {"type":"response.created",\n\n';
  const NOT_SSE = 'hello, this is not a transcript\n';

  test('is skipped with what replay says of it, on stderr; the others are served (exit 0)', async () => {
    const dir = folder({ 'a-good.sse': LF, 'bad-json.sse': BAD_JSON, 'not-sse.txt': NOT_SSE, 'z-good.sse': ends(() => '\r\n') });
    const replayed = async (name: string) => {
      const io: IO = { stdout: sink().stream, stderr: sink().stream, stdin: Readable.from(['']), env: {} };
      return run(['replay', join(dir, name)], io).then(() => 'no error', (e: Error) => e.message);
    };
    const s = await serve([dir]);
    try {
      for (const bad of ['bad-json.sse', 'not-sse.txt']) {
        const said = await replayed(bad);
        expect(said).toContain(join(dir, bad));
        expect(s.err()).toContain(`openai-rx: ${said} (skipped)\n`);
      }
      expect(s.err().trim().split('\n')).toHaveLength(2);
      expect(s.out()).toMatch(/transcripts .*: a-good, z-good\n/);
      for (const model of ['a-good', 'z-good']) {
        const r = await s.sdk.responses.create({ model, input: 'x' });
        expect(r.output_text).toBe(ANSWER.join(''));
      }
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  test('nothing usable is an error (exit 1): one file, its own words; several, how many were skipped', async () => {
    const one = folder({ 'bad.sse': BAD_JSON });
    const r1 = await serve([one]).then(() => undefined, (e: unknown) => e);
    expect(r1).toBeInstanceOf(CLIError);
    expect(r1).toMatchObject({ exitCode: 1, message: `${join(one, 'bad.sse')}:2: not valid JSON (27 characters)` });
    const two = folder({ 'bad.sse': BAD_JSON, 'worse.txt': NOT_SSE });
    const r2 = await serve([two]).then(() => undefined, (e: unknown) => e);
    expect(r2).toMatchObject({ exitCode: 1, message: 'no transcript to serve: 2 skipped (see above)' });
  });

  test('a capture cut in the middle of its last line is served up to the cut, with a warning saying so', async () => {
    const cut = LF.slice(0, LF.lastIndexOf('data: {') + 20);
    const dir = folder({ 'cut.sse': cut });
    const s = await serve([dir]);
    try {
      expect(s.err()).toMatch(/cut\.sse:\d+: the capture was cut in the middle of this line; serving the events before it\n/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe('openai-rx serve: GET /v1/models', () => {
  test('lists the transcripts by the names a request picks them with, in the API\'s list shape', async () => {
    const s = await serve([]);
    try {
      const res = await fetch(`${s.baseURL}/models`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { object: string; data: Array<Record<string, unknown>> };
      expect(body.object).toBe('list');
      for (const m of body.data) expect(m).toEqual({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
      const ids = body.data.map((m) => m['id']);
      expect(ids).toEqual(expect.arrayContaining(['demo-text', 'demo-tools', 'demo-tool-answer', 'demo-background']));
      // Through the official SDK, each listed model names a transcript that answers.
      const listed = [];
      for await (const m of s.sdk.models.list()) listed.push(m.id);
      expect(listed).toEqual(ids);
      expect(await s.sdk.models.retrieve('demo-text')).toMatchObject({ id: 'demo-text', object: 'model' });
      await expect(s.sdk.models.retrieve('no-such-model')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
      await s.sdk.responses.create({ model: listed[0]!, input: 'x' });
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  test('a listing takes no --status fault: the first API request still gets it', async () => {
    const s = await serve(['--status', '503']);
    try {
      expect((await fetch(`${s.baseURL}/models`)).status).toBe(200);
      await expect(s.sdk.responses.create({ model: 'demo-text', input: 'x' })).rejects.toMatchObject({ status: 503 });
      expect((await s.sdk.responses.create({ model: 'demo-text', input: 'x' })).status).toBe('completed');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});
