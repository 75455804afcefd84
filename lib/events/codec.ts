import * as t from 'io-ts';

/** A property that may be absent (or `undefined`) on the wire; inside `struct` its key is optional (`?:`). */
export class OptionalType<C extends t.Mixed> extends t.Type<t.TypeOf<C> | undefined, t.OutputOf<C> | undefined, unknown> {
  readonly optional = true as const;
  constructor(readonly inner: C) {
    super(
      `${inner.name}?`,
      (u): u is t.TypeOf<C> | undefined => u === undefined || inner.is(u),
      (u, c) => (u === undefined ? t.success(undefined) : inner.validate(u, c)),
      (a) => (a === undefined ? undefined : inner.encode(a)),
    );
  }
}
export function optional<C extends t.Mixed>(codec: C): OptionalType<C> {
  return new OptionalType(codec);
}

type StructProps = Record<string, t.Mixed>;
type RequiredKeys<P extends StructProps> = { [K in keyof P]: P[K] extends { readonly optional: true } ? never : K }[keyof P];
type OptionalKeys<P extends StructProps> = Exclude<keyof P, RequiredKeys<P>>;
/** The TypeScript type of a `struct`: keys of `optional(…)` codecs are optional. */
export type StructOf<P extends StructProps> = { [K in RequiredKeys<P>]: t.TypeOf<P[K]> } & { [K in OptionalKeys<P>]?: t.TypeOf<P[K]> } extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

/** An object codec like `t.type`, but its optional keys are `?:` and a valid input is returned as it is (unknown keys kept, no copy). */
export class StructType<P extends StructProps> extends t.Type<StructOf<P>, StructOf<P>, unknown> {
  constructor(name: string, readonly props: P) {
    const entries = Object.entries(props);
    const is = (u: unknown): u is StructOf<P> => {
      if (!isRecord(u)) return false;
      for (let i = 0; i < entries.length; i++) {
        const [k, codec] = entries[i] as [string, t.Mixed];
        if (!codec.is(u[k])) return false;
      }
      return true;
    };
    super(
      name,
      is,
      (u, c) => {
        // Hot path: the allocation-free `is` checks; contexts are built only to report a failure.
        if (is(u)) return t.success(u);
        if (!isRecord(u)) return t.failure(u, c, `${name} must be an object`);
        let errors: t.Errors | undefined;
        for (const [k, codec] of entries) {
          const v = u[k];
          const r = codec.validate(v, t.appendContext(c, k, codec, v));
          if (r._tag === 'Left') (errors ??= []).push(...r.left);
        }
        return errors ? t.failures(errors) : t.success(u as StructOf<P>);
      },
      t.identity,
    );
  }
}
export function struct<P extends StructProps>(props: P, name: string): StructType<P> {
  return new StructType(name, props);
}

function isRecord(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
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
