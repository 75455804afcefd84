// `openai-rx replay` on what people actually have (issue 14): curl -N SSE, JSON lines of Responses events or of
// chat chunks (no [DONE]), a BOM, a capture cut mid-line, several responses in one file, failed responses,
// every kind of tool call, and --to chat keeping custom tool calls.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { lastValueFrom, toArray } from 'rxjs';
import { collectToolCalls, fromChatChunks, fromChatCompletionsSSE } from '../../index';
import { parseTranscript, responsesTranscript } from '../../testing/index';
import { run, type IO } from '../../cli/run';

const FIXTURES = join(__dirname, '..', 'fixtures');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'openai-rx-replay-'));
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

function io(stdinText = '') {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (c: Buffer) => (o += c.toString('utf8')));
  err.on('data', (c: Buffer) => (e += c.toString('utf8')));
  const value: IO = { stdout: out, stderr: err, stdin: Readable.from([stdinText]), env: {} };
  return { io: value, out: () => o, err: () => e };
}

async function replay(args: string[], stdinText = '') {
  const h = io(stdinText);
  const code = await run(['replay', ...args], h.io);
  return { code, out: h.out(), err: h.err() };
}
async function replayJSON(args: string[], stdinText = '') {
  const r = await replay([...args, '--json'], stdinText);
  return { ...r, json: JSON.parse(r.out) };
}

const textOf = (sse: string) => parseTranscript(sse).events.map((e) => e.payload).find((p) => p?.['type'] === 'response.output_text.done')?.['text'] as string;
const jsonLines = (sse: string) => parseTranscript(sse).events.filter((e) => e.data !== '[DONE]').map((e) => e.data).join('\n') + '\n';
const PLAIN = fixture('plain-text.sse');

