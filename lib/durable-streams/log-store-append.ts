import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from '../log/types.js';
import { BoundedMap } from './log-store-cache.js';
import type { DataEvent } from './log-store-events.js';
import type { Incarnation } from './log-store-directory.js';
import { HeldLeases, isFenced } from './log-store-lease.js';
import { acquireLease, type LogStoreSettings, withLease } from './log-store-options.js';
import { copyWriterState, decideAppend, emptyWriterState, foldData, type WriterState } from './log-store-producers.js';
import type { AppendRequest, AppendResult } from './store.js';

// The appends of one process to one data stream go through one queue: the appends waiting when the lease is taken
// are decided and stored together, under that one lease, in one log append (all or none). Between processes the
// lease serializes: a fresh holder reads the stream's state (and any events after its cached writer state) before it
// decides, so what another process stored is always taken into account. The lease is kept a little after a batch
// (log-store-lease.ts): the next batch under it needs neither acquire, state nor release.

interface Pending {
  readonly request: AppendRequest;
  readonly resolve: (r: AppendResult) => void;
  readonly reject: (e: unknown) => void;
}

/** How many stored events one catch-up read asks for. */
const CATCH_UP = 1000;

export class Appender {
  private readonly queues = new Map<string, Pending[]>();
  private readonly states: BoundedMap<string, WriterState>;
  private readonly leases: HeldLeases;

  constructor(
    private readonly log: EventLog,
    private readonly settings: LogStoreSettings,
  ) {
    this.states = new BoundedMap(settings.cacheSize);
    this.leases = new HeldLeases(log, settings);
  }

  private scope(inc: Incarnation): LogScope {
    return this.settings.scopes.get(inc.data);
  }

  append(inc: Incarnation, request: AppendRequest): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      const queue = this.queues.get(inc.data);
      if (queue !== undefined) {
        queue.push({ request, resolve, reject });
        return;
      }
      this.queues.set(inc.data, [{ request, resolve, reject }]);
      void this.drain(inc);
    });
  }

  private async drain(inc: Incarnation): Promise<void> {
    for (;;) {
      const batch = this.queues.get(inc.data) ?? [];
      if (batch.length === 0) {
        this.queues.delete(inc.data);
        return;
      }
      this.queues.set(inc.data, []);
      try {
        const results = await this.store(inc, batch);
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (e) {
        for (const p of batch) p.reject(e);
      }
    }
  }

  /** Decides and stores `batch` under the lease this process still holds, else under a fresh one (kept a little after). */
  private async store(inc: Incarnation, batch: readonly Pending[]): Promise<AppendResult[]> {
    const key = inc.data;
    const held = await this.leases.take(key);
    if (held !== undefined) {
      try {
        // No state(data): under a live lease of ours nobody else appended, the cached state is the log's.
        const results = await this.decide(inc, held.token, this.states.get(key) ?? (await this.current(inc)), batch);
        this.leases.keep(key, this.scope(inc), held.token, held.since);
        return results;
      } catch (e) {
        await this.leases.drop(key);
        // Fenced (the lease lapsed or was taken over): nothing of it was stored; decide again under a fresh lease.
        if (!isFenced(e)) throw e;
      }
    }
    const since = Date.now();
    const lease = await acquireLease(this.log, this.scope(inc), this.settings);
    try {
      const results = await this.decide(inc, lease.token, await this.current(inc), batch);
      this.leases.keep(key, this.scope(inc), lease.token, since);
      return results;
    } catch (e) {
      await this.log.release(this.scope(inc), lease.token).catch(() => undefined);
      throw e;
    }
  }

  /** Decides `batch` on a copy of `current` and stores its events with `token`; the cached state follows on success. */
  private async decide(inc: Incarnation, token: number, current: WriterState, batch: readonly Pending[]): Promise<AppendResult[]> {
    const state = copyWriterState(current);
    const events: DataEvent[] = [];
    const decided = batch.map((p) => {
      const d = decideAppend(state, inc.config.contentType, p.request);
      events.push(...d.events);
      return d.result;
    });
    // On failure the cached state stays as the log was before: if the append was stored after all (a lost reply),
    // the lease is dropped and the next writer's state(data) and catch-up read it like any other process's append.
    if (events.length > 0) await this.log.append(this.scope(inc), token, events as ResponseStreamEvent[]);
    this.states.set(inc.data, state);
    return decided;
  }

  /** The writer state as the log has it now (the caller holds the lease): the cached one brought up to date. */
  private async current(inc: Incarnation): Promise<WriterState> {
    const scope = this.scope(inc);
    const logState = await this.log.state(scope);
    const last = logState?.lastSequenceNumber;
    let s = this.states.get(inc.data);
    if (s === undefined || (s.last !== undefined && (last === undefined || last < s.last))) s = emptyWriterState(inc.base);
    while (last !== undefined && (s.last === undefined || s.last < last)) {
      const events = await this.log.read(scope, s.last, CATCH_UP);
      if (events.length === 0) break;
      foldData(s, events);
    }
    this.states.set(inc.data, s);
    return s;
  }
}

/** Stores a new incarnation's first entries (and close) in its data stream, fresh: nobody else writes it yet. */
export async function writeInitial(log: EventLog, settings: LogStoreSettings, inc: Incarnation, events: readonly DataEvent[]): Promise<void> {
  if (events.length === 0) return;
  await withLease(log, settings.scopes.get(inc.data), settings, (lease) =>
    log.append(settings.scopes.get(inc.data), lease.token, events as readonly ResponseStreamEvent[]),
  );
}
