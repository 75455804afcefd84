import { catchError, Observable, throwError, timeout, type Subscription } from 'rxjs';
import { HTTPError, IdleTimeoutError, NetworkError } from '../errors.js';
import { redactError, secretsOf } from '../redact.js';
import { apiKeyOf, resolveConfig, type ClientConfig } from './config.js';

const MAX_ERROR_BODY = 64 * 1024;

/**
 * A cold Observable of one HTTP stream: nothing is sent before subscribe, the 2xx body goes through `decode`,
 * a non-2xx answer becomes an `HTTPError` with the API's code and message. Unsubscribing (or the caller's
 * signal) aborts the request and cancels the body; the abort is tied to the subscription, not to the
 * arrival of the headers.
 */
function fetchStream<T>(method: 'GET' | 'POST', path: string, body: unknown, config: ClientConfig | undefined, decode: (res: Response) => Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let resolved;
    try {
      resolved = resolveConfig(config);
    } catch (e) {
      subscriber.error(e);
      return undefined;
    }
    const controller = new AbortController();
    const outer = resolved.signal;
    const onOuterAbort = () => controller.abort();
    if (outer) {
      if (outer.aborted) controller.abort();
      else outer.addEventListener('abort', onOuterAbort, { once: true });
    }
    const headers = { ...resolved.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let inner: Subscription | undefined;
    resolved
      .fetch(`${resolved.baseURL}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      })
      .then(async (res) => {
        if (subscriber.closed) {
          await res.body?.cancel().catch(() => undefined);
          return;
        }
        if (!res.ok) {
          subscriber.error(await httpErrorOf(res));
          return;
        }
        inner = decode(res).subscribe(subscriber);
      })
      .catch((e: unknown) => {
        if (subscriber.closed) return;
        const aborted = controller.signal.aborted;
        // The fetch error's message can quote the URL; keep only its kind.
        subscriber.error(new NetworkError(aborted ? 'the request was aborted' : `the request failed (${e instanceof Error ? e.name : 'unknown'})`));
      });
    return () => {
      outer?.removeEventListener('abort', onOuterAbort);
      inner?.unsubscribe();
      controller.abort();
    };
  });
}

/** The typed error of a non-2xx answer, from its JSON body (read up to 64 KiB). */
export async function httpErrorOf(res: Response): Promise<HTTPError> {
  let text = '';
  try {
    text = (await res.text()).slice(0, MAX_ERROR_BODY);
  } catch {
    // no body: status alone
  }
  let code: string | null | undefined;
  let message: string | undefined;
  let type: string | null | undefined;
  let param: string | null | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: string | null; message?: string; type?: string | null; param?: string | null } };
    const err = parsed.error;
    if (err && typeof err === 'object') {
      code = typeof err.code === 'string' ? err.code : null;
      message = typeof err.message === 'string' ? err.message : undefined;
      type = typeof err.type === 'string' ? err.type : null;
      param = typeof err.param === 'string' ? err.param : null;
    }
  } catch {
    message = text ? text.slice(0, 200) : undefined;
  }
  return new HTTPError(res.status, code, message, res.headers.get('x-request-id'), type, param, retryAfterOf(res.headers));
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date, in ms; `undefined` when absent or unreadable. */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null) return undefined;
  const seconds = Number(ra);
  if (ra.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** `request$` then a body decoder, with the optional idle timeout over the decoded stream. */
export function streamOf<T>(
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  config: ClientConfig | undefined,
  decode: (res: Response) => Observable<T>,
): Observable<T> {
  const idle = config?.idleTimeout;
  const events = fetchStream(method, path, body, config, decode);
  const timed = idle === undefined ? events : events.pipe(timeout({ each: idle, with: () => throwError(() => new IdleTimeoutError(idle)) }));
  // Whatever the server echoed into an error (body, headers, events), the key leaves masked.
  const secrets = secretsOf(apiKeyOf(config));
  return secrets.length === 0 ? timed : timed.pipe(catchError((e: unknown) => throwError(() => redactError(e, secrets))));
}
