// The API reference (`npm run docs`, typedoc.json) builds without a warning, opens on the README, names its
// modules by import path, and gives every Responses event (SSE and WebSocket) a page that lists its fields:
// the same fields, with the same optionality, as the event's codec.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as t from 'io-ts';
import { OptionalType, StructType } from '../../lib/events/codec.js';
import { ChatCompletionChunk } from '../../lib/events/chat.js';
import { serverEventCodecs } from '../../lib/events/websocket.js';

const root = join(__dirname, '..', '..');
let out = '';
let run: { code: number; log: string };

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'openai-rx-docs-'));
  run = await new Promise((resolve) => {
    execFile(
      'npm',
      // Warnings are reported by the first test; the output is still written so that the others can read it.
      ['run', '--silent', 'docs', '--', '--out', out, '--treatWarningsAsErrors', 'false'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, log: stripAnsi(`${stdout}\n${stderr}`) }),
    );
  });
}, 240_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}

/** The visible text of an HTML fragment, whitespace collapsed (`tight`: tags are not word breaks, as in a signature). */
function textOf(html: string, tight = false): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<wbr\/?>/g, '')
    .replace(/<[^>]+>/g, tight ? '' : ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const read = (...path: string[]) => readFileSync(join(out, ...path), 'utf8');

interface Field { readonly optional: boolean; readonly type: string }
/** An interface page's properties, as rendered: name → optional?, type text. */
function fieldsOf(html: string): Map<string, Field> {
  const fields = new Map<string, Field>();
  const re = /<div class="tsd-signature"><span class="tsd-kind-property">([^<]+)<\/span><span class="tsd-signature-symbol">(\??:)<\/span>([\s\S]*?)<\/div><\/section>/g;
  for (const m of html.matchAll(re)) fields.set(m[1]!, { optional: m[2] === '?:', type: textOf(m[3]!, true) });
  return fields;
}

/** Every interface page, by file name. */
function interfacePages(): Map<string, { title: string; fields: Map<string, Field>; html: string }> {
  const pages = new Map<string, { title: string; fields: Map<string, Field>; html: string }>();
  for (const file of readdirSync(join(out, 'interfaces'))) {
    const html = read('interfaces', file);
    pages.set(file, { title: /<title>([^|<]+)/.exec(html)?.[1]?.trim() ?? file, fields: fieldsOf(html), html });
  }
  return pages;
}

/** A codec's fields: name → optional? (`error` is a refinement of a struct). */
function codecFields(codec: t.Mixed): Map<string, boolean> {
  const struct = codec instanceof t.RefinementType ? (codec.type as t.Mixed) : codec;
  if (!(struct instanceof StructType)) throw new Error(`${codec.name} is not a struct`);
  const props = struct.props as Record<string, t.Mixed>;
  return new Map(Object.keys(props).map((k) => [k, props[k] instanceof OptionalType]));
}

test('npm run docs succeeds without a warning or an error', () => {
  expect(run.log.split('\n').filter((l) => /\[(warning|error)\]/.test(l))).toEqual([]);
  expect(run.code).toBe(0);
});

test('the index page is the README', () => {
  const index = textOf(read('index.html'));
  const headings = readFileSync(join(root, 'README.md'), 'utf8')
    .split('\n')
    .filter((l) => /^#{1,3} /.test(l))
    .map((l) => l.replace(/^#+ /, '').replace(/`/g, '').trim());
  expect(headings.length).toBeGreaterThan(3);
  for (const h of headings) expect(index).toContain(h);
});

test('the modules are named by import path', () => {
  const modules = readdirSync(join(out, 'modules')).map((f) => /<title>([^|<]+)/.exec(read('modules', f))?.[1]?.trim());
  expect(modules.sort()).toEqual(['openai-rx', 'openai-rx/angular', 'openai-rx/codecs', 'openai-rx/gateway', 'openai-rx/operators', 'openai-rx/streams', 'openai-rx/testing']);
  const list = textOf(read('modules.html'));
  for (const name of ['openai-rx', 'openai-rx/angular', 'openai-rx/codecs', 'openai-rx/gateway', 'openai-rx/operators', 'openai-rx/streams', 'openai-rx/testing']) expect(list).toContain(name);
  expect(textOf(read('modules', 'openai-rx_operators.html'))).toContain('ofType');
  expect(textOf(read('modules', 'openai-rx_codecs.html'))).toContain('ResponseStreamTracker');
  expect(textOf(read('modules', 'openai-rx_testing.html'))).toContain('startTestServer');
  expect(textOf(read('modules', 'openai-rx_gateway.html'))).toContain('createGateway');
  expect(textOf(read('modules', 'openai-rx_angular.html'))).toContain('injectResponse');
  expect(textOf(read('modules', 'openai-rx_streams.html'))).toContain('createDurableStreamsHandler');
});

test('every Responses event (SSE and WebSocket) has a page listing the fields of its codec', () => {
  const pages = [...interfacePages().values()];
  const missing: string[] = [];
  for (const [wire, codec] of Object.entries(serverEventCodecs)) {
    const expected = codecFields(codec);
    const page = pages.find(
      (p) =>
        p.fields.get('type')?.type === JSON.stringify(wire) &&
        p.fields.size === expected.size &&
        [...expected].every(([name, optional]) => p.fields.get(name)?.optional === optional),
    );
    if (!page) missing.push(wire);
  }
  expect(missing).toEqual([]);
});

test('a sample of event pages, field by field', () => {
  const pages = interfacePages();
  const page = (name: string) => {
    const p = [...pages.values()].find((x) => x.title === name);
    if (!p) throw new Error(`no interface page for ${name}`);
    return p;
  };
  const delta = page('ResponseTextDeltaEvent');
  expect(Object.fromEntries(delta.fields)).toEqual({
    type: { optional: false, type: '"response.output_text.delta"' },
    item_id: { optional: false, type: 'string' },
    output_index: { optional: false, type: 'number' },
    content_index: { optional: false, type: 'number' },
    delta: { optional: false, type: 'string' },
    logprobs: { optional: true, type: 'Record<string, unknown>[]' },
    sequence_number: { optional: true, type: 'number' },
  });
  expect(textOf(delta.html)).toContain('response.output_text.delta');

  const completed = page('ResponseCompletedEvent');
  expect([...completed.fields.keys()].sort()).toEqual(['response', 'sequence_number', 'type']);
  // The embedded Response is spelled out, not left as `t.TypeOf<…>`.
  expect(completed.fields.get('response')!.type).toMatch(/^\{ .*id: string;.*output\?: ResponseOutputItem\[\];.*\}$/);

  const error = page('ResponseErrorEvent');
  expect(error.fields.get('type')).toEqual({ optional: false, type: '"error"' });
  for (const name of ['code', 'message', 'param', 'error', 'sequence_number']) expect(error.fields.get(name)?.optional).toBe(true);

  const chunk = page('ChatCompletionChunk');
  expect([...chunk.fields.keys()].sort()).toEqual([...codecFields(ChatCompletionChunk).keys()].sort());
  expect(chunk.fields.get('choices')!.optional).toBe(false);

  for (const p of [delta, completed, error, chunk]) expect(p.html).not.toMatch(/TypeOf/);
});

test('the event types are interfaces, not aliases of t.TypeOf', () => {
  const aliases = readdirSync(join(out, 'types'));
  expect(aliases.filter((f) => /Event\.html$/.test(f) && /TypeOf/.test(read('types', f)))).toEqual([]);
});
