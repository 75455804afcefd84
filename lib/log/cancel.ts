import { NetworkError } from '../errors.js';
import { configSecrets, resolveConfig, type ClientConfig } from '../http/config.js';
import { httpErrorOf } from '../http/request.js';
import { checkResponseId } from '../http/transports.js';
import { redactError } from '../redact.js';
import type { EventLog } from './types.js';

export interface CancelResponseOptions {
  /** The log the stream is recorded in: cancelled alongside the upstream, so that its readers end and its producer is fenced off. */
  readonly log?: EventLog;
  /** The stream's owner in `log`. Default `''`. */
  readonly owner?: string;
}

/**
 * Cancels a (background) response: `POST {baseURL}/responses/{id}/cancel` upstream and, at the same time,
 * `log.cancel`, so that every reader of the stream in the log ends and its producer is fenced off. The log is
 * cancelled whatever the upstream request does; its failure (an `HTTPError`, a `NetworkError`) is thrown once
 * both are done (a failure of the log, `EventLogError`, when the upstream request succeeded).
 * An id that cannot go into a path is refused (`InvalidOptionError`) before anything is sent. Without a `log`,
 * only the upstream is told.
 *
 * The log is an option beside its `owner` (the stream's scope in it), not an argument: the functions that read or
 * write a log take it first (`fromEventLog(log, id)`, `persistTo(log)`), and this one is an HTTP call that tells a
 * log too when it has one.
 *
 * ```ts
 * await cancelResponse(responseId, config, { log, owner: userId });
 * ```
 */
export async function cancelResponse(responseId: string, config?: ClientConfig, options: CancelResponseOptions = {}): Promise<void> {
  const { log } = options;
  const invalid = checkResponseId(responseId);
  if (invalid) throw invalid;
  const resolved = resolveConfig(config);
  const secrets = configSecrets(config);
  const url = `${resolved.baseURL}/responses/${encodeURIComponent(responseId)}/cancel`;
  // The log is cancelled alongside the upstream request, not after it: the readers end even while the
  // provider is slow to answer (or never does, until the caller's signal gives it up).
  let cancelled: Promise<void> | undefined;
  try {
    cancelled = log?.cancel({ responseId, owner: options.owner });
  } catch (e) {
    // A log of the user's that throws instead of rejecting: its failure all the same, the upstream is still told.
    cancelled = Promise.reject(e);
  }
  cancelled?.catch(() => undefined); // awaited below; not an unhandled rejection while the request runs
  let failure: unknown;
  try {
    let res: Response;
    try {
      res = await resolved.fetch(url, { method: 'POST', headers: { ...resolved.headers, accept: 'application/json' }, signal: resolved.signal });
    } catch (e) {
      throw redactError(new NetworkError(`POST ${url} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e }), secrets);
    }
    if (!res.ok) throw await httpErrorOf(res, secrets);
    await res.body?.cancel().catch(() => undefined);
  } catch (e) {
    failure = e;
  }
  await cancelled;
  if (failure !== undefined) throw failure;
}
