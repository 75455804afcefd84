// The Angular part of the browser test (scripts/test-browser.mjs): builds examples/angular/ with Angular's own
// application builder (@angular/build, run through Architect as the Angular CLI does), then drives the chat box
// in headless Chromium against the loopback server behind the page's origin: the answer appears progressively
// and completely, and the stop button closes the upstream request. A screenshot of the finished page is kept
// at examples/angular/dist/chat-finished.png (dist/ is ignored by git; CI keeps the file with the run).
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Builds the example into examples/angular/dist/browser (served under /app/). */
export function buildAngularExample(root) {
  const cwd = join(root, 'examples/angular');
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/@angular-devkit/architect/bin/cli.js'), 'chat:build'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`the Angular build exited with ${code}:\n${out.slice(-4000)}`))));
  });
}

/** Where a request path under /app/ is in the build, else undefined. */
export function angularFile(root, urlPath) {
  if (!urlPath.startsWith('/app/')) return undefined;
  const rest = urlPath.slice('/app/'.length);
  if (rest.includes('..')) return undefined;
  const file = join(root, 'examples/angular/dist/browser', rest === '' ? 'index.html' : rest);
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

/**
 * Runs the chat box; returns [ok, what] checks. `api` is the loopback test server behind `${origin}/v1`.
 * `expected` is the answer its transcript streams.
 */
export async function checkAngularExample({ browser, origin, api, expected, root }) {
  const page = await browser.newPage({ viewport: { width: 900, height: 560 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  const checks = [];
  try {
    await page.goto(`${origin}/app/`);
    await page.waitForSelector('#send:not([disabled])', { timeout: 30000 });
    // Every text the answer shows, as the page renders it.
    await page.evaluate(() => {
      const answer = document.getElementById('answer');
      window.__texts = [];
      new MutationObserver(() => window.__texts.push(answer.textContent)).observe(answer, { childList: true, characterData: true, subtree: true });
    });
    const first = api.requests.length;
    await page.click('#send');
    await page.waitForFunction(() => /^(done|error|cancelled)$/.test(document.getElementById('status')?.dataset.status ?? ''), undefined, { timeout: 30000 });
    const run = await page.evaluate(() => ({
      status: document.getElementById('status')?.dataset.status,
      answer: document.getElementById('answer')?.textContent,
      texts: window.__texts,
    }));
    const distinct = new Set(run.texts).size;
    const growing = run.texts.every((t, i) => i === 0 || t.startsWith(run.texts[i - 1]));
    checks.push(
      [run.status === 'done', `angular: status is "done" (got ${JSON.stringify(run.status)})`],
      [run.answer === expected, `angular: the whole answer is on the page (got ${JSON.stringify(run.answer)})`],
      [distinct > 5 && growing, `angular: it appeared progressively, paced by smoothText (${distinct} renders, each extending the last: ${growing})`],
      [api.requests[first]?.path === '/v1/responses' && api.requests[first]?.body?.input === 'Why reactive streams?', 'angular: one POST /v1/responses through the page origin, with the prompt'],
    );
    await page.screenshot({ path: join(root, 'examples/angular/dist/chat-finished.png') });

    // Stop: the upstream answer stalls part-way; the button must close that request, not just hide it.
    api.inject({ type: 'stall', afterEvents: 10 });
    const stalled = api.requests.length;
    await page.click('#send');
    await page.waitForFunction(() => (document.getElementById('answer')?.textContent ?? '').length > 0, undefined, { timeout: 30000 });
    await page.click('#stop');
    const closed = await Promise.race([api.waitForClose(stalled), new Promise((r) => setTimeout(() => r(undefined), 15000))]);
    const status = await page.evaluate(() => document.getElementById('status')?.dataset.status);
    checks.push(
      [closed?.outcome === 'client-closed', `angular: stop closed the upstream request (outcome ${closed?.outcome ?? 'still open after 15 s'})`],
      [status === 'cancelled', `angular: status is "cancelled" after stop (got ${JSON.stringify(status)})`],
      [problems.length === 0, `angular: no page errors (${problems.join('; ') || 'none'})`],
    );
  } finally {
    await page.close();
  }
  return checks;
}
