// `openai-rx gateway` as a user runs it: --fake serves the built-in fake provider behind the gateway (offline,
// no key), the official SDK streams through it, SIGTERM / SIGINT stop it cleanly (exit 0), bad flags are usage errors.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { printed, runNode, type ChildRun } from '../helpers/child-run';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
/** `env` over this process's (OPENAI_API_KEY and OPENAI_BASE_URL empty); an `undefined` value unsets the variable. */
function cli(args: string[], env: Record<string, string | undefined> = {}): ChildRun {
  const vars: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete vars[k];
  return runNode(['--import', 'tsx', join(ROOT, 'cli', 'main.ts'), ...args], { cwd: ROOT, env: vars });
}

const baseURLOf = (run: ChildRun): Promise<string> => printed(run, /at (http:\/\/127\.0\.0\.1:\d+\/v1)/);

describe('openai-rx gateway', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('--fake: the SDK streams through it offline; %s stops it with status 0', async (signal) => {
    const run = cli(['gateway', '--fake', '--port', '0', '--fake-delay', '0']);
    const baseURL = await baseURLOf(run);
    const client = new OpenAI({ apiKey: 'any-key', baseURL, maxRetries: 0 });
    const final = await client.responses.stream({ model: 'fake-model', input: 'Hi' }).finalResponse();
    expect(final.output_text).toMatch(/^This answer comes from the fake provider/);
    // A non-streaming chat completion is forwarded to the fake, which answers it.
    const chat = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(chat.choices[0]!.message.content).toBe(final.output_text);
    // A stream left open when the signal comes does not keep the process alive.
    const open = await client.responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const it = open[Symbol.asyncIterator]();
    await it.next();
    run.child.kill(signal);
    expect(await run.exited).toBe(0);
    expect(run.out()).toMatch(/stopped\n$/);
    expect(run.err()).toBe('');
  });

  it("--fake: the curl -N the CLI prints (and docs/gateway.md shows) streams SSE with an id on every event", async () => {
    const run = cli(['gateway', '--fake', '--port', '0', '--fake-delay', '0']);
    const baseURL = await baseURLOf(run);
    // The lines come in separate writes: wait for the one with the command.
    while (!/try: curl -N .*\n/.test(run.out())) await new Promise((r) => setTimeout(r, 20));
    const printed = /try: (curl -N .*)$/m.exec(run.out())![1]!;
    // The docs' command is the same but for the port (8080, the default).
    const docs = readFileSync(join(ROOT, 'docs', 'gateway.md'), 'utf8');
    const documented = /^(curl -N http:\/\/127\.0\.0\.1:8080\/v1\/responses [^\n]*\\\n[^\n]*)$/m.exec(docs)![1]!.replace(/\\\n\s*/, '');
    expect(printed.replace(/:\d+\/v1/, ':8080/v1')).toBe(documented);
    const text = await new Promise<string>((resolve, reject) =>
      execFile('sh', ['-c', `${printed} --silent --show-error --max-time 30`], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
    );
    const frames = text.split('\n\n').filter((f) => f.trim() !== '');
    expect(frames.length).toBeGreaterThan(10);
    frames.forEach((f, i) => expect(f).toMatch(new RegExp(`^id: ${i}\nevent: response\.[a-z_.]+\ndata: \\{.*"sequence_number":${i}\\}$`)));
    expect(frames[frames.length - 1]).toMatch(/^id: \d+\nevent: response\.completed\n/);
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it.each([
    ['unset', 'https://api.openai.com/v1', { OPENAI_BASE_URL: undefined }],
    ['empty (as unset)', 'https://api.openai.com/v1', { OPENAI_BASE_URL: '' }],
    ['a provider', 'http://127.0.0.1:9/compat/v1', { OPENAI_BASE_URL: 'http://127.0.0.1:9/compat/v1' }],
  ])('the default upstream: OPENAI_BASE_URL %s → %s', async (_, upstream, env) => {
    const run = cli(['gateway', '--port', '0'], env);
    const baseURL = await baseURLOf(run);
    expect(run.out()).toContain(`at ${baseURL} → ${upstream}\n`);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('--pass-through forwards the listed routes only, and --access-log writes a JSON line per request with no key', async () => {
    const seen: string[] = [];
    const upstream = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[]}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const run = cli(['gateway', '--port', '0', '--upstream', `${origin}/v1`, '--pass-through', 'GET /v1/files, GET /v1/batches/*', '--access-log']);
      const baseURL = await baseURLOf(run);
      const get = async (path: string): Promise<number> => {
        const r = await fetch(`${baseURL}${path}`, { headers: { authorization: 'Bearer sk-user-key-0123456789abcdef' } });
        await r.text();
        return r.status;
      };
      expect(await get('/files')).toBe(200);
      expect(await get('/batches/batch_1')).toBe(200);
      expect(await get('/vector_stores')).toBe(404);
      expect(seen).toEqual(['GET /v1/files', 'GET /v1/batches/batch_1']);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      const lines = run.out().split('\n').filter((l) => l.startsWith('{'));
      expect(lines.length).toBeGreaterThanOrEqual(3);
      expect(lines.map((l) => (JSON.parse(l) as { status: number }).status)).toEqual(expect.arrayContaining([200, 200, 404]));
      expect(run.out()).not.toContain('sk-user-key');
    } finally {
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('a bad OPENAI_BASE_URL is a usage error naming OPENAI_BASE_URL', async () => {
    const run = cli(['gateway', '--port', '0'], { OPENAI_BASE_URL: 'localhost:8000' });
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(/^openai-rx: OPENAI_BASE_URL: /);
  });

  it.each([
    [['gateway', '--fake', '--upstream', 'http://127.0.0.1:1/v1'], /--fake and --upstream exclude each other/],
    [['gateway', '--port', '-1'], /--port needs a whole number from 0 to 65535/],
    [['gateway', '--redis', 'localhost:6379'], /--redis takes a redis:\/\/ or rediss:\/\/ URL/],
    [['gateway', '--upstream', 'ftp://example.com/v1'], /unsupported scheme/],
    [['gateway', '--bogus'], /Unknown option '--bogus'/],
    [['gateway', '--pass-through', 'GET /v1/responses/*'], /^openai-rx: --pass-through: /],
  ])('%j is a usage error (status 2, one line)', async (args, message) => {
    const run = cli(args);
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(message);
    expect(run.err().trim().split('\n')).toHaveLength(1);
  });
});
