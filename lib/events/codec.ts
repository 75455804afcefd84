import * as t from 'io-ts';

/** A property that may be absent (or `undefined`) on the wire. Cheaper than `t.partial` + `t.intersection`. */
export function optional<C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | undefined, t.OutputOf<C> | undefined, unknown> {
  return new t.Type(
    `${codec.name}?`,
    (u): u is t.TypeOf<C> | undefined => u === undefined || codec.is(u),
    (u, c) => (u === undefined ? t.success(undefined) : codec.validate(u, c)),
    (a) => (a === undefined ? undefined : codec.encode(a)),
  );
}

/** `T | null`, as the API sends for cleared fields. */
export function nullable<C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown> {
  return new t.Type(
    `${codec.name} | null`,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  );
}

/** Any JSON object; its keys are not checked (used for payloads the library only passes along). */
export const JsonObject = new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  'object',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u, c) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? t.success(u as Record<string, unknown>) : t.failure(u, c)),
  t.identity,
);

/** Optional `sequence_number`: some providers omit it, so the decoder accepts streams without one. */
export const sequenceNumber = optional(t.number);

/** What a lookup table holds: any codec, by the part of it that checks. */
export interface Checker {
  readonly name: string;
  validate(u: unknown, c: t.Context): t.Validation<unknown>;
  is(u: unknown): boolean;
}

/**
 * A codec that dispatches on the `type` tag through a lookup table: one member is tried, never all of them.
 * A tag not in the table is accepted as-is when `unknownPasses` is set (forward compatibility).
 */
export function taggedUnion<A extends { type: string }>(
  name: string,
  table: ReadonlyMap<string, Checker>,
  unknownPasses: boolean,
): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(
    name,
    (u): u is A => {
      if (typeof u !== 'object' || u === null) return false;
      const tag = (u as { type?: unknown }).type;
      if (typeof tag !== 'string') return false;
      const codec = table.get(tag);
      return codec ? codec.is(u) : unknownPasses;
    },
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, `${name} must be an object`);
      const tag = (u as { type?: unknown }).type;
      if (typeof tag !== 'string') return t.failure(tag, t.appendContext(c, 'type', t.string, tag), `${name}.type must be a string`);
      const codec = table.get(tag);
      if (codec) return codec.validate(u, c) as t.Validation<A>;
      return unknownPasses ? t.success(u as A) : t.failure(u, c, `unknown ${name} type "${tag}"`);
    },
    t.identity,
  );
}

/** Builds the lookup table of a family of codecs keyed by their literal `type`. */
export function tableOf(entries: Record<string, Checker>): ReadonlyMap<string, Checker> {
  return new Map(Object.entries(entries));
}
