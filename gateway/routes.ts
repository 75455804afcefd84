// The gateway's route table: the routes it implements, matched on a normalised path, and the routes an
// operator passes through on purpose (`passThrough`). Anything else is a 404 and never reaches the upstream:
// the upstream key can do everything its organisation can, and a gateway that forwarded every path would lend
// that to every caller.
import { InvalidOptionError } from '../lib/errors.js';
import { GatewayHttpError } from './errors.js';
import { pathOf, type NormalisedTarget } from './paths.js';

/** The routes the gateway implements. */
export type RouteName =
  | 'healthz' | 'metrics'
  | 'responses.create' | 'responses.retrieve' | 'responses.delete' | 'responses.cancel' | 'responses.input_items'
  | 'responses.input_tokens' | 'responses.compact'
  | 'chat.create' | 'models.list' | 'models.retrieve'
  | 'conversations.create' | 'conversations.retrieve' | 'conversations.update' | 'conversations.delete'
  | 'conversations.items.list' | 'conversations.items.create' | 'conversations.items.retrieve' | 'conversations.items.delete'
  | 'streams.response';

/** What an id in a path names: the caller must own it (with `authorize`). */
export type OwnedKind = 'response' | 'conversation';

/** Each route: its method and path pattern (`{…}` is one segment), as the access log names it. */
const TABLE: ReadonlyArray<readonly [RouteName, string]> = [
  ['healthz', 'GET /healthz'],
  ['healthz', 'HEAD /healthz'],
  ['metrics', 'GET /metrics'],
  ['responses.create', 'POST /v1/responses'],
  ['responses.input_tokens', 'POST /v1/responses/input_tokens'],
  ['responses.compact', 'POST /v1/responses/compact'],
  ['responses.retrieve', 'GET /v1/responses/{response_id}'],
  ['responses.delete', 'DELETE /v1/responses/{response_id}'],
  ['responses.cancel', 'POST /v1/responses/{response_id}/cancel'],
  ['responses.input_items', 'GET /v1/responses/{response_id}/input_items'],
  ['chat.create', 'POST /v1/chat/completions'],
  ['models.list', 'GET /v1/models'],
  ['models.retrieve', 'GET /v1/models/{model}'],
  ['conversations.create', 'POST /v1/conversations'],
  ['conversations.retrieve', 'GET /v1/conversations/{conversation_id}'],
  ['conversations.update', 'POST /v1/conversations/{conversation_id}'],
  ['conversations.delete', 'DELETE /v1/conversations/{conversation_id}'],
  ['conversations.items.list', 'GET /v1/conversations/{conversation_id}/items'],
  ['conversations.items.create', 'POST /v1/conversations/{conversation_id}/items'],
  ['conversations.items.retrieve', 'GET /v1/conversations/{conversation_id}/items/{item_id}'],
  ['conversations.items.delete', 'DELETE /v1/conversations/{conversation_id}/items/{item_id}'],
  // A recorded response as a read-only Durable Stream: every other method is matched too, to be answered 405.
  ['streams.response', 'GET /v1/stream/responses/{response_id}'],
  ['streams.response', 'HEAD /v1/stream/responses/{response_id}'],
  ['streams.response', '* /v1/stream/responses/{response_id}'],
];

const OWNED: Readonly<Record<string, OwnedKind>> = { response_id: 'response', conversation_id: 'conversation' };

/** Paths whose ids the gateway checks ownership of (and its own streams): never passed through, whatever a pattern says. */
const OWNED_ROOTS = new Set(['responses', 'conversations', 'stream']);

interface Pattern {
  readonly method: string;
  readonly segments: readonly string[];
  readonly text: string;
}

const parse = (text: string): Pattern => {
  const [method, path] = text.split(' ') as [string, string];
  return { method, segments: path.split('/').filter((s) => s !== ''), text };
};

const COMPILED = TABLE.map(([name, text]) => ({ name, ...parse(text) }));

