// The `data:` text an event was decoded from, kept for a relay (the gateway) that forwards events as they
// came instead of serialising each again, and for a log that charges an event its size. A non-enumerable
// symbol property: a copy (`{ ...e, x }`, Object.assign, structuredClone) does not carry it, so an edited
// copy is never forwarded with a stale text; JSON and deep-equality ignore it. (A WeakMap cost as much as
// the serialisation it saves once it held the events a log keeps.)
const RAW = Symbol('openai-rx.rawData');

/** Records `data` as the text `event` was parsed from (it must be exactly that: `JSON.parse(data)` gave `event`). */
export function keepRawData(event: object, data: string): void {
  // A copy of its own: `data` is cut from the network chunk, and V8's sliced string would keep that whole chunk
  // (other events, comments) alive for as long as the event is kept, past what a log charges it (its length).
  // Concatenating then slicing flattens into a fresh string of just `data` (plus one char).
  Object.defineProperty(event, RAW, { value: (' ' + data).slice(1) });
}

/**
 * The `data:` text `event` was decoded from, when its decoder kept it (`keepRawData: true`) and it is that
 * very object; else `undefined` (then serialise the event). It may hold line breaks (multi-line `data:`).
 */
export function rawDataOf(event: object): string | undefined {
  return (event as { [RAW]?: string })[RAW];
}
