// `openai-rx serve` (issue 14): chat requests from a Responses transcript, --drop-after cutting only the first
// stream of a response, and the WebSocket side honouring the same transcripts and faults, and logging them.
import { PassThrough, Readable } from 'node:stream';
import { lastValueFrom, toArray } from 'rxjs';
import {
  connectResponsesSocket, outputText, resumeFrom, retrieveResponseStream, StreamInterruptedError, streamChatCompletion, streamResponse,
} from '../../index';
import { run, type IO } from '../../cli/run';
import { DEMO_ANSWER } from '../../cli/transcripts';

jest.setTimeout(60_000); // two busy cores: generous

async function serve(args: string[]) {
  let stop!: () => void;
  const interrupted = new Promise<void>((r) => (stop = r));
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString('utf8')));
  const io: IO = { stdout: out, stderr: new PassThrough(), stdin: Readable.from(['']), env: {}, interrupted };
  const done = run(['serve', '--port', '0', ...args], io);
  // Generous bounds: two busy cores.
  for (let i = 0; i < 1000 && !/at (http:\S+)/.test(text); i++) await new Promise((r) => setTimeout(r, 10));
  const baseURL = /at (http:\S+)/.exec(text)?.[1];
  if (!baseURL) throw new Error(`serve did not start: ${text}`);
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 1000 && !re.test(text); i++) await new Promise((r) => setTimeout(r, 10));
    expect(text).toMatch(re);
  };
  return { baseURL, out: () => text, waitFor, stop: async () => (stop(), done) };
}

describe('openai-rx serve', () => {
  test('POST /v1/chat/completions is answered from a Responses transcript (through toChatChunks) when there is no chat one', async () => {
    const s = await serve([]);
    try {
      const chunks = await lastValueFrom(streamChatCompletion({ model: 'demo-text', messages: [{ role: 'user', content: 'hi' }] }, { baseURL: s.baseURL, apiKey: 'k' }).pipe(toArray()));
      expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(DEMO_ANSWER);
      expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
      await s.waitFor(/POST \/v1\/chat\/completions model=demo-text → 200 demo-text \d+ events .* completed/);
      expect(s.out()).toContain('chat requests get a Responses one as chat chunks');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  test('--drop-after cuts the first stream of a response, not the requests that resume it', async () => {
    const s = await serve(['--drop-after', '5']);
    const config = { baseURL: s.baseURL, apiKey: 'k' };
    try {
      expect(s.out()).toContain('drop the first stream of each response after 5 events (resumes are not cut)');
      let cuts = 0;
      const text = await lastValueFrom(
        streamResponse({ model: 'demo-background', input: 'x', background: true, store: true }, config).pipe(
          resumeFrom((c) => {
            cuts++;
            return retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);
          }, { delayMs: 10, maxAttempts: 3 }),
          outputText(),
        ),
      );
      expect(cuts).toBe(1);
      expect(text.length).toBeGreaterThan(100);
      await s.waitFor(/GET \/v1\/responses\/resp_demo_background\?starting_after=4 → 200 demo-background \d+ events .* completed/);
      expect(s.out()).toMatch(/POST \/v1\/responses model=demo-background → 200 demo-background 5 events .* dropped \(fault: drop\)/);
      // every new response's first stream is cut again
      await expect(lastValueFrom(streamResponse({ model: 'demo-text', input: 'x' }, config))).rejects.toBeInstanceOf(StreamInterruptedError);
    } finally {
      await s.stop();
    }
  });

  test('--ws: WebSocket requests are logged like HTTP ones, get the same transcripts, and the banner says what differs', async () => {
    const s = await serve(['--ws', '--drop-after', '3', '--chunk-size', '64']);
    const socket = connectResponsesSocket({ baseURL: s.baseURL, apiKey: 'k' });
    try {
      expect(s.out()).toContain('the same transcripts and faults, logged here too');
      expect(s.out()).toMatch(/over WebSocket: --drop-after drops the whole connection \(every lane\) after 3 frames of a response; --chunk-size does not apply/);
      const got: string[] = [];
      const ended = await new Promise((resolve) =>
        socket.response({ model: 'demo-text', input: 'x' }).subscribe({ next: (e) => got.push(e.type), error: resolve, complete: () => resolve('completed') }),
      );
      expect(ended).not.toBe('completed');
      expect(got).toHaveLength(3);
      await s.waitFor(/WS response\.create model=demo-text → 200 demo-text 3 frames .* dropped \(fault: drop\)/);
    } finally {
      socket.close();
      expect(await s.stop()).toBe(0);
    }
  });

  test('--ws --status: the first WebSocket request gets an error event with that status, then transcripts as over HTTP', async () => {
    const s = await serve(['--ws', '--status', '429']);
    const socket = connectResponsesSocket({ baseURL: s.baseURL, apiKey: 'k' });
    try {
      const err = await lastValueFrom(socket.response({ model: 'demo-text', input: 'x' })).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'rate_limit_exceeded' });
      expect(await lastValueFrom(socket.response({ model: 'demo-text', input: 'x' }).pipe(outputText()))).toBe(DEMO_ANSWER);
      await s.waitFor(/WS response\.create model=demo-text → 429 .*\(fault: status\)/);
      await s.waitFor(/WS response\.create model=demo-text → 200 demo-text \d+ frames .* completed/);
    } finally {
      socket.close();
      expect(await s.stop()).toBe(0);
    }
  });
});
