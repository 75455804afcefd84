// Runs a recipe from examples/ as the README documents it:
//
//   npm run example -- agent-loop            against the embedded fake provider (loopback HTTP + WebSocket, no key, no network)
//   npm run example -- agent-loop --live     against OPENAI_BASE_URL (default https://api.openai.com/v1) with OPENAI_API_KEY
//   npm run example                          lists the recipes
//
// Offline, this starts the loopback test server of openai-rx/testing (testing/) with the demo's embedded
// transcripts (cli/transcripts.ts), points OPENAI_BASE_URL and OPENAI_API_KEY at it, calls the recipe's
// `main()` with its defaults and prints what it returned, then what the fake provider was asked.
// The recipes are TypeScript run from source with tsx (a dev dependency): no build needed.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { register as registerCommonJS } from 'tsx/cjs/api';
import { register as registerESM } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const recipes = readdirSync(join(root, 'examples'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

const args = process.argv.slice(2);
const live = args.includes('--live');
const name = args.find((a) => !a.startsWith('--'));
const usage = `usage: npm run example -- <recipe> [--live]\nrecipes: ${recipes.join(', ')}\n(examples/browser/ runs in Chromium: npm run test:browser)\n`;

if (!name) {
  process.stdout.write(usage);
  process.exit(0);
}
if (!recipes.includes(name)) {
  process.stderr.write(`example: no recipe named "${name}"\n${usage}`);
  process.exit(2);
}
if (live && !process.env.OPENAI_API_KEY) {
  process.stderr.write('example: --live needs OPENAI_API_KEY (and OPENAI_BASE_URL for another compatible provider)\n');
  process.exit(2);
}

// TypeScript from here on (the repo's .ts files load as CommonJS, package.json having no "type").
registerESM();
registerCommonJS();
// A CommonJS module's exports are all on `default` (Node finds only some of them as named exports).
const load = async (path) => {
  const m = await import(pathToFileURL(join(root, path)).href);
  return { ...m.default, ...m };
};

/** Which embedded transcript answers a Responses request: its tool outputs, tools, or background flag say. */
function transcriptFor(body) {
  const input = body?.input;
  if (Array.isArray(input) && input.some((i) => i?.type === 'function_call_output')) return 'answer';
  if (Array.isArray(body?.tools) && body.tools.length > 0) return 'tools';
  if (body?.background === true) return 'background';
  if (body?.text?.format?.type === 'json_schema') return 'structured';
  return 'text';
}

let server;
if (!live) {
  const { startTestServer } = await load('testing/index.ts');
  const { demoBackground, demoStructured, demoText, demoToolAnswer, demoToolCalls } = await load('cli/transcripts.ts');
  const transcripts = { text: demoText(), tools: demoToolCalls(), answer: demoToolAnswer(), background: demoBackground(), structured: demoStructured() };
  server = await startTestServer({
    transcripts,
    // A few bytes at a time, a little apart: the stream arrives in pieces, as from the API.
    chunkSize: 64,
    chunkDelayMs: 2,
    // WebSocket mode on the same port, so that one OPENAI_BASE_URL serves both transports.
    webSocket: { respond: (request) => transcripts[transcriptFor(request)] },
  });
  // The test server picks a transcript by the `x-openai-rx-transcript` header: a fetch that adds it for
  // requests to the fake provider (the recipes use the global fetch unless given one).
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(server.baseURL) || typeof init?.body !== 'string') return realFetch(input, init);
    let body;
    try {
      body = JSON.parse(init.body);
    } catch {
      return realFetch(input, init);
    }
    const headers = new Headers(init.headers);
    headers.set('x-openai-rx-transcript', transcriptFor(body));
    return realFetch(input, { ...init, headers });
  };
  process.env.OPENAI_BASE_URL = server.baseURL;
  process.env.OPENAI_API_KEY = 'sk-example-offline';
  process.stdout.write(`fake provider at ${server.baseURL} (embedded transcripts; no key, no network)\n`);
}

const show = (value) => inspect(value, { depth: 5, maxArrayLength: 4, maxStringLength: 400, breakLength: 120, colors: process.stdout.isTTY === true });

try {
  const recipe = await load(`examples/${name}.ts`);
  const started = Date.now();
  const result = await recipe.main();
  process.stdout.write(`\nexamples/${name}.ts main() returned after ${Date.now() - started} ms:\n${show(result)}\n`);
  if (server) {
    const asked = server.requests.map((r) => `${r.method} ${r.path} → ${r.transcript ?? transcriptFor(r.body)} (${r.status ?? '-'})`);
    process.stdout.write(`\nthe fake provider answered ${asked.length} request(s)${asked.length ? `:\n  ${asked.join('\n  ')}` : ''}\n`);
  }
} catch (e) {
  process.stderr.write(`example ${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
} finally {
  await server?.close();
}
