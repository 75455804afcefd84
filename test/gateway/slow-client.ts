// What the log-failure suites share: a client that reads nothing until told (its socket pushes back on the
// gateway), the gateway's side of its response, the frames a direct stream of the upstream's events is made of,
// a log that fails at a chosen point with a Redis outage's words, and the check that none of them reach a client.
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { EventLogError } from '../../lib/errors';
import type { EventLog } from '../../lib/log/types';
import type { Harness } from './helpers';

/** A long answer: `n` words of 60 characters (each event's frame is about 400 bytes). */
export const longAnswer = (n: number): string => Array.from({ length: n }, (_, i) => `${String(i).padStart(6, '0')}${'x'.repeat(53)} `).join('').trimEnd();

/** Waits (polling) until `ok()`; no assumption on how long it takes, only an upper bound to fail with. */
export async function until(ok: () => boolean, what: string, ms = 150_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The gateway's side of each request, by path, in order: what it holds for a client (`writableLength`). */
export function servedBy(h: Harness): (path: string) => ServerResponse[] {
  const served = new Map<string, ServerResponse[]>();
  h.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    served.set(path, [...(served.get(path) ?? []), res]);
  });
  return (path) => served.get(path) ?? [];
}

/** A client that reads nothing yet: the answer's headers have come, its body waits in paused sockets. */
export async function slowClient(url: string, auth: string, body: Record<string, unknown>): Promise<IncomingMessage> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(new URL(url), { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  res.pause();
  return res;
}

/** Reads the rest of a (paused) answer to its end. */
export async function readAll(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  res.on('data', (c: string) => (text += c));
  res.resume();
  await new Promise<void>((resolve, reject) => {
    res.on('end', resolve);
    res.on('error', reject);
  });
  return text;
}

/** A GET, read to its end: status and body. */
export async function get(url: string, auth: string): Promise<{ status: number; text: string }> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request(new URL(url), { headers: { authorization: auth } }, resolve).on('error', reject).end();
  });
  return { status: res.statusCode ?? 0, text: await readAll(res) };
}

/** The SSE frame of one upstream event, as a direct stream of it (and the gateway) writes it. */
export const frameOf = (e: Record<string, unknown>): string => `id: ${String(e['sequence_number'])}\nevent: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`;

/** What an outage of the log's store says: Redis's own words, which no client may ever see. */
export const REDIS_WORDS = ['ECONNREFUSED', 'maxRetriesPerRequest', 'Connection is closed', 'OOM', 'Redis', 'redis', '127.0.0.1:', 'maxEvents', 'maxBytes', 'would hold', 'event_log_error', 'unavailable:', 'limit:'];

/** Fails the test if any of {@link REDIS_WORDS} is in `text` (an error event, a JSON error body). */
export function expectNoInternals(text: string): void {
  for (const word of REDIS_WORDS) expect({ word, found: text.includes(word) }).toEqual({ word, found: false });
}

/** The `event: error` frames of an SSE text, parsed. */
export const errorEvents = (text: string): Array<Record<string, unknown>> =>
  [...text.matchAll(/^event: error\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

export interface Outage {
  readonly log: EventLog;
  /** Whether the outage has begun. */
  readonly failed: boolean;
  /** Events the log took before it began. */
  readonly stored: number;
}

/**
 * `inner`, until an append would take it past `afterEvents` events in all (or `when()` says so at an append):
 * from then on every call fails (`only: 'appends'`: every append), as a Redis that went away (or refuses
 * writes: OOM) does, with Redis's words in the error.
 */
export function outageAfter(inner: EventLog, afterEvents: number, when: () => boolean = () => false, only?: 'appends'): Outage {
  let failed = false;
  let stored = 0;
  const error = (): EventLogError => new EventLogError('unavailable', 'Redis: connect ECONNREFUSED 127.0.0.1:6379; Connection is closed.; OOM command not allowed');
  const guard = <T>(f: () => Promise<T>): Promise<T> => (failed && only === undefined ? Promise.reject(error()) : f());
  const log: EventLog = {
    acquire: (s, ms) => guard(() => inner.acquire(s, ms)),
    renew: (s, t, ms) => guard(() => inner.renew(s, t, ms)),
    release: (s, t) => guard(() => inner.release(s, t)),
    append: (s, t, events) => {
      if (!failed && (stored + events.length > afterEvents || when())) failed = true;
      if (failed) return Promise.reject(error());
      stored += events.length;
      return inner.append(s, t, events);
    },
    read: (s, after, limit) => guard(() => inner.read(s, after, limit)),
    wait: (s, after, ms, signal) => guard(() => inner.wait(s, after, ms, signal)),
    state: (s) => guard(() => inner.state(s)),
    cancel: (s) => guard(() => inner.cancel(s)),
    close: () => inner.close(),
  };
  return {
    log,
    get failed() {
      return failed;
    },
    get stored() {
      return stored;
    },
  };
}
