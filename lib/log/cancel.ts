import { NetworkError } from '../errors.js';
import { configSecrets, resolveConfig, type ClientConfig } from '../http/config.js';
import { httpErrorOf } from '../http/request.js';
import { checkResponseId } from '../http/transports.js';
import { redactError } from '../redact.js';
import type { EventLog } from './types.js';

/**
 * Cancels a (background) response: `POST {baseURL}/responses/{id}/cancel` upstream, then `log.cancel`, so
 * that every reader of the stream in the log ends and its producer is fenced off. The log is cancelled even
 * when the upstream request fails; the upstream failure (an `HTTPError`, a `NetworkError`) is then thrown.
 * An id that cannot go into a path is refused (`InvalidParameterError`) before anything is sent.
 *
 * ```ts
 * await cancelResponse(responseId, config, log, { owner: userId });
 * ```
 */
export async function cancelResponse(responseId: string, config?: ClientConfig, log?: EventLog, options: { readonly owner?: string } = {}): Promise<void> {
  const invalid = checkResponseId(responseId);
  if (invalid) throw invalid;
  const resolved = resolveConfig(config);
  const secrets = configSecrets(config);
  const url = `${resolved.baseURL}/responses/${encodeURIComponent(responseId)}/cancel`;
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
  if (log) await log.cancel({ responseId, owner: options.owner });
  if (failure !== undefined) throw failure;
}
