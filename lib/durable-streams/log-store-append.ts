import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from '../log/types.js';
import { BoundedMap } from './log-store-cache.js';
import type { DataEvent } from './log-store-events.js';
import type { Incarnation } from './log-store-directory.js';
import { type LogStoreSettings, withLease } from './log-store-options.js';
import { copyWriterState, decideAppend, emptyWriterState, foldData, type WriterState } from './log-store-producers.js';
import type { AppendRequest, AppendResult } from './store.js';

// The appends of one process to one data stream go through one queue: the appends waiting when the lease is taken
// are decided and stored together, under that one lease, in one log append (all or none). Between processes the
// lease serializes: the holder reads the stream's state (and any events after its cached writer state) before it
// decides, so what another process stored is always taken into account.

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

  constructor(
    private readonly log: EventLog,
    private readonly settings: LogStoreSettings,
  ) {
    this.states = new BoundedMap(settings.cacheSize);
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
        const results = await withLease(this.log, this.scope(inc), this.settings, async (lease) => {
          const state = copyWriterState(await this.current(inc));
          const events: DataEvent[] = [];
          const decided = batch.map((p) => {
            const d = decideAppend(state, inc.config.contentType, p.request);
            events.push(...d.events);
            return d.result;
          });
          // On failure the cached state stays as the log was before: if the append was stored after all (a lost
          // reply), the next writer's catch-up reads it like any other process's append.
          if (events.length > 0) await this.log.append(this.scope(inc), lease.token, events as ResponseStreamEvent[]);
          this.states.set(inc.data, state);
          return decided;
        });
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (e) {
        for (const p of batch) p.reject(e);
      }
    }
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
