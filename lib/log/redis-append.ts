import { EventLogError } from '../errors.js';
import { rawDataOf } from '../decode/raw-data.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { appendSender, MAX_BYTES, MAX_EVENTS, type AppendReply, type PendingAppend } from './redis-append-batch.js';
import { confirmBatcher, type PendingConfirm } from './redis-confirm.js';
import { isCluster, type RedisConnections } from './redis-connection.js';
import { corrupt } from './redis-corrupt.js';
import type { PackedAppend } from './packed.js';
import { fenced } from './redis-lease.js';
import type { RedisLogSettings } from './redis-options.js';
import type { SendScript } from './redis-script-send.js';
import { asStreamError, type SlotBatcher, slotBatcher } from './redis-slot-batch.js';
import { slotOf } from './redis-slot.js';
import { isTerminalEvent } from './scope.js';
import type { EventLog, LogScope } from './types.js';

// The write path of `redisEventLog`: an append is one script (fencing token, replayed sequence numbers,
// limits and expiries checked atomically). The appends of all streams asked for in one turn of the event loop
// share a script call (per hash slot on a Cluster, whose calls of one node go in one pipeline): with many
// streams, each carrying a few events, the calls and round trips do not grow with the number of streams.
// The log remembers, per scope object (a writer keeps one for its stream), the highest sequence number an
// append of it got acknowledged, and the script compares it with what the stream holds: a stream that lost
// acknowledged events (a failover) fails with `lost` instead of being written past the gap.

/** The sequence number an event is stored under; events without a non-negative integer one cannot be placed. */
const placeable = (e: ResponseStreamEvent): boolean => Number.isSafeInteger(e.sequence_number) && (e.sequence_number as number) >= 0;

/**
 * An event's JSON as a writer of the log queues it (lib/log/packed.ts): the upstream's `data:` text when the
 * decoder kept it (the same JSON, not serialised again; as the memory log stores it) and it is one line (the
 * events' JSON is joined by '\r' in a call and stored so), else JSON.stringify's. That answers a tree of the pieces it wrote (a
 * cons string: some nine heap objects for a text delta); read once, V8 flattens it into one string, and the
 * pieces die young instead of waiting for the append with it (a round trip: promoted).
 */
export const encodeFlat = (e: ResponseStreamEvent): string => {
  const raw = rawDataOf(e);
  if (raw !== undefined && raw.indexOf('\n') === -1 && raw.indexOf('\r') === -1) return raw;
  const json = JSON.stringify(e);
  if (typeof json === 'string') json.charCodeAt(0);
  return json;
};

/**
 * An append's marks (sequence numbers, -1 - seq for a terminal one) as APPEND takes them: '4,5,-7', or `lo~hi`
 * for consecutive ones with a terminal one last at most ('4~-7'); and the highest sequence number the append
 * stores once it succeeds (up to the first terminal one; -1 for none).
 */
function marksArg(marks: readonly number[]): { seqs: string; bound: number } {
  let bound = -1;
  let ended = false;
  let consecutive = marks.length > 1;
  for (let i = 0; i < marks.length; i++) {
    const m = marks[i]!;
    const seq = m < 0 ? -1 - m : m;
    if (i > 0 && (marks[i - 1]! < 0 || seq !== marks[i - 1]! + 1)) consecutive = false;
    if (ended) continue;
    if (seq > bound) bound = seq;
    ended = m < 0;
  }
  const seqs = consecutive ? `${marks[0]}~${marks[marks.length - 1]}` : marks.length === 1 ? String(marks[0]) : marks.join(',');
  return { seqs, bound };
}

