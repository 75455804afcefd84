import type { ResponseStreamEvent } from '../events/responses.js';
import type { EventLog, LogScope } from '../log/types.js';
import type { CreatedEvent, DirectoryChange, Segment } from './log-store-events.js';
import { BoundedMap } from './log-store-cache.js';
import type { LogStoreSettings } from './log-store-options.js';
import { formatOffset } from './offsets.js';
import type { StreamConfig } from './store.js';

// A path's directory: a log stream of its own whose events say which incarnation (generation) lives at the path
// and in which state. Every process folds the same events into the same view; a view is cached with the directory's
// last sequence number it was folded to, and brought up to date by reading only the events after it (`state` tells
// whether there are any: one call when nothing changed).

/** One incarnation of a path: immutable once created. */
export interface Incarnation {
  readonly path: string;
  /** The sequence number of its `created` event in the directory. */
  readonly generation: number;
  readonly id: string;
  readonly config: StreamConfig;
  readonly forkSubOffset: number;
  readonly sourceGeneration?: number;
  /** Its own entries are numbered from `base + 1` in its data stream; `[0, base)` come from `inherited`. */
  readonly base: number;
  readonly inherited: readonly Segment[];
  /** The responseId of its data stream. */
  readonly data: string;
  /** The responseId of its last-access stream (sliding TTL). */
  readonly access: string;
  readonly createdAt: number;
}

/** A directory event before it is numbered. */
export interface DirectoryEventBody {
  readonly type: string;
  readonly [key: string]: unknown;
}

export type PathStatus = 'none' | 'live' | 'soft' | 'deleted';

export interface DirectoryView {
  /** The directory's last sequence number folded in (`undefined`: no directory). */
  readonly last: number | undefined;
  readonly current: Incarnation | undefined;
  readonly status: PathStatus;
  /** Fork references per generation of this path. */
  readonly refs: ReadonlyMap<number, number>;
}

const EMPTY: DirectoryView = { last: undefined, current: undefined, status: 'none', refs: new Map() };

export function incarnationOf(path: string, e: CreatedEvent): Incarnation {
  const inherited = e.inherited ?? [];
  const base = e.fork_offset === undefined ? 0 : Number(e.fork_offset);
  const config: StreamConfig = {
    contentType: e.content_type,
    ...(e.ttl_seconds !== undefined && { ttlSeconds: e.ttl_seconds }),
    ...(e.expires_at !== undefined && { expiresAt: e.expires_at }),
    ...(e.forked_from !== undefined && { forkedFrom: e.forked_from, forkOffset: formatOffset(base) }),
  };
  return {
    path,
    generation: e.sequence_number,
    id: e.id,
    config,
    forkSubOffset: e.fork_sub_offset ?? 0,
    ...(e.source_generation !== undefined && { sourceGeneration: e.source_generation }),
    base,
    inherited,
    data: `g:${e.id}:${path}`,
    access: `a:${e.id}:${path}`,
    createdAt: e.created_at,
  };
}

/** The view after `events` (in order, after `view.last`). */
export function fold(path: string, view: DirectoryView, events: readonly ResponseStreamEvent[]): DirectoryView {
  let { last, current, status } = view;
  let refs: Map<number, number> | undefined;
  for (const raw of events) {
    const n = raw.sequence_number;
    if (typeof n !== 'number') continue;
    last = n;
    if (raw.type === 'durable_stream.created') {
      current = incarnationOf(path, raw as CreatedEvent);
      status = 'live';
      continue;
    }
    const e = raw as DirectoryChange;
    const isCurrent = current !== undefined && e.generation === current.generation;
    if (e.type === 'durable_stream.deleted' && isCurrent) status = e.soft === true ? 'soft' : 'deleted';
    else if (e.type === 'durable_stream.purged' && isCurrent && status === 'soft') status = 'deleted';
    else if (e.type === 'durable_stream.forked' || e.type === 'durable_stream.unforked') {
      refs ??= new Map(view.refs);
      const count = (refs.get(e.generation) ?? 0) + (e.type === 'durable_stream.forked' ? 1 : -1);
      if (count > 0) refs.set(e.generation, count);
      else refs.delete(e.generation);
    }
  }
  return { last, current, status, refs: refs ?? view.refs };
}

export class Directory {
  private readonly views: BoundedMap<string, DirectoryView>;

  constructor(
    private readonly log: EventLog,
    private readonly settings: LogStoreSettings,
  ) {
    this.views = new BoundedMap(settings.cacheSize);
  }

  scope(path: string): LogScope {
    return this.settings.scopes.get(`d:${path}`);
  }

  /** The path's view as the log has it now: a `state` call, and a read of the events after the cached view's. */
  async view(path: string): Promise<DirectoryView> {
    const scope = this.scope(path);
    const state = await this.log.state(scope);
    const last = state?.lastSequenceNumber;
    let view = this.views.get(path) ?? EMPTY;
    if (last === undefined) {
      this.views.delete(path);
      return EMPTY;
    }
    if (view.last === last) return view;
    // A directory dropped by the log's retention and begun again: fold it from its start.
    if (view.last !== undefined && view.last > last) view = EMPTY;
    for (;;) {
      const events = await this.log.read(scope, view.last, 1000);
      if (events.length === 0) break;
      view = fold(path, view, events);
      if (view.last !== undefined && view.last >= last) break;
    }
    this.views.set(path, view);
    return view;
  }

  /** Appends `events` (numbered after `view.last`) under the directory's lease `token`; the view they make. */
  async append(path: string, token: number, view: DirectoryView, events: readonly DirectoryEventBody[]): Promise<DirectoryView> {
    let n = view.last ?? 0;
    const numbered = events.map((e) => ({ ...e, sequence_number: ++n }) as ResponseStreamEvent);
    await this.log.append(this.scope(path), token, numbered);
    const next = fold(path, view, numbered);
    this.views.set(path, next);
    return next;
  }

  /** The incarnation `generation` of `path` (a fork's source, whatever the path holds now). */
  async incarnation(path: string, generation: number): Promise<Incarnation | undefined> {
    const view = this.views.get(path);
    if (view?.current?.generation === generation) return view.current;
    const [e] = await this.log.read(this.scope(path), generation - 1, 1);
    return e?.type === 'durable_stream.created' && e.sequence_number === generation ? incarnationOf(path, e as CreatedEvent) : undefined;
  }
}
