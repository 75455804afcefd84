// Part of `npm run test:browser` (issue 16): a browser's own EventSource follows a response through the
// gateway, the gateway side drops the connection mid-answer, EventSource reconnects by itself with
// `Last-Event-ID`, and the page renders the whole answer exactly once.
//
// On loopback: the fake provider (paced, so the answer is still being generated when the drop happens)
// behind createGateway (dist/esm), mounted in one node:http server that also serves examples/browser-gateway/,
// so the page reaches the gateway on its own origin. The handler is wrapped: the first
// GET /v1/responses/{id}?stream=true has its socket destroyed right after its DROP_AFTER_DELTAS-th text delta
// reached the socket (later writes to it are dropped, as on a dead connection), and every stream GET's
// `Last-Event-ID` header is recorded.
//
// Auth: a browser's EventSource cannot set headers, so there is no `Authorization` to hash into an owner.
// The gateway's `authorize(req)` option takes the user from a session cookie (same-origin: fetch and
// EventSource both send it) or, for clients that cannot carry cookies, an `access_token` query parameter (it
// ends up in access logs: prefer the cookie); the upstream key stays in the gateway (`upstream.apiKey`).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { launchChromium } from './chromium.mjs';

const PAGE = 'examples/browser-gateway/';
const ALLOWED = [PAGE, 'dist/esm/', 'node_modules/rxjs/', 'node_modules/tslib/', 'node_modules/io-ts/', 'node_modules/fp-ts/', 'node_modules/eventsource-parser/'];
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.map': 'application/json', '.json': 'application/json' };

