import { streamFailure } from './redis-corrupt.js';
import type { RedisLogSettings } from './redis-options.js';
import type { ScriptCall, SendScript } from './redis-script-send.js';
import { APPEND, APPEND_BASE, APPEND_LIVE, APPEND_LIVE_BASE } from './redis-scripts.js';
import { isolated, type Outcome } from './redis-slot-batch.js';
import type { LogScope } from './types.js';

// The appends of one batch (the streams of one turn, of one Cluster slot) as one APPEND call: every stream's
// JSON in one argument (joined once, into one flat string), its keys in KEYS (one per stream on a single Redis)
// and its token, acknowledged and sequence numbers in one more argument for all: a few arguments per stream
// instead of several per event. Each append still gets its own reply; a call that fails midway
// (a script error after it wrote the streams before the failing one) is sent again stream by stream.

export interface PendingAppend {
  readonly scope: LogScope;
  /** The stream's meta, events and end keys. */
  readonly keys: readonly string[];
  /** What they start with (`<keyPrefix>{owner:id}`): the one key per stream of APPEND_BASE. */
  readonly base: string;
  readonly token: number;
  /** The events' marks as APPEND takes them: their sequence numbers, -1 - seq for a terminal one ('4,5,-7'). */
  readonly seqs: string;
  /**
   * Their JSON, joined by '\r' or one string per event (a packed append: joined only with the rest of its call's).
   * Once a call carried it, a slice of that call's argument (the argument lives as long as the call anyway; the
   * append's own strings need not).
   */
  text: string | readonly string[];
  /** The length of `text` joined by '\r'. */
  readonly size: number;
  /** How many events. */
  readonly events: number;
  /** The highest sequence number this log was told is stored on this stream ('' for none). */
  readonly acked: string;
}

/** What APPEND answered for one stream: ['ok'], or its failure ('fenced' | 'limit' | 'lost' | 'corrupt', then two more). */
export type AppendReply = readonly string[];

/** Most events one call carries, and most bytes of JSON: a longer script blocks Redis longer. */
export const MAX_EVENTS = 2000;
export const MAX_BYTES = 1 << 20;

const OK: AppendReply = ['ok'];
/** Every stream that went well shares this outcome (no object per stream). */
const DONE: Outcome<AppendReply> = { ok: true, value: OK };

/**
 * Sends one batch, resolving with each append's reply or failure; `live` (a Cluster): publishing the entries too
 * (APPEND_LIVE); `oneKey` (a single Redis): naming each stream by its key base alone (APPEND_BASE).
 */
export function appendSender(send: SendScript, settings: RedisLogSettings, live: boolean, oneKey: boolean): (batch: readonly PendingAppend[]) => Promise<readonly Outcome<AppendReply>[]> {
  const { liveTtlMs, ttlMs, maxEvents, maxBytes } = settings;
  const script = oneKey ? (live ? APPEND_LIVE_BASE : APPEND_BASE) : live ? APPEND_LIVE : APPEND;

  // Not in `call`: an async function keeps its locals through the await, and the call's list of JSON pieces
  // would outlive their joined copy by a round trip (and be promoted by the collector).
  const build = (batch: readonly PendingAppend[]): ScriptCall => {
    const keys: string[] = [];
    // Every stream's JSON in one list, joined once into the call's argument: a stream's events by '\r', the
    // streams by '\n' (APPEND finds a stream's end in one search).
    const texts: string[] = [];
    const specs: string[] = [];
    for (const a of batch) {
      if (oneKey) keys.push(a.base);
      else keys.push(a.keys[0]!, a.keys[1]!, a.keys[2]!);
      const t = a.text;
      if (a.events === 0) {
        // nothing to carry
      } else {
        if (texts.length > 0) texts.push('\n');
        if (typeof t === 'string') texts.push(t);
        else {
          texts.push(t[0]!);
          for (let i = 1; i < t.length; i++) texts.push('\r', t[i]!);
        }
      }
      specs.push(`${a.token}:${a.acked}:${a.seqs}`);
    }
    const all = texts.length === 1 ? texts[0]! : texts.join('');
    let at = 0;
    for (const a of batch) {
      if (a.events === 0) continue;
      const end = at + a.size;
      if (typeof a.text !== 'string' || texts.length > 1) a.text = all.slice(at, end);
      at = end + 1;
    }
    return { script, keys, args: [liveTtlMs, ttlMs, maxEvents, maxBytes, all, specs.length === 1 ? specs[0]! : specs.join(' ')], durable: true };
  };

  const call = async (batch: readonly PendingAppend[]): Promise<Outcome<AppendReply>[]> => {
    const r = (await send(build(batch), batch[0]!.scope)) as string[];
    // Only the appends that failed: position (from 1), then APPEND_ONE's reply.
    const outcomes: Outcome<AppendReply>[] = new Array<Outcome<AppendReply>>(batch.length).fill(DONE);
    for (let k = 0; k + 3 < r.length; k += 4) outcomes[Number(r[k]) - 1] = { ok: true, value: r.slice(k + 1, k + 4) };
    return outcomes;
  };

  return (batch) =>
    isolated(
      batch,
      call,
      async (one) => {
        try {
          return ((await call([one]))[0] as { value: AppendReply }).value;
        } catch (e) {
          throw streamFailure(e, one.scope, one.keys, script);
        }
      },
    );
}