describe('replay reads what people have', () => {
  test('JSON lines of Chat Completions chunks, without [DONE]: complete when the file ends cleanly (exit 0)', async () => {
    const chat = fixture('chat-text.sse');
    const expected = (await lastValueFrom(fromChatCompletionsSSE(chat).pipe(toArray()))).map((c) => c.choices[0]?.delta?.content ?? '').join('');
    const file = write('chat.jsonl', jsonLines(chat));
    expect(readFileSync(file, 'utf8')).not.toContain('[DONE]');
    const r = await replayJSON([file]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ kind: 'chat', format: 'jsonl', broken: null });
    expect(r.json.responses).toHaveLength(1);
    expect(r.json.responses[0]).toMatchObject({ text: expected, status: 'completed', error: null });
    // an SSE chat capture that omits [DONE] is complete too
    const noDone = write('chat-no-done.sse', chat.replace('data: [DONE]\n\n', ''));
    expect((await replay([noDone])).code).toBe(0);
  });

  test('a file that starts with a byte order mark (SSE and JSON lines)', async () => {
    const sse = await replayJSON([write('bom.sse', `\uFEFF${PLAIN}`)]);
    expect(sse.code).toBe(0);
    expect(sse.json.format).toBe('sse');
    expect(sse.json.responses[0].text).toBe(textOf(PLAIN));
    const jsonl = await replayJSON([write('bom.jsonl', `\uFEFF${jsonLines(PLAIN)}`)]);
    expect(jsonl.code).toBe(0);
    expect(jsonl.json.format).toBe('jsonl');
    expect(jsonl.json.responses[0].text).toBe(textOf(PLAIN));
  });

  test('a capture cut in the middle of a line: the events up to the cut, then where it was cut (exit 1)', async () => {
    const events = parseTranscript(PLAIN).events;
    const whole = events.slice(0, 7).map((e) => e.raw).join('');
    const partial = events[7]!.raw.slice(0, Math.floor(events[7]!.raw.length * 0.6));
    expect(partial).not.toContain('\n\n');
    const file = write('cut.sse', whole + partial);
    const cutLine = (whole + partial).split('\n').length;
    const r = await replay([file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/response\.created +1/);
    expect(r.out).toMatch(/response\.output_text\.delta +\d+/);
    expect(r.err).toBe(`openai-rx: ${file}:${cutLine}: the capture was cut in the middle of this line, after 7 events\n`);
    const j = await replayJSON([file]);
    expect(j.json.responses[0].events).toBe(7);
    expect(j.json.broken).toContain(`cut.sse:${cutLine}: the capture was cut`);
    // JSON lines, cut inside the last line
    const lines = jsonLines(PLAIN).split('\n');
    const cutJsonl = write('cut.jsonl', `${lines.slice(0, 5).join('\n')}\n${lines[5]!.slice(0, 30)}`);
    const rj = await replay([cutJsonl]);
    expect(rj.code).toBe(1);
    expect(rj.err).toBe(`openai-rx: ${cutJsonl}:6: the capture was cut in the middle of this line, after 5 events\n`);
    // the same broken line with its line end is not a cut but a malformed line
    const malformed = write('malformed.jsonl', `${lines.slice(0, 5).join('\n')}\n${lines[5]!.slice(0, 30)}\n`);
    await expect(replay([malformed])).rejects.toMatchObject({ message: `${malformed}:6: not valid JSON (30 characters)`, exitCode: 1 });
  });

  test('several responses one after another: each is shown, none silently dropped', async () => {
    const calls = fixture('function-calls.sse');
    const file = write('two.sse', PLAIN + calls);
    const r = await replay([file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: Responses SSE, 2 responses, \d+ events\n/);
    expect(r.out).toMatch(/Response 1 of 2: response resp_\w+, completed/);
    expect(r.out).toMatch(/Response 2 of 2: response resp_\w+, completed/);
    expect(r.out).toContain(textOf(PLAIN));
    expect(r.out).toContain('get_weather(');
    const j = await replayJSON([file]);
    expect(j.json.responses.map((x: { events: number }) => x.events)).toEqual([parseTranscript(PLAIN).events.length, parseTranscript(calls).events.length]);
    expect(j.json.responses[0].responseId).not.toBe(j.json.responses[1].responseId);
    // JSON lines of two chat responses (no [DONE] between them): split where the chunk id changes
    const chat = fixture('chat-text.sse');
    const second = jsonLines(chat).replace(/chatcmpl-CHt3xT9kQ2mV7pL4wR8sN1bY6zA0/g, 'chatcmpl-second');
    const c = await replayJSON([write('two-chat.jsonl', jsonLines(chat) + second)]);
    expect(c.code).toBe(0);
    expect(c.json.responses.map((x: { responseId: string }) => x.responseId)).toEqual(['chatcmpl-CHt3xT9kQ2mV7pL4wR8sN1bY6zA0', 'chatcmpl-second']);
    expect(c.json.responses[0].text).toBe(c.json.responses[1].text);
    // the same over stdin, with [DONE] after each
    const s = await replayJSON(['-'], chat + chat.replace(/chatcmpl-CHt3xT9kQ2mV7pL4wR8sN1bY6zA0/g, 'chatcmpl-third'));
    expect(s.json.responses).toHaveLength(2);
  });
});

describe('replay: responses that fail', () => {
  test('response.failed: the code and message are shown, --json says so, and the exit status is 0 (the capture is fine)', async () => {
    const file = join(FIXTURES, 'failed.sse');
    const failed = parseTranscript(fixture('failed.sse')).events.map((e) => e.payload).find((p) => p?.['type'] === 'response.failed')!;
    const error = (failed['response'] as { error: { code: string; message: string } }).error;
    const r = await replay([file]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain(`Error (response.failed) ${error.code}: ${error.message}`);
    const j = await replayJSON([file]);
    expect(j.code).toBe(0);
    expect(j.json.responses[0]).toMatchObject({ status: 'failed', error: { eventType: 'response.failed', code: error.code, message: error.message }, broken: null });
  });

  test('an error event (and a provider error in a chat capture) likewise', async () => {
    const r = await replayJSON([join(FIXTURES, 'error.sse')]);
    expect(r.code).toBe(0);
    expect(r.json.responses[0]).toMatchObject({ status: 'failed', error: { eventType: 'error', code: 'rate_limit_exceeded', message: expect.stringMatching(/^Rate limit reached/) } });
    expect((await replay([join(FIXTURES, 'error.sse')])).out).toMatch(/Error \(error\) rate_limit_exceeded: Rate limit reached/);
    const chat = jsonLines(fixture('chat-text.sse')).split('\n').slice(0, 3).join('\n') + '\n{"error":{"message":"Upstream overloaded","code":"overloaded","type":"server_error"}}\n';
    const c = await replayJSON([write('chat-error.jsonl', chat)]);
    expect(c.code).toBe(0);
    expect(c.json.responses[0]).toMatchObject({ error: { code: 'overloaded', message: 'Upstream overloaded' } });
  });
});

const response = (status: string, output: unknown[]) => ({
  id: 'resp_tools', object: 'response', created_at: 1758200000, status, model: 'm', output, usage: null, error: null, incomplete_details: null,
});

describe('replay: every kind of tool call, with what matters', () => {
  const items = [
    { id: 'sh_1', type: 'shell_call', status: 'completed', call_id: 'call_sh', action: { commands: ['ls -la', 'cat README.md'], timeout_ms: 1000 } },
    { id: 'lsh_1', type: 'local_shell_call', status: 'completed', call_id: 'call_lsh', action: { type: 'exec', command: ['grep', '-rn', 'hello world', 'src'], env: {} } },
    { id: 'ap_1', type: 'apply_patch_call', status: 'completed', call_id: 'call_ap', operation: { type: 'update_file', path: 'src/a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' } },
    { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'rxjs share operator' } },
    { id: 'fs_1', type: 'file_search_call', status: 'completed', queries: ['refund policy'] },
    { id: 'ci_1', type: 'code_interpreter_call', status: 'completed', code: 'print(6 * 7)', container_id: 'c', outputs: null },
    { id: 'ctc_1', type: 'custom_tool_call', status: 'completed', call_id: 'call_ctc', name: 'run_sql', input: 'SELECT 1;' },
    { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_fc', name: 'get_time', arguments: '{"tz":"UTC"}' },
    { id: 'cc_1', type: 'computer_call', status: 'completed', call_id: 'call_cc', action: { type: 'click', x: 10, y: 20, button: 'left' } },
  ];
  const sse = responsesTranscript([
    { type: 'response.created', sequence_number: 0, response: response('in_progress', []) },
    ...items.flatMap((item, i) => [
      { type: 'response.output_item.added', sequence_number: 1 + 2 * i, output_index: i, item: { ...item, status: 'in_progress' } },
      { type: 'response.output_item.done', sequence_number: 2 + 2 * i, output_index: i, item },
    ]),
    { type: 'response.completed', sequence_number: 1 + 2 * items.length, response: response('completed', items) },
  ]);

  test('the shell commands, the patch, the search queries, the code, the custom input, the action', async () => {
    const file = write('tools.sse', sse);
    const r = await replay([file]);
    expect(r.code).toBe(0);
    for (const s of ['$ ls -la', '$ cat README.md', "shell: $ grep -rn 'hello world' src", 'apply_patch: update_file src/a.ts', '    -a', '    +b',
      'web search: "rxjs share operator"', 'file search: "refund policy"', 'print(6 * 7)', 'run_sql(SELECT 1;)', 'get_time({"tz":"UTC"})', '"type":"click"']) {
      expect(r.out).toContain(s);
    }
    const j = await replayJSON([file]);
    const calls = j.json.responses[0].toolCalls;
    expect(calls.map((c: { type: string }) => c.type)).toEqual(items.map((i) => i.type));
    expect(calls).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: 'shell_call', commands: ['ls -la', 'cat README.md'], callId: 'call_sh' }),
      expect.objectContaining({ type: 'local_shell_call', commands: ["grep -rn 'hello world' src"] }),
      expect.objectContaining({ type: 'apply_patch_call', operation: { type: 'update_file', path: 'src/a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' } }),
      expect.objectContaining({ type: 'web_search_call', query: 'rxjs share operator' }),
      expect.objectContaining({ type: 'file_search_call', queries: ['refund policy'] }),
      expect.objectContaining({ type: 'code_interpreter_call', code: 'print(6 * 7)' }),
      expect.objectContaining({ type: 'custom_tool_call', name: 'run_sql', input: 'SELECT 1;' }),
      expect.objectContaining({ type: 'function_call', name: 'get_time', arguments: '{"tz":"UTC"}' }),
      expect.objectContaining({ type: 'computer_call', action: { type: 'click', x: 10, y: 20, button: 'left' } }),
    ]));
  });

  test('--to chat keeps custom tool calls (type "custom" with name and input), beside function calls', async () => {
    const r = await replay([join(FIXTURES, 'custom-tool.sse'), '--to', 'chat']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('"type":"custom"');
    const calls = await lastValueFrom(fromChatCompletionsSSE(r.out).pipe(fromChatChunks(), collectToolCalls(), toArray()));
    const item = parseTranscript(fixture('custom-tool.sse')).events.map((e) => e.payload).find((p) => p?.['type'] === 'response.output_item.done')!['item'] as { name: string; input: string; call_id: string };
    expect(calls).toEqual([expect.objectContaining({ type: 'custom_tool_call', name: item.name, input: item.input, callId: item.call_id })]);
    // mixed with a function call, each keeps its kind
    const mixed = await replay([write('mixed.sse', sse), '--to', 'chat']);
    const back = await lastValueFrom(fromChatCompletionsSSE(mixed.out).pipe(fromChatChunks(), collectToolCalls(), toArray()));
    expect(back.map((c) => [c.type, 'name' in c ? c.name : undefined])).toEqual([['custom_tool_call', 'run_sql'], ['function_call', 'get_time']]);
    expect(back.find((c) => c.type === 'custom_tool_call')).toMatchObject({ input: 'SELECT 1;' });
  });
});
