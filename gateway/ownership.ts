// Who owns what an id can name. With an application's `authorize` every caller may share the gateway's
// upstream key, so the upstream cannot tell them apart: a response or conversation id (in a path, or in a
// body's `previous_response_id` / `conversation`) is answered only for the owner it was recorded for, and
// anyone else gets exactly what an unknown id gets. Without `authorize` the caller's own key goes upstream,
// and the upstream decides.
//
// The records live in the event log, so every instance of a fleet sees them: a response's stream (recorded by
// a streamed create, registered by a background create) or an ownership record, a stream with no events under
// `response/<id>` or `conversation/<id>` (a name no response id can take: `/` is refused in ids), kept as long
// as the log keeps a stream that never ended (`liveTtlMs`).
import { checkResponseId } from '../lib/http/transports.js';
import type { LogScope } from '../lib/log/types.js';
import type { Caller } from './auth.js';
import type { GatewayContext } from './context.js';
import { GatewayHttpError, invalidRequest } from './errors.js';
import type { OwnedKind } from './routes.js';

const RECORD: Readonly<Record<OwnedKind, string>> = { response: 'response/', conversation: 'conversation/' };

/** The 404 of an id that is unknown, or another owner's: the same answer, nothing to tell them apart. */
export function notOwned(kind: OwnedKind, id: string, param: string): GatewayHttpError {
  const shown = id.slice(0, 64);
  const message = kind === 'response' ? `No response found with id '${shown}'.` : `No conversation found with id '${shown}'.`;
  return new GatewayHttpError(404, message, { type: 'invalid_request_error', param });
}

/** Whether `owner` was recorded as the owner of the id (a response's stream, or an ownership record). */
export async function owns(ctx: GatewayContext, owner: string, kind: OwnedKind, id: string): Promise<boolean> {
  // Only plausible ids are ever recorded; anything else (`..`, `:`-free junk, 300 characters) is unknown.
  if (checkResponseId(id)) return false;
  if (kind === 'response' && (await ctx.log.state({ responseId: id, owner })) !== undefined) return true;
  return (await ctx.log.state({ responseId: `${RECORD[kind]}${id}`, owner })) !== undefined;
}

/**
 * Records `owner` as the id's owner (again: a conversation's record is renewed on each use, so it lasts
 * `liveTtlMs` past its last use). A log that fails leaves it unrecorded: what was created upstream is answered
 * all the same (the owner's later requests naming it get the unknown id's 404).
 */
export async function recordOwner(ctx: GatewayContext, owner: string, kind: OwnedKind, id: string): Promise<void> {
  if (checkResponseId(id)) return;
  const scope: LogScope = { responseId: `${RECORD[kind]}${id}`, owner };
  try {
    const lease = await ctx.log.acquire(scope, ctx.options.leaseMs);
    await ctx.log.release(scope, lease.token);
  } catch {
    // lease_held (recorded this very moment by another request) or the log unavailable: nothing to add.
  }
}

/** Throws the unknown id's 404 unless the caller owns the id (always passes without `authorize`). */
export async function checkOwner(ctx: GatewayContext, caller: Caller, kind: OwnedKind, id: string, param: string): Promise<void> {
  if (!ctx.options.authorize) return;
  if (!(await owns(ctx, caller.owner, kind, id))) throw notOwned(kind, id, param);
  if (kind === 'conversation') await recordOwner(ctx, caller.owner, kind, id);
}

/** An id a request body names, with the parameter it came in. */
export interface BodyId {
  readonly kind: OwnedKind;
  readonly id: string;
  readonly param: string;
}

/** Top-level fields that name a response (the API's, and spellings a lenient upstream might also read). */
const RESPONSE_FIELDS = ['previous_response_id', 'response_id'];
/** Fields that name a conversation: a string id or `{ id }`. */
const CONVERSATION_FIELDS = ['conversation', 'conversation_id'];