/** Deltas the first EventSource connection delivers before its socket is destroyed. */
const DROP_AFTER_DELTAS = 4;
/** Sixty words, one delta each, 80 ms apart: the upstream is still generating when the browser reconnects (~3 s later). */
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}${i % 7 === 6 ? '.' : ''}`).join(' ');
const COOKIE = 'rx_session';
const UPSTREAM_KEY = `sk-upstream-${randomBytes(8).toString('hex')}`;

function cookieOf(req, name) {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function resolveFile(root, urlPath) {
  const rel = normalize(decodeURIComponent(urlPath)).replace(/^[/\\]+/, '');
  if (rel.includes('..') || !ALLOWED.some((p) => rel.split(sep).join('/').startsWith(p))) return undefined;
  const base = join(root, rel);
  for (const candidate of [base, `${base}.js`, join(base, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The sequence number in one written SSE frame, if the frame is an event. */
const frameId = (text) => {
  const m = /^id: (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * Destroys the socket of `res` once `afterDeltas` text deltas have been written and flushed to it; writes
 * after that one are swallowed, so the last event the client can have is exactly the one recorded in `drop`.
 */
function dropAfter(res, afterDeltas, drop) {
  const write = res.write;
  let deltas = 0;
  res.write = function (chunk, encoding, callback) {
    if (drop.lastId !== undefined) return true; // the connection is dead from here on
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (!/^event: response\.output_text\.delta$/m.test(text) || ++deltas < afterDeltas) return write.call(this, chunk, encoding, callback);
    drop.lastId = frameId(text);
    const cb = typeof encoding === 'function' ? encoding : callback;
    return write.call(this, chunk, typeof encoding === 'string' ? encoding : 'utf8', (err) => {
      drop.at = Date.now();
      res.socket?.destroy();
      cb?.(err);
    });
  };
}

/** Reads an SSE body to its end: each event's id and type. */
async function readEvents(response) {
  const text = await response.text();
  return text.split(/\n\n/).filter((b) => /^event: /m.test(b)).map((b) => ({ id: frameId(b), type: /^event: (.*)$/m.exec(b)?.[1] }));
}

/**
 * Runs the test. `browser`: a playwright Browser to open a context in (else Chromium is launched from
 * `executablePath`). Returns the failed checks (empty when all passed); prints one line per check.
 */
export async function gatewayEventSource({ root, browser, executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', log = console.log }) {
  const { createGateway, GatewayHttpError } = await import(join(root, 'dist/esm/gateway/index.js'));
  const { startFakeProvider } = await import(join(root, 'dist/esm/testing/index.js'));

  const sessions = new Map([[randomBytes(16).toString('hex'), 'user_alice'], [randomBytes(16).toString('hex'), 'user_bob']]);
  const [aliceToken, bobToken] = [...sessions.keys()];
  const provider = await startFakeProvider({ answer: ANSWER, eventDelayMs: 80, apiKey: UPSTREAM_KEY });
  const gateway = createGateway({
    upstream: { baseURL: provider.baseURL, apiKey: UPSTREAM_KEY },
    authorize: (req) => {
      const token = cookieOf(req, COOKIE) ?? new URL(req.url ?? '/', 'http://gateway.invalid').searchParams.get('access_token');
      const owner = token ? sessions.get(token) : undefined;
      if (!owner) throw new GatewayHttpError(401, 'Sign in first: no valid session.', { type: 'authentication_error', code: 'no_session' });
      return { owner };
    },
  });

  const streamGets = []; // every GET /v1/responses/{id}?stream=true the gateway got: its Last-Event-ID
  const drop = { lastId: undefined, at: undefined };
  let armed = false;
  const web = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/v1/')) {
      if (req.method === 'GET' && /^\/v1\/responses\/[^/]+$/.test(url.pathname) && url.searchParams.get('stream') === 'true' && cookieOf(req, COOKIE)) {
        streamGets.push({ lastEventId: req.headers['last-event-id'] ?? null, at: Date.now(), upstreamLive: gateway.metrics().streams.producers > 0 });
        if (!armed) {
          armed = true;
          dropAfter(res, DROP_AFTER_DELTAS, drop);
        }
      }
      gateway(req, res);
      return;
    }
    const file = resolveFile(root, url.pathname);
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

  let ownBrowser;
  let context;
  const failures = [];
  const started = Date.now();
  try {
    if (!browser) browser = ownBrowser = await launchChromium(executablePath);
    context = await browser.newContext();
    // The session a sign-in would have set: HttpOnly, so the page's script never sees it.
    await context.addCookies([{ name: COOKIE, value: aliceToken, url: origin, httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    const problems = [];
    const failed = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('requestfailed', (r) => failed.push({ url: r.url(), error: r.failure()?.errorText ?? '' }));
    await page.goto(`${origin}/${PAGE}index.html`);
    await page.waitForFunction(() => /^(done|error)/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 60000 }).catch(() => undefined);
    const result = await page.evaluate(() => ({
      status: document.getElementById('status')?.textContent,
      answer: document.getElementById('answer')?.textContent,
      renders: Number(document.getElementById('answer')?.dataset.renders ?? 0),
      trace: JSON.parse(document.getElementById('trace')?.textContent || '{}'),
    }));

    const id = result.trace.responseId;
    const recorded = provider.responses.get(id);
    const upstreamSeqs = (recorded?.events ?? []).map((e) => e.sequence_number);
    const upstreamText = (recorded?.events ?? []).filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    const seen = result.trace.events ?? [];
    const seqs = seen.map((e) => e.sequence_number);
    const [first, second] = result.trace.connections ?? [];
    const lastSeq = upstreamSeqs[upstreamSeqs.length - 1];
    // Expected: the dropped connection's cut body (once, as a failed request and Chromium's console line about
    // it), and aborts (the POST let go after its first event, the EventSource closed at the terminal event).
    const CUT = 'net::ERR_INCOMPLETE_CHUNKED_ENCODING';
    const cuts = failed.filter((f) => f.error === CUT && f.url.includes(`/v1/responses/${id}?`));
    const unexpected = [
      ...problems.filter((p) => p !== `console: Failed to load resource: ${CUT}`),
      ...failed.filter((f) => f.error !== 'net::ERR_ABORTED' && !cuts.includes(f)).map((f) => `${f.url} ${f.error}`),
    ];

    // Outside the browser, the same stream with the query token, another user's, and none.
    const resumeURL = (q) => `${origin}/v1/responses/${encodeURIComponent(id)}?stream=true${q}`;
    const [none, bob, alice] = await Promise.all([
      fetch(resumeURL('')),
      fetch(resumeURL(`&access_token=${bobToken}`)),
      fetch(resumeURL(`&access_token=${aliceToken}&starting_after=${drop.lastId}`)),
    ]);
    const [noneBody, bobBody, aliceEvents] = await Promise.all([none.text(), bob.text(), alice.ok ? readEvents(alice) : alice.text().then(() => [])]);

    const checks = [
      [result.status === 'done', `the page is done (status ${JSON.stringify(result.status)})`],
      [recorded !== undefined && upstreamText === ANSWER, `the upstream streamed the answer under the page's response id (${id})`],
      [result.answer === upstreamText && upstreamText.length > 0, `the page rendered the whole answer exactly once (${result.answer?.length ?? 0} of ${upstreamText.length} characters${result.answer !== upstreamText ? `: got ${JSON.stringify(result.answer?.slice(0, 120))}…` : ''})`],
      [result.trace.deltas === upstreamText && result.trace.rewrites === 0, `no text arrived twice or was shown twice (deltas received: ${result.trace.deltas?.length ?? 0} characters; ${result.trace.rewrites} rewrites of the shown text)`],
      [JSON.stringify(seqs) === JSON.stringify(upstreamSeqs), `every upstream event reached EventSource once, in order (${seqs.length} of ${upstreamSeqs.length}${seqs.length !== new Set(seqs).size ? ', with duplicates' : ''})`],
      [seen.at(-1)?.type === 'response.completed' && seen.at(-1)?.sequence_number === lastSeq, `the terminal event was seen (last: ${seen.at(-1)?.type ?? 'none'})`],
      [seen.every((e) => e.lastEventId === String(e.sequence_number)), "each event's SSE id is its sequence number"],
      [drop.lastId !== undefined && drop.lastId < lastSeq, `the gateway dropped the first connection mid-answer (after event ${drop.lastId} of ${lastSeq})`],
      [(result.trace.connections ?? []).length === 2 && (result.trace.errors ?? []).length === 1 && result.trace.errors[0].readyState === 0, `EventSource saw one drop and reconnected by itself (${(result.trace.connections ?? []).length} connections, errors ${JSON.stringify(result.trace.errors)})`],
      // The browser resumes from what it dispatched: on a cut connection Chromium may drop the last bytes that
      // had reached it (seen now and then), so the header is compared with the page's own last id, which must
      // be at or before the last event the gateway wrote.
      [first !== undefined && first.deltas >= 1 && Number(first.lastEventId) <= drop.lastId && (second?.deltas ?? 0) >= 1, `text arrived on both connections (${first?.deltas ?? 0} deltas up to event ${first?.lastEventId ?? '-'} of the ${drop.lastId} written before the drop, then ${second?.deltas ?? 0})`],
      [streamGets.length === 2 && streamGets[0].lastEventId === null && streamGets[1].lastEventId === first?.lastEventId, `the gateway got the reconnect with Last-Event-ID: ${first?.lastEventId} (stream GETs' Last-Event-ID: ${JSON.stringify(streamGets.map((g) => g.lastEventId))})`],
      [result.renders > 1, `the text was rendered as it arrived (${result.renders} renders)`],
      [provider.requests.filter((r) => r.method === 'POST').length === 1 && provider.requests.every((r) => r.method === 'POST' && r.url === '/v1/responses'), `one upstream request, with the gateway's key; the resume came from the gateway's log (${JSON.stringify(provider.requests)})`],
      [none.status === 401 && !noneBody.includes(UPSTREAM_KEY), `no session: 401 (got ${none.status})`],
      [bob.status === 404 && !bobBody.includes(ANSWER.slice(0, 20)), `another user's session (query token): 404 (got ${bob.status})`],
      [alice.status === 200 && JSON.stringify(aliceEvents.map((e) => e.id)) === JSON.stringify(upstreamSeqs.filter((s) => s > drop.lastId)), `the query token resumes after starting_after=${drop.lastId} (${alice.status}, ${aliceEvents.length} events)`],
      [cuts.length === 1 && unexpected.length === 0, `no page errors; the one failed request is the dropped stream (${cuts.length} cut; unexpected: ${unexpected.join('; ') || 'none'})`],
    ];
    for (const [ok, what] of checks) {
      log(`${ok ? 'ok  ' : 'FAIL'} gateway EventSource: ${what}`);
      if (!ok) failures.push(what);
    }
    log(`test:browser: gateway EventSource: ${checks.length - failures.length}/${checks.length} checks passed in ${Date.now() - started} ms (reconnected ${streamGets[1] ? `${streamGets[1].at - drop.at} ms after the drop, the upstream ${streamGets[1].upstreamLive ? 'still streaming' : 'already done'}` : '?'})`);
  } catch (e) {
    failures.push(`gateway EventSource: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await context?.close().catch(() => undefined);
    await ownBrowser?.close().catch(() => undefined);
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
    await gateway.close();
    await provider.close();
  }
  return failures;
}