/** A request matched to a route. */
export interface MatchedRoute {
  /** The route implemented, or `'passThrough'` for an operator's pattern. */
  readonly name: RouteName | 'passThrough';
  /** The pattern matched (`GET /v1/responses/{response_id}`, or the operator's): what the access log names. */
  readonly pattern: string;
  /** The `{…}` segments, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Ids in the path the caller must own, in order. */
  readonly owned: ReadonlyArray<{ readonly kind: OwnedKind; readonly id: string; readonly param: string }>;
  /** The path under the upstream's base URL (without `/v1`), re-encoded from the segments, with the query. */
  readonly upstreamPath: string;
  /** The query, parsed. */
  readonly query: URLSearchParams;
}

function matchPattern(p: Pattern, method: string, segments: readonly string[]): Record<string, string> | undefined {
  if (p.method !== method && p.method !== '*') return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.segments.length; i++) {
    const want = p.segments[i]!;
    if (want === '**') return segments.length > i ? params : undefined; // a last `**`: one segment or more
    const got = segments[i];
    if (got === undefined) return undefined;
    if (want === '*') continue;
    if (want.startsWith('{')) params[want.slice(1, -1)] = got;
    else if (want !== got) return undefined;
  }
  return p.segments.length === segments.length ? params : undefined;
}

/** The route of a normalised request: the gateway's own first, then the operator's pass-through patterns, else a 404. */
export function matchRoute(method: string, target: NormalisedTarget, passThrough: readonly PassThroughPattern[]): MatchedRoute {
  const { segments } = target;
  const upstreamPath = `${pathOf(segments.slice(1))}${target.search}`;
  for (const r of COMPILED) {
    const params = matchPattern(r, method, segments);
    if (!params) continue;
    const owned = Object.entries(params).flatMap(([param, id]) => (OWNED[param] ? [{ kind: OWNED[param]!, id, param }] : []));
    return { name: r.name, pattern: r.text, params, owned, upstreamPath, query: target.query };
  }
  if (segments[0] === 'v1' && !OWNED_ROOTS.has(segments[1] ?? '')) {
    for (const p of passThrough) if (matchPattern(p, method, segments)) return { name: 'passThrough', pattern: p.text, params: {}, owned: [], upstreamPath, query: target.query };
  }
  throw new GatewayHttpError(404, `No route for ${method} on this path: the gateway serves the OpenAI API routes it implements under /v1/.`, { code: 'unknown_url' });
}

/** An operator's pass-through pattern, checked. */
export type PassThroughPattern = Pattern;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', '*']);
const LITERAL = /^[A-Za-z0-9_.~:-]+$/;

/**
 * `passThrough` as given (`'GET /v1/files'`, `'POST /v1/files'`, `'GET /v1/vector_stores/*'`, `'* /v1/batches/**'`):
 * a method (or `*`), then a path under `/v1/` whose segments are literals, `*` (one segment) or a last `**`
 * (one or more). A malformed pattern, or one under `/v1/responses` or `/v1/conversations` (whose ids the gateway
 * checks), is a `InvalidOptionError` at creation.
 */
export function parsePassThrough(given: readonly string[] | undefined): PassThroughPattern[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) throw new InvalidOptionError('passThrough', 'expected an array of "METHOD /v1/path" patterns');
  return given.map((text, i) => {
    const bad = (why: string): never => {
      throw new InvalidOptionError(`passThrough[${i}]`, `${JSON.stringify(String(text).slice(0, 100))}: ${why}`);
    };
    if (typeof text !== 'string') return bad('expected a string such as "GET /v1/files"');
    const m = /^([A-Z]+|\*) (\/v1(?:\/[^/\s]+)+)$/.exec(text);
    if (!m) return bad('expected "METHOD /v1/path", e.g. "GET /v1/files" or "GET /v1/vector_stores/*"');
    if (!METHODS.has(m[1]!)) bad(`unknown method ${m[1]}`);
    const p = parse(text);
    p.segments.forEach((s, j) => {
      if (s === '**' ? j !== p.segments.length - 1 : s !== '*' && (!LITERAL.test(s) || s === '.' || s === '..')) bad(`segment "${s}" is not a literal, "*" or a last "**"`);
    });
    if (p.segments.length < 2) bad('name a resource under /v1/ (e.g. /v1/files)');
    // `/v1/*` and `/v1/**` are allowed: they never match these, checked again on every request.
    if (OWNED_ROOTS.has(p.segments[1]!)) bad('/v1/responses, /v1/conversations and /v1/stream are the gateway\'s own (with ownership checks), never passed through');
    return p;
  });
}
