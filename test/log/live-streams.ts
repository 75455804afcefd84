// Many live streams for the Cluster, failover and restart specs (issue 25): generated model streams (created,
// deltas a few ms apart, completed) persisted by persistTo producers on one log, followed by live fromEventLog
// readers on another log (as another process would), and read again by late readers once they ended. Every
// outcome is checked against what the producer sent: each sequence_number once, in order, the same events.
import { Observable } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { fromEventLog } from '../../lib/log/from-event-log';
import type { EventLog, LogScope } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';
import { collect, type Outcome, sleep } from './takeover-helpers';

/** The producers' lease: long, so that no pause of a busy machine lapses it (a lapsed lease is not what these test). */
export const LEASE_MS = 30_000;

export interface LiveStream {
  readonly id: string;
  /** What the producer sent, in order (grows while it runs). */
  readonly sent: ResponseStreamEvent[];
  /** The highest sequence number of an append the log acknowledged to the producer (-1: none yet). */
  acked: number;
  readonly producer: Promise<Outcome>;
  readonly live: Promise<Outcome>;
}

export interface LiveRun {
  readonly streams: readonly LiveStream[];
  /** Ends every stream (its completed event goes after the delta in progress). */
  end(): void;
}

export interface LiveRunOptions {
  readonly producerLog: EventLog;
  readonly readerLog: EventLog;
  readonly ids: readonly string[];
  /** Between two events of one stream, in ms (each stream jittered by up to 2 ms so that they interleave). */
  readonly paceMs: number;
  /** Deltas per stream; without it, deltas go on until `end()`. */
  readonly deltas?: number;
  /** Told after each append the log acknowledged (the kill "right after an acknowledgement" hooks in here). */
  readonly onAck?: (s: LiveStream) => void;
}

/** A stream as a model sends it: created, then a delta every `paceMs` until `done()` says so, then completed; each event recorded in `sent` as it goes out. */
function modelStream(id: string, paceMs: number, sent: ResponseStreamEvent[], done: (deltas: number) => boolean): Observable<ResponseStreamEvent> {
  return new Observable<ResponseStreamEvent>((subscriber) => {
    let n = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const emit = (e: ResponseStreamEvent): void => {
      sent.push(e);
      subscriber.next(e);
    };
    const step = (): void => {
      if (done(n)) {
        emit(completed(id, n + 1));
        subscriber.complete();
        return;
      }
      n += 1;
      emit(delta(n, `${id}:${n}`));
      timer = setTimeout(step, paceMs);
    };
    emit(created(id));
    timer = setTimeout(step, paceMs);
    return () => clearTimeout(timer);
  });
}

/** `log` whose acknowledged appends are recorded on their stream (and told to `onAck`). */
function ackingLog(log: EventLog, byId: Map<string, LiveStream>, onAck?: (s: LiveStream) => void): EventLog {
  return {
    ...log,
    append: async (scope, token, events) => {
      await log.append(scope, token, events);
      const s = byId.get(scope.responseId);
      if (!s) return;
      for (const e of events) s.acked = Math.max(s.acked, e.sequence_number as number);
      onAck?.(s);
    },
  };
}

/** Starts the live readers (before their streams exist), then the producers. */
export function startLiveRun(options: LiveRunOptions): LiveRun {
  let ended = false;
  const byId = new Map<string, LiveStream>();
  const producerLog = ackingLog(options.producerLog, byId, options.onAck);
  const streams = options.ids.map((id, i) => {
    const sent: ResponseStreamEvent[] = [];
    const live = collect(fromEventLog(options.readerLog, id, { notFoundTimeoutMs: 120_000 }));
    const done = (n: number): boolean => (options.deltas === undefined ? ended : n >= options.deltas);
    const s: LiveStream = { id, sent, acked: -1, live, producer: collect(modelStream(id, options.paceMs + (i % 3), sent, done).pipe(persistTo(producerLog, { leaseMs: LEASE_MS }))) };
    byId.set(id, s);
    return s;
  });
  return { streams, end: () => (ended = true) };
}

/** What is wrong with `o` as the delivery of `sent` (undefined: exact, each event once, in order, completed). */
export function wrongness(o: Outcome, sent: readonly ResponseStreamEvent[]): string | undefined {
  const seqs = o.events.map((e) => e.sequence_number);
  let mismatch = o.events.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(sent[i]));
  if (mismatch < 0 && o.events.length !== sent.length) mismatch = Math.min(o.events.length, sent.length);
  const error = o.error === undefined ? '' : `${o.error instanceof EventLogError ? `EventLogError(${o.error.reason})` : 'error'} ${o.error instanceof Error ? o.error.message : String(o.error)}; `;
  if (!error && mismatch < 0) return undefined;
  const at = mismatch < 0 ? '' : `differs at index ${mismatch} (got ${seqs.slice(Math.max(0, mismatch - 2), mismatch + 3).join(',')}, sent ${sent.slice(Math.max(0, mismatch - 2), mismatch + 3).map((e) => e.sequence_number).join(',')}); `;
  return `${error}${at}${o.events.length} of ${sent.length} events`;
}

/**
 * `label id: what is wrong` for every outcome that is not exactly what its producer sent. `mayEndLost(id)`:
 * that reader may instead end with EventLogError('lost') after an exact prefix (never a gap or a repeat).
 */
export function wrongOnes(label: string, streams: readonly LiveStream[], outcomes: readonly Outcome[], mayEndLost: (id: string) => boolean = () => false): string[] {
  return streams.flatMap((s, i) => {
    const o = outcomes[i]!;
    if (mayEndLost(s.id) && o.error instanceof EventLogError && o.error.reason === 'lost' && wrongness({ ...o, error: undefined }, s.sent.slice(0, o.events.length)) === undefined) return [];
    const w = wrongness(o, s.sent);
    return w === undefined ? [] : [`${label} ${s.id}: ${w}`];
  });
}

/** Shortens a long list of failures for a readable report: the count and the distinct messages (ids taken out). */
export function summary(wrong: readonly string[]): string[] {
  if (wrong.length <= 10) return [...wrong];
  const kinds = new Map<string, number>();
  for (const w of wrong) {
    const k = w
      .replace(/resp_[\w-]+/g, '<id>')
      .replace(/differs at index \d+ \(got [^)]*\)/, 'differs at index i')
      .replace(/\d+ of \d+ events/, 'n of m events');
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  return [`${wrong.length} wrong:`, ...[...kinds].map(([k, n]) => `${n} × ${k}`)];
}

/** Late readers: each stream read from its start by a new fromEventLog on `log`, after it ended. */
export const lateReads = (log: EventLog, streams: readonly LiveStream[]): Promise<Outcome[]> =>
  Promise.all(streams.map((s) => collect(fromEventLog(log, s.id, { notFoundTimeoutMs: 30_000 }))));

/** Resolves once `ok()` holds (checked every 50 ms); throws `what` after `ms`. */
export async function until(ok: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what()} (after ${ms} ms)`);
    await sleep(50);
  }
}

/** Whether the producer of `s` has ended (either way). */
export function watchEnded(streams: readonly LiveStream[]): Set<string> {
  const ended = new Set<string>();
  for (const s of streams) void s.producer.then(() => ended.add(s.id));
  return ended;
}

export const scopeOf = (id: string): LogScope => ({ responseId: id });
