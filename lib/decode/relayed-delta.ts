// A relay's fast path over a Responses delta (the gateway's upstream, where a delta is only forwarded and recorded
// as it came). JSON.parse of a text delta (~170 characters, eight fields) cost ~0.6 µs and some 300 bytes of
// objects, a tenth of the gateway's CPU per event in bulk; the one expression below checks the same text in
// ~0.15 µs and makes nothing. What it accepts is JSON (a subset of its grammar: one flat object whose values are
// strings, numbers, literals or `[]`), so no malformed text passes that JSON.parse would refuse. Anything else (a
// nested value, spaces, another key order) takes JSON.parse as before.
import { keepRawData, rawDataOf } from './raw-data.js';

const STRING = String.raw`"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})[^"\\\u0000-\u001f]*)*"`;
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const VALUE = `(?:${STRING}|${NUMBER}|\\[\\]|true|false|null)`;
/** A field besides `type` and `sequence_number`, neither of which may come again (JSON.parse keeps the last of a repeated key), nor `response` / `response_id` (where the tracker learns a stream's id). */
const FIELD = `,"(?!(?:type|sequence_number|response|response_id)")[a-z_]+":${VALUE}`;
/**
 * `type` first (a delta's: `response.….delta`, never a terminal or an error type), `sequence_number` anywhere after
 * it (OpenAI sends it last; an integer of at most 15 digits: exact as a double), and flat fields.
 */
const FLAT_DELTA = new RegExp(`^\\{"type":"response\\.[a-z_]+(?:\\.[a-z_]+)*\\.delta"(?:${FIELD})*,"sequence_number":(?:0|[1-9]\\d{0,14})(?:${FIELD})*\\}$`);
/** Where the type starts: after `{"type":"`. */
const TYPE_AT = 9;
/** The key before the number: in a text FLAT_DELTA accepts, only there (in a string, a quote after `…number` would end it, and no string value is followed by `:`). */
const SEQUENCE_KEY = '"sequence_number":';

/**
 * A delta that was not parsed: its `type` and `sequence_number` are its own fields; its other documented fields
 * (`delta`, `item_id`, …) are read from its text when first asked, and `JSON.stringify` gives its text's object. A
 * copy (`{ ...e }`) holds the two fields only: this is for a relay, which forwards the text (`rawDataOf`).
 */
export class RelayedDelta {
  #parsed: Record<string, unknown> | undefined = undefined;

  constructor(
    readonly type: string,
    readonly sequence_number: number,
  ) {}

  /** The object its text holds (parsed once). */
  toJSON(): Record<string, unknown> {
    return (this.#parsed ??= JSON.parse(rawDataOf(this) ?? '{}') as Record<string, unknown>);
  }
}

/** The documented deltas' fields besides `type` and `sequence_number`: each read from the text when asked. */
for (const key of ['delta', 'item_id', 'output_index', 'content_index', 'summary_index', 'command_index', 'logprobs', 'obfuscation']) {
  Object.defineProperty(RelayedDelta.prototype, key, {
    get(this: RelayedDelta): unknown {
      return this.toJSON()[key];
    },
    configurable: true,
  });
}

/** The last type met: a run of deltas has one, and its string is reused instead of cut from each text. */
let lastType = 'response.output_text.delta';

/**
 * The delta `data` holds, when it is a flat one (see FLAT_DELTA) whose `event:` name, if any, is its type; else
 * `undefined` (parse it). It keeps `data` as its text (`rawDataOf`): its other fields are read from there.
 */
export function relayedDelta(data: string, name: string | undefined): RelayedDelta | undefined {
  if (!FLAT_DELTA.test(data)) return undefined;
  let type = lastType;
  if (!(data.startsWith(type, TYPE_AT) && data.charCodeAt(TYPE_AT + type.length) === 0x22)) {
    // A copy: a part of `data` would keep the network chunk it was cut from alive while it is the last type.
    type = (' ' + data.slice(TYPE_AT, data.indexOf('"', TYPE_AT))).slice(1);
    lastType = type;
  }
  if (name !== undefined && name !== type) return undefined;
  let n = 0;
  for (let i = data.indexOf(SEQUENCE_KEY, TYPE_AT + type.length) + SEQUENCE_KEY.length, c = data.charCodeAt(i); c >= 0x30 && c <= 0x39; c = data.charCodeAt(++i)) n = n * 10 + (c - 0x30);
  const delta = new RelayedDelta(type, n);
  keepRawData(delta, data);
  return delta;
}
