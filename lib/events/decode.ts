import type * as t from 'io-ts';
import type { Checker } from './codec.js';
import { DecodeError } from '../errors.js';
import { fastChecks, type FastCheck } from './fast-checks.js';
import { keepShape } from './shapes.js';

export type ValidateMode = 'strict' | 'off';
/** @internal Every `ValidateMode`, for the check of the option. */
export const VALIDATE_MODES: readonly ValidateMode[] = ['strict', 'off'];

/** The first io-ts failure as a dotted field path and a reason (one line, never the schema). */
export function describeFailure(errors: t.Errors): { path: string; reason: string } {
  const first = errors[0];
  if (!first) return { path: '', reason: 'invalid' };
  const keys = first.context.map((c) => c.key).filter((k) => k !== '');
  const last = first.context[first.context.length - 1];
  const got = first.value === undefined ? 'nothing' : typeof first.value === 'object' ? (first.value === null ? 'null' : Array.isArray(first.value) ? 'array' : 'object') : typeof first.value;
  const reason = first.message ?? `expected ${last?.type.name ?? 'a value'}, got ${got}`;
  return { path: keys.join('.'), reason };
}

// The last event's type, table and codec. Events come in runs of one type: the codec and the kept shapes are
// looked up when the type changes, not per event (a Map lookup hashes the type, a fresh string each event).
let lastType = '';
let lastTable: ReadonlyMap<string, Checker> | undefined = undefined;
let lastCodec: Checker | undefined = undefined;
let lastFast: FastCheck | undefined = undefined;

function isObject(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/**
 * Turns a parsed payload into an event: a documented `type` is checked by its own codec (looked up, not
 * searched), an undocumented one passes as it is. The returned object is the parsed one, unknown keys kept.
 */
export function decodeTyped<A extends { type: string }>(
  u: unknown,
  table: ReadonlyMap<string, Checker>,
  validate: ValidateMode,
  eventName?: string,
): A | { type: string; [key: string]: unknown } {
  if (!isObject(u)) throw new DecodeError('payload is not a JSON object', eventName);
  let type = u['type'];
  if (typeof type !== 'string') {
    if (eventName === undefined || table.has(eventName)) {
      throw new DecodeError('missing string "type"', eventName, seq(u), 'type');
    }
    // An undocumented event whose data has no `type`: named after its `event:` line (by Object.assign: `{ ...u, type }`
    // would give each such event a hidden class of its own in V8 11, Node 20).
    return Object.assign({}, u, { type: eventName });
  }
  if (eventName !== undefined && eventName !== type) {
    throw new DecodeError(`event name ${JSON.stringify(eventName)} does not match data.type`, type, seq(u), 'type');
  }
  if (type !== lastType || table !== lastTable) {
    lastType = type;
    lastTable = table;
    lastCodec = table.get(type);
    lastFast = lastCodec === undefined ? undefined : fastChecks.get(lastCodec);
    keepShape(type, u);
  }
  if (validate === 'strict') {
    const codec = lastCodec;
    // A hot event type's hand-written check (it accepts what the codec accepts) stands in for the codec's `is`.
    if (codec && !(lastFast !== undefined ? lastFast(u) : codec.is(u))) {
      // Only a failing event pays for the detailed pass that names the field.
      const r = codec.validate(u, [{ key: '', type: codec as unknown as t.Decoder<unknown, unknown>, actual: u }]);
      if (r._tag === 'Left') {
        const { path, reason } = describeFailure(r.left);
        throw new DecodeError(reason, type, seq(u), path);
      }
    }
  }
  return u as A;
}

function seq(u: Record<string, unknown>): number | undefined {
  const s = u['sequence_number'];
  return typeof s === 'number' ? s : undefined;
}
