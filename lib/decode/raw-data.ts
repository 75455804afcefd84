// The `data:` text an event was decoded from, kept for a relay (the gateway) that forwards events as they
// came instead of serialising each again, and for a log that charges an event its size. A private field,
// stamped onto the parsed object: a copy (`{ ...e, x }`, Object.assign, structuredClone) does not carry it, so
// an edited copy is never forwarded with a stale text; JSON, keys and deep-equality do not see it. (A WeakMap
// cost as much as the serialisation it saves once it held the events a log keeps; a non-enumerable symbol
// property through Object.defineProperty, a runtime call per event, cost 4-5% of the gateway's bulk run.)

/** A base whose constructor returns the object it is given: a subclass's private field is then added to that object. */
class Given {
  constructor(o: object) {
    return o;
  }
}

class RawData extends Given {
  readonly #raw: string;
  private constructor(event: object, raw: string) {
    super(event);
    this.#raw = raw;
  }

  static keep(event: object, raw: string): void {
    // Kept once: the first text stays (a field cannot be added twice).
    if (!(#raw in event)) new RawData(event, raw);
  }

  static of(event: object): string | undefined {
    return typeof event === 'object' && event !== null && #raw in event ? (event as RawData).#raw : undefined;
  }
}

/** Records `data` as the text `event` was parsed from (it must be exactly that: `JSON.parse(data)` gave `event`). */
export function keepRawData(event: object, data: string): void {
  // A copy of its own: `data` is cut from the network chunk, and V8's sliced string would keep that whole chunk
  // (other events, comments) alive for as long as the event is kept, past what a log charges it (its length).
  // Kept with the space that follows `data:` in a frame: the concatenation is flattened (a fresh string of just
  // the space and `data`) by reading a character of it, and the garbage collector then drops the concatenation's
  // own node. (`(' ' + data).slice(1)` kept a sliced string of it as well, one more object per event a log keeps.)
  const spaced = ' ' + data;
  // (The read is used, so that no compiler drops it: a character code is never negative.)
  if (!(spaced.charCodeAt(1) < 0)) RawData.keep(event, spaced);
}

/**
 * The `data:` text `event` was decoded from, when its decoder kept it (`keepRawData: true`) and it is that
 * very object; else `undefined` (then serialise the event). It may hold line breaks (multi-line `data:`).
 */
export function rawDataOf(event: object): string | undefined {
  return RawData.of(event)?.slice(1);
}

/** @internal `rawDataOf(event)` after one space (how an SSE frame writes it after `data:`), as kept: no copy made. */
export function spacedRawDataOf(event: object): string | undefined {
  return RawData.of(event);
}
