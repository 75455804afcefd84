// `openai-rx COMMAND --help` shows that command's usage and options (issue 23), and the hints the CLI prints
// work when pasted into a shell: the gateway's curl sends the key in $OPENAI_API_KEY, not that text.
import { execFile } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { startFakeProvider } from '../../testing/index';
import { run, type IO } from '../../cli/run';

jest.setTimeout(60_000);

function io(extra: Partial<IO> = {}) {
  const sink = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
    return { stream, text: () => text };
  };
  const out = sink();
  const err = sink();
  const value: IO = { stdout: out.stream, stderr: err.stream, stdin: Readable.from(['']), env: {}, ...extra };
  return { io: value, out: out.text, err: err.text };
}

/** Every option each command's parser accepts. */
const OPTIONS: Record<string, string[]> = {
  demo: ['--live', '--model', '--delay'],
  replay: ['--to', '--json'],
  serve: ['--port', '--host', '--drop-after', '--chunk-size', '--delay', '--status', '--ws'],
  gateway: ['--port', '--host', '--upstream', '--redis', '--background', '--lease-ms', '--fake', '--fake-delay', '--pass-through', '--access-log'],
  streams: ['--port', '--host', '--redis', '--cluster', '--long-poll-ms'],
};
/** The options a help text lists (before its exit statuses, whose examples name options of any command). */
const optionsIn = (text: string) => [...new Set(text.split('exit status:')[0]!.match(/--[a-z][a-z-]*/g))].filter((o) => o !== '--help').sort();

describe('openai-rx COMMAND --help', () => {
  test.each(Object.keys(OPTIONS).flatMap((c) => [[c, '--help'], [c, '-h']]))('%s %s: that command\'s usage and every option it takes (exit 0)', async (command, flag) => {
    const h = io();
    expect(await run([command!, flag!], h.io)).toBe(0);
    const text = h.out();
    expect(text).toMatch(new RegExp(`^usage: openai-rx ${command} `));
    expect(optionsIn(text)).toEqual([...OPTIONS[command!]!].sort());
    // Not the other commands' help.
    for (const other of Object.keys(OPTIONS).filter((c) => c !== command)) expect(text).not.toMatch(new RegExp(`^  ${other}\\b`, 'm'));
    expect(text).toMatch(/exit status:\n  0  done/);
    expect(h.err()).toBe('');
  });

  test('also after other options, and as `openai-rx help COMMAND`; the help starts nothing (no server, no file read)', async () => {
    const direct = io();
    await run(['serve', '--help'], direct.io);
    for (const argv of [['serve', '--port', '0', '--ws', '-h'], ['serve', 'no-such-file.sse', '--help'], ['help', 'serve'], ['--help', 'serve']]) {
      const h = io();
      expect(await run(argv, h.io)).toBe(0);
      expect(h.out()).toBe(direct.out());
    }
    await expect(run(['help', 'frobnicate'], io().io)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('no help for "frobnicate"') });
  });

  test('the global help still lists every command and its options, and says how to get one command\'s help', async () => {
    const h = io();
    expect(await run(['--help'], h.io)).toBe(0);
    expect(optionsIn(h.out())).toEqual([...new Set([...Object.values(OPTIONS).flat(), '--version'])].sort());
    for (const c of Object.keys(OPTIONS)) expect(h.out()).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(h.out()).toContain('<command> --help');
  });
});

describe('the hints the CLI prints', () => {
  test('the gateway\'s curl, pasted into a shell, sends the key held in $OPENAI_API_KEY', async () => {
    const KEY = 'sk-hint-test-0123456789';
    const provider = await startFakeProvider({ apiKey: KEY });
    let stop!: () => void;
    const interrupted = new Promise<void>((r) => (stop = r));
    const h = io({ interrupted, env: { NO_COLOR: '1' } });
    const done = run(['gateway', '--port', '0', '--upstream', provider.baseURL], h.io);
    try {
      for (let i = 0; i < 1000 && !/try: curl -N .*\n/.test(h.out()); i++) await new Promise((r) => setTimeout(r, 10));
      const printed = /try: (curl -N .*)$/m.exec(h.out())![1]!;
      expect(printed).toContain('"authorization: Bearer $OPENAI_API_KEY"');
      const body = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', `${printed} --silent --show-error --max-time 30`], { env: { ...process.env, OPENAI_API_KEY: KEY } }, (e, stdout, stderr) =>
          e ? reject(new Error(stderr)) : resolve(stdout),
        ),
      );
      expect(body).toContain('event: response.completed');
      expect(body).not.toContain('invalid_api_key');
    } finally {
      stop();
      expect(await done).toBe(0);
      await provider.close();
    }
  });
});