export function redisAppend(
  conn: RedisConnections,
  send: SendScript,
  keysOf: (scope: LogScope) => string[],
  settings: RedisLogSettings,
): { readonly append: EventLog['append']; readonly appendPacked: PackedAppend['append'] } {
  const { maxEvents, maxBytes } = settings;

  /** What an APPEND answered, as the contract's errors. */
  const appendResult = (scope: LogScope, token: number, r: AppendReply): void => {
    switch (r[0]) {
      case 'fenced':
        throw fenced(scope, token);
      case 'limit': {
        const what = r[1] === 'events' ? `${r[2]} events (maxEvents ${maxEvents})` : `${r[2]} bytes (maxBytes ${maxBytes})`;
        throw new EventLogError('limit', `the stream would hold ${what}`, scope.responseId);
      }
      case 'lost': {
        const held = r[1] === '' ? 'no event' : `events up to sequence_number ${r[1]}`;
        throw new EventLogError('lost', `the stream holds ${held}, but this producer was told events up to ${r[2]} were stored (lost in a failover?)`, scope.responseId);
      }
      case 'corrupt':
        throw corrupt(scope, r[1] ?? '', r[2] ?? '');
    }
  };

  // Per scope object (a writer keeps one for its stream): its keys, its slot (on a Cluster), and the highest
  // sequence number an append of it got acknowledged (-1: none yet).
  interface Known {
    readonly keys: string[];
    /** What the keys start with (the meta key less ':meta'): APPEND_BASE's one key. */
    readonly base: string;
    slot: number;
    acked: number;
    /** `acked` as APPEND takes it ('' for none). */
    ackedArg: string;
  }
  const streams = new WeakMap<LogScope, Known>();
  const knownOf = (scope: LogScope): Known => {
    let k = streams.get(scope);
    if (k === undefined) {
      const keys = keysOf(scope);
      streams.set(scope, (k = { keys, base: keys[0]!.slice(0, -':meta'.length), slot: -1, acked: -1, ackedArg: '' }));
    }
    return k;
  };
  const slotFor = (a: { readonly scope: LogScope; readonly keys: readonly string[] }): number => {
    const k = knownOf(a.scope);
    if (k.slot < 0) k.slot = slotOf(a.keys[0]!);
    return k.slot;
  };

  // Made once the client is known (a Cluster's calls are grouped per slot and publish their entries for the
  // live readers); the log's client never changes.
  let appends: SlotBatcher<PendingAppend, AppendReply> | undefined;
  // With `replicas`: the marks of confirmed appends (lib/log/redis-confirm.ts).
  let confirms: SlotBatcher<PendingConfirm, void> | undefined;
  const batcher = async (scope: LogScope): Promise<SlotBatcher<PendingAppend, AppendReply>> => {
    const c = await conn.timed(conn.client(), scope);
    const cluster = isCluster(c);
    const live = conn.publishes(c);
    const sendBatch = appendSender(send, settings, live, !cluster);
    if (settings.replicas > 0) confirms ??= confirmBatcher(send, live, cluster ? slotFor : undefined);
    return (appends ??= slotBatcher({ slot: cluster ? slotFor : undefined, cost: (a, totals) => void ((totals[0]! += a.events), (totals[1]! += a.size)), max: [MAX_EVENTS, MAX_BYTES], send: sendBatch }));
  };

  /** What is left of an append once its call is built: its reply, its confirmation, what it acknowledges. */
  const settle = async (scope: LogScope, token: number, known: Known, pending: PendingAppend, bound: number): Promise<void> => {
    let r: AppendReply;
    try {
      r = await (appends ?? (await batcher(scope))).add(pending);
    } catch (e) {
      // A failed batch fails each of its appends, each naming its own response.
      throw asStreamError(e, scope);
    }
    appendResult(scope, token, r);
    // Confirmed by `replicas` (the append's WAIT): marked for the readers, and the mark confirmed too.
    if (confirms !== undefined && bound >= 0) {
      try {
        await confirms.add({ scope, keys: known.keys, seq: bound });
      } catch (e) {
        throw asStreamError(e, scope);
      }
    }
    if (bound > known.acked) {
      known.acked = bound;
      known.ackedArg = String(bound);
    }
  };

  // Not an async function: the events are read here, once, and not kept (an async function's parameters live
  // until it settles, and a batch's events would outlive their JSON by a round trip).
  const append: EventLog['append'] = (scope, token, events) => {
    let text = '';
    const marks: number[] = [];
    try {
      conn.ensureOpen(scope);
      for (const e of events) {
        if (!placeable(e)) continue;
        const seq = e.sequence_number as number;
        const json = encodeFlat(e);
        // A terminal event's mark is -1 - seq (as the packed path's: APPEND takes the marks).
        marks.push(isTerminalEvent(e) ? -1 - seq : seq);
        text = marks.length === 1 ? json : `${text}\r${json}`;
      }
    } catch (e) {
      return Promise.reject(e);
    }
    const { seqs, bound } = marksArg(marks);
    const known = knownOf(scope);
    return settle(scope, token, known, { scope, keys: known.keys, base: known.base, token, seqs, text, size: text.length, events: marks.length, acked: known.ackedArg }, bound);
  };

  // A writer's events encoded as they were pushed (lib/log/packed.ts): the same append from their marks and JSON.
  // The marks go as they are, joined once (APPEND reads a negative one as terminal); the JSON is joined only with
  // the rest of its call's (lib/log/redis-append-batch.ts), not first into a string of its own.
  const appendPacked: PackedAppend['append'] = (scope, token, { marks, jsons }) => {
    try {
      conn.ensureOpen(scope);
    } catch (e) {
      return Promise.reject(e);
    }
    // The length of their JSON joined by '\r' (what the call's limit on bytes counts).
    let size = Math.max(0, jsons.length - 1);
    for (let i = 0; i < jsons.length; i++) size += jsons[i]!.length;
    const { seqs, bound } = marksArg(marks);
    const known = knownOf(scope);
    return settle(scope, token, known, { scope, keys: known.keys, base: known.base, token, seqs, text: jsons, size, events: jsons.length, acked: known.ackedArg }, bound);
  };

  return { append, appendPacked };
}
