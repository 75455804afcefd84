// Who a request is: the default (the caller's own `Authorization`, forwarded upstream, its hash the owner of
// its streams) or the application's `authorize`. Upstream credentials never leave this module but in headers.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ResponsesStreamConfig } from '../lib/http/transports.js';
import { answerSecrets, maskingFetch } from './answer-masking.js';
import { GatewayHttpError, isGatewayHttpError } from './errors.js';
import type { GatewayCaller, ResolvedGatewayOptions } from './options.js';

/** A caller as the routes use it: its owner and the upstream config made for it. */
export interface Caller {
  readonly owner: string;
  /** Headers that carry the caller's upstream credentials (and organisation / project), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Client headers passed upstream with the credentials (the SDK's organisation, project and beta choices). */
const PASSED = ['openai-organization', 'openai-project', 'openai-beta'];

/** The owner of streams started with this credential: a hash, so the log never holds a key. */
export function ownerOf(authorization: string): string {
  return createHash('sha256').update(authorization).digest('hex').slice(0, 32);
}

function passed(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED) {
    const v = req.headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

/** The caller of `req`, or a 401 / the application's own refusal. */
export async function callerOf(req: IncomingMessage, options: ResolvedGatewayOptions): Promise<Caller> {
  if (!options.authorize) {
    const authorization = req.headers.authorization;
    if (typeof authorization !== 'string' || authorization.trim() === '') {
      throw new GatewayHttpError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", { type: 'invalid_request_error', code: 'missing_api_key' });
    }
    const headers = passed(req);
    headers['authorization'] = authorization.trim();
    return { owner: ownerOf(authorization.trim()), headers };
  }
  let caller: GatewayCaller;
  try {
    caller = await options.authorize(req);
  } catch (e) {
    if (isGatewayHttpError(e)) throw e;
    // The application's error may hold anything: it is not echoed.
    throw new GatewayHttpError(401, 'The request was not authorized.', { type: 'authentication_error' });
  }
  if (typeof caller?.owner !== 'string') throw new GatewayHttpError(500, 'authorize() returned no owner.');
  const headers = passed(req);
  for (const [k, v] of Object.entries(caller.headers ?? {})) headers[k.toLowerCase()] = v;
  const key = caller.apiKey ?? options.upstreamKey;
  if (key) headers['authorization'] = `Bearer ${key}`;
  return { owner: caller.owner, headers };
}

/**
 * The config of the library's transports for this caller: the credentials in headers, no key from the environment.
 * `keepRawData`: each event keeps its `data:` text (a stream the gateway records forwards it as it came).
 */
export function upstreamConfig(caller: Caller, options: ResolvedGatewayOptions, keepRawData = false): ResponsesStreamConfig {
  return {
    baseURL: options.baseURL,
    // '' rather than undefined: the transports would otherwise fall back to this process's OPENAI_API_KEY.
    apiKey: '',
    headers: { ...caller.headers },
    // The upstream's answers masked before the transports read them: an echo of a key is never decoded or recorded.
    fetch: maskingFetch(options.upstream, answerSecrets(options.upstreamKey, caller.headers)),
    validate: 'off',
    errorEvents: 'value',
    keepRawData,
    // The deltas it records and forwards as they came are not parsed (their text is checked as JSON all the same).
    relayDeltas: keepRawData,
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
  };
}
