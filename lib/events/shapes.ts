// The hidden classes of parsed events, kept alive between streams (not exported from the package).
//
// JSON.parse gives each object the hidden class (map) reached by its keys, in order, from a root shared by every
// parse; V8 holds those transitions weakly. Once no object of a map is alive (a full GC between two streams of a
// service that is otherwise idle), the map is collected, the next stream's events get fresh maps, and every
// optimised function that checked for the old ones is thrown away ("weak objects") or deoptimises at the
// first new event ("wrong map"): the whole per-event chain (decoder, RxJS subscribers, operators) then runs
// unoptimised until TurboFan has compiled it again, a large share of a short stream.
//
// One skeleton per event type (and type of the item or part it carries) keeps the maps alive: the first such
// event, parsed again from a copy with the same keys in the same order (nested objects too, an array by one
// element of each `type` in it) and every string emptied, every number made 0 or 0.5 (the same
// representation), so nothing of a user's stream is kept. The skeletons are one of the warm-up objects
// (lib/warmup.ts): none is kept when warm-ups are off, and turning them off lets go of those kept.
import { keepWarm } from '../warmup.js';

/** The most event types kept (a stream sends a few dozen; a hostile one cannot grow this further). */
const MAX_TYPES = 256;
/** Deeper than this, a value is kept as `null` (events nest 3–4 levels where it matters). */
const MAX_DEPTH = 8;
/** The most keys of one object copied (an object wider than this is not an event's own shape). */
const MAX_KEYS = 64;
/** The most elements of one array copied (one per distinct `type`). */
const MAX_ELEMENTS = 8;

const newSkeletons = (): Map<string, unknown> => new Map<string, unknown>();

/** Keeps the shape of `event` (a freshly parsed JSON object) unless one of its kind is already kept. */
export function keepShape(type: string, event: Readonly<Record<string, unknown>>): void {
  const inner = typeOf(event['item']) ?? typeOf(event['part']);
  const key = inner === undefined ? type : `${type} ${inner}`;
  const kept = keepWarm('event skeletons', newSkeletons);
  if (kept === undefined || kept.has(key) || kept.size >= MAX_TYPES) return;
  kept.set(key, JSON.parse(skeleton(event, 0)));
}

function typeOf(v: unknown): string | undefined {
  const t = typeof v === 'object' && v !== null ? (v as { type?: unknown }).type : undefined;
  return typeof t === 'string' ? t : undefined;
}

/** JSON text of `v` with the same structure and representations, and no content. */
function skeleton(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      return '""';
    case 'number':
      // A small integer is a Smi field, anything else a double one.
      return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? '0' : '0.5';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null || depth >= MAX_DEPTH) return 'null';
      if (Array.isArray(v)) return `[${elements(v, depth + 1)}]`;
      const parts: string[] = [];
      for (const key in v) {
        if (parts.length >= MAX_KEYS) break;
        parts.push(`${JSON.stringify(key)}:${skeleton((v as Record<string, unknown>)[key], depth + 1)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}

/** Skeletons of one element of each `type` in an array (of the first one when they have none). */
function elements(list: readonly unknown[], depth: number): string {
  const seen: Array<string | undefined> = [];
  const parts: string[] = [];
  for (let i = 0; i < list.length && parts.length < MAX_ELEMENTS; i++) {
    const t = typeOf(list[i]);
    if (seen.includes(t)) continue;
    seen.push(t);
    parts.push(skeleton(list[i], depth));
  }
  return parts.join(',');
}

/** @internal The kept skeletons, by event type (and item or part type): for tests. */
export function keptShapes(): ReadonlyMap<string, unknown> {
  return keepWarm('event skeletons', newSkeletons) ?? new Map<string, unknown>();
}