const given = (v: unknown): boolean => v !== undefined && v !== null;
const own = (o: Record<string, unknown>, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

/**
 * The response and conversation ids a JSON body names: `previous_response_id`, `conversation` (a string or
 * `{ id }`), and the `response_id` / `conversation_id` spellings. One of another type is a 400 naming it
 * (never forwarded for an upstream to read in its own way).
 */
export function idsInBody(body: Record<string, unknown>): BodyId[] {
  // A `__proto__` key is an own property once parsed, but a JavaScript upstream merging the body could make its
  // fields the body's own: refused, as in no API body.
  if (Object.prototype.hasOwnProperty.call(body, '__proto__')) throw invalidRequest("Unrecognized request argument supplied: __proto__", '__proto__', 'unknown_parameter');
  const out: BodyId[] = [];
  for (const param of RESPONSE_FIELDS) {
    const v = own(body, param);
    if (!given(v)) continue;
    if (typeof v !== 'string') throw invalidRequest(`Invalid type for '${param}': expected a string.`, param, 'invalid_type');
    out.push({ kind: 'response', id: v, param });
  }
  for (const param of CONVERSATION_FIELDS) {
    const v = own(body, param);
    if (!given(v)) continue;
    if (typeof v === 'string') out.push({ kind: 'conversation', id: v, param });
    else if (typeof v === 'object' && !Array.isArray(v) && typeof own(v as Record<string, unknown>, 'id') === 'string') {
      out.push({ kind: 'conversation', id: own(v as Record<string, unknown>, 'id') as string, param: `${param}.id` });
    } else throw invalidRequest(`Invalid type for '${param}': expected a conversation id or an object with its 'id'.`, param, 'invalid_type');
  }
  return out;
}

/**
 * The first item reference in a body's `input` or `items` (`{ type: 'item_reference', id }`, or a bare `{ id }`,
 * which the API reads alike): the upstream resolves it in the whole organisation, and the gateway records
 * no item ids, so it cannot tell whose item it is.
 */
function itemReference(body: Record<string, unknown>): { id: string; param: string } | undefined {
  for (const field of ['input', 'items']) {
    const list = own(body, field);
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (typeof item !== 'object' || item === null) continue;
      const type = own(item as Record<string, unknown>, 'type');
      const id = own(item as Record<string, unknown>, 'id');
      const bare = type === undefined && own(item as Record<string, unknown>, 'role') === undefined && own(item as Record<string, unknown>, 'content') === undefined;
      if ((type === 'item_reference' || bare) && id !== undefined) return { id: String(id), param: `${field}[${i}].id` };
    }
  }
  return undefined;
}

/**
 * Every id the body names must be the caller's (with `authorize`); else the unknown id's 404, nothing sent
 * upstream. An item reference is refused alike (404): no item is recorded for anyone.
 */
export async function checkBody(ctx: GatewayContext, caller: Caller, body: Record<string, unknown>): Promise<void> {
  const ids = idsInBody(body);
  if (!ctx.options.authorize) return;
  for (const { kind, id, param } of ids) await checkOwner(ctx, caller, kind, id, param);
  const ref = itemReference(body);
  if (ref) throw new GatewayHttpError(404, `No item found with id '${ref.id.slice(0, 64)}'.`, { type: 'invalid_request_error', param: ref.param });
}

/**
 * Query parameters named like those fields (`?previous_response_id=…`, `?conversation[id]=…`, each value of a
 * repeated one): no route of the API takes them, but a lenient upstream might read them as the body's. Checked
 * alike (with `authorize`), on every route.
 */
export async function checkQuery(ctx: GatewayContext, caller: Caller, query: URLSearchParams): Promise<void> {
  if (!ctx.options.authorize) return;
  for (const [key, value] of query) {
    const base = key.replace(/\[.*$/, '');
    const kind: OwnedKind | undefined = RESPONSE_FIELDS.includes(base) ? 'response' : CONVERSATION_FIELDS.includes(base) ? 'conversation' : undefined;
    if (kind) await checkOwner(ctx, caller, kind, value, key);
  }
}

/**
 * What a create's answer made: the `kind` it creates (its `id`, when `object` is that kind or absent), and for a
 * response the conversation it belongs to.
 */
export function createdIds(value: unknown, kind: OwnedKind): Array<{ kind: OwnedKind; id: string }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const v = value as Record<string, unknown>;
  const id = own(v, 'id');
  const object = own(v, 'object');
  if (typeof id !== 'string' || (object !== undefined && object !== kind)) return [];
  const out: Array<{ kind: OwnedKind; id: string }> = [{ kind, id }];
  const conversation = own(v, 'conversation');
  const cid = typeof conversation === 'object' && conversation !== null ? own(conversation as Record<string, unknown>, 'id') : conversation;
  if (kind === 'response' && typeof cid === 'string') out.push({ kind: 'conversation', id: cid });
  return out;
}
