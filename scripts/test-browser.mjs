// The browser test (`npm run test:browser`): loads examples/browser/ in headless Chromium and checks that
// the ESM build streams a response over fetch and runs three lanes over the browser's own WebSocket.
// Then the Angular example (examples/angular/, built with @angular/build: scripts/browser/angular-example.mjs):
// its chat box shows the answer progressively and completely, and its stop button closes the upstream request.
//
// One static server serves the page, dist/esm and the dependencies' ESM builds (resolving extensionless
// relative imports as a dev server does), and forwards /v1/* to the loopback HTTP test server, so the page
// calls the API on its own origin (no CORS). The WebSocket goes straight to the loopback WS server.
//
// Needs: dist/ (`npm run test:browser` builds it first when missing or stale, through `pretest:browser`), Chromium at $CHROMIUM_PATH or /usr/bin/chromium (Debian: apt-get install chromium).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const fail = (message) => {
  console.error(`test:browser: FAIL: ${message}`);
  process.exitCode = 1;
};

if (!existsSync(join(root, 'dist/esm/index.js'))) {
  console.error('test:browser: dist/esm is missing: run `npm run build` first');
  process.exit(1);
}
if (!existsSync(executablePath)) {
  console.error(`test:browser: no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}

const { launchChromium } = await import('./browser/chromium.mjs');
const { angularFile, buildAngularExample, checkAngularExample } = await import('./browser/angular-example.mjs');
// The Angular example is built first (examples/angular/dist/browser, served under /app/).
await buildAngularExample(root);
const { startTestServer, startResponsesWebSocketServer, textTranscript } = await import(join(root, 'dist/esm/testing/index.js'));
const { demoText, DEMO_ANSWER } = await import(join(root, 'dist/esm/cli/transcripts.js'));

const LANES = {
  summary: 'RxJS composes asynchronous events as streams of values.',
  translate: 'Bonjour, or more formally: bonne matinée.',
  title: 'Every Token, As It Happens',
};

// Several small writes with a pause between them, so the page renders while the body streams.
const api = await startTestServer({ transcripts: { text: demoText() }, chunkSize: 200, chunkDelayMs: 5 });
const ws = await startResponsesWebSocketServer({
  respond: (req) => {
    const lane = String(req.input).replace(/^lane /, '');
    return textTranscript({ responseId: `resp_${lane}`, deltas: (LANES[lane] ?? '?').split(/(?<= )/) });
  },
});

// What the static server may serve: the page, the build, and the dependencies the build imports.
const ALLOWED = ['examples/browser/', 'dist/esm/', 'node_modules/rxjs/', 'node_modules/tslib/', 'node_modules/io-ts/', 'node_modules/fp-ts/', 'node_modules/eventsource-parser/'];
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.map': 'application/json', '.json': 'application/json' };

function resolveFile(urlPath) {
  const rel = normalize(decodeURIComponent(urlPath)).replace(/^[/\\]+/, '');
  if (rel.includes('..') || !ALLOWED.some((p) => rel.split(sep).join('/').startsWith(p))) return undefined;
  const base = join(root, rel);
  // As a dev server does for packages published with extensionless ESM imports (rxjs, fp-ts).
  for (const candidate of [base, `${base}.js`, join(base, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const requests = [];
const web = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  requests.push(url.pathname);
  if (url.pathname.startsWith('/v1/')) {
    // Same-origin API: forward to the loopback server, streaming both ways.
    const upstream = request(`${api.baseURL.replace(/\/v1$/, '')}${req.url}`, { method: req.method, headers: { ...req.headers, host: `127.0.0.1:${api.port}` } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
    return;
  }
  const file = angularFile(root, url.pathname) ?? resolveFile(url.pathname);
  if (!file) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`not found: ${url.pathname}`);
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(readFileSync(file));
});
await new Promise((resolve) => web.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${web.address().port}`;

const browser = await launchChromium(executablePath);
const started = Date.now();
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  // ERR_ABORTED is the library cancelling a body it has finished with (it stops at the terminal event).
  page.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(`${origin}/examples/browser/index.html?ws=${encodeURIComponent(ws.url)}`);
  await page.waitForFunction(() => /^(done|error)/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 30000 }).catch(() => undefined);

  const result = await page.evaluate(() => ({
    status: document.getElementById('status')?.textContent,
    answer: document.getElementById('answer')?.textContent,
    renders: Number(document.getElementById('answer')?.dataset.renders ?? 0),
    parts: document.getElementById('parts')?.textContent,
    lanes: Object.fromEntries([...document.querySelectorAll('.lane')].map((p) => [p.id.replace(/^lane-/, ''), p.querySelector('span')?.textContent])),
    userAgent: navigator.userAgent,
  }));
  const checks = [
    [result.status === 'done', `status is "done" (got ${JSON.stringify(result.status)})`],
    [result.answer === DEMO_ANSWER, `the answer on the page is the streamed text (got ${JSON.stringify(result.answer)})`],
    [result.renders > 1, `the text was rendered as it arrived (${result.renders} renders)`],
    [result.parts === `part 0.0 done: ${DEMO_ANSWER.length} characters`, `accumulateText reported the finished part (got ${JSON.stringify(result.parts)})`],
    [JSON.stringify(result.lanes) === JSON.stringify(LANES), `each lane shows its own answer (got ${JSON.stringify(result.lanes)})`],
    [ws.counters.connections === 1 && ws.counters.received['response.create'] === 3, `one WebSocket carried the three lanes (${ws.counters.connections} connections, ${ws.counters.received['response.create'] ?? 0} creates)`],
    [api.requests.length === 1 && api.requests[0].outcome === 'completed', 'one POST /v1/responses, read to its end'],
    [problems.length === 0, `no page errors (${problems.join('; ') || 'none'})`],
  ];
  checks.push(...(await checkAngularExample({ browser, origin, api, expected: DEMO_ANSWER, root })));
  for (const [ok, what] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  const failed = checks.filter(([ok]) => !ok).length;
  console.log(`test:browser: ${checks.length - failed}/${checks.length} checks passed in ${Date.now() - started} ms (${result.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0] ?? 'chromium'})`);
  if (failed > 0) fail(`${failed} check(s) failed`);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
} finally {
  await browser.close();
  web.closeAllConnections();
  web.close();
  await Promise.all([api.close(), ws.close()]);
}

// The gateway's EventSource resume (issue 16): its own servers, page (examples/browser-gateway/) and Chromium.
const { gatewayEventSource } = await import('./browser/gateway-eventsource.mjs');
for (const failure of await gatewayEventSource({ root, executablePath })) fail(failure);
