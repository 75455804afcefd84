import type { EventLog } from '../log/types.js';
import type { Access } from './log-store-access.js';
import type { KeepAlive } from './log-store-keepalive.js';
import { writeInitial } from './log-store-append.js';
import { type Directory, incarnationOf, type Incarnation } from './log-store-directory.js';
import { type CreatedEvent, entryBytes, type Segment } from './log-store-events.js';
import { type LogStoreSettings, withLease } from './log-store-options.js';
import { appendEvents, mediaType } from './log-store-producers.js';
import { dataState, inheritedAt, readEntries, segmentsOf } from './log-store-read.js';
import { parseOffset } from './offsets.js';
import { randomHex } from '../random-hex.js';
import type { CreateRequest, CreateResult, Entry, StreamConfig, StreamInfo } from './store.js';

// Creating and deleting incarnations: every change of a path's directory is made under the directory's lease, so
// creates, deletes and fork references of one path are serialized across processes. A new incarnation's first
// entries (and close) are stored in its fresh data stream BEFORE its `created` event: a reader finds it whole or not
// at all, and a crash in between leaves only an unreferenced data stream (its random id is never reused).

const JSON_TYPE = 'application/json';

export interface Lifecycle {
  readonly log: EventLog;
  readonly settings: LogStoreSettings;
  readonly dir: Directory;
  readonly access: Access;
  readonly keepAlive: KeepAlive;
}

export async function infoOf(c: Lifecycle, inc: Incarnation): Promise<StreamInfo> {
  const d = await dataState(c.log, c.settings, inc);
  return { ...inc.config, id: `${inc.id}.${inc.generation}`, tail: String(d.tail).padStart(16, '0'), closed: d.closed };
}

/** The live, unexpired incarnation at `path`, or why not. */
export async function liveAt(c: Lifecycle, path: string, touch: boolean): Promise<Incarnation | 'not_found' | 'gone'> {
  const view = await c.dir.view(path);
  if (view.status === 'soft') return 'gone';
  const inc = view.current;
  if (view.status !== 'live' || inc === undefined) return 'not_found';
  if (await c.access.expired(inc, touch)) return 'not_found';
  if (touch) c.keepAlive.touch(inc.data, [c.dir.scope(path), c.settings.scopes.get(inc.data)]);
  return inc;
}

function sameConfig(inc: Incarnation, req: CreateRequest, closed: boolean): boolean {
  const a: StreamConfig = inc.config;
  const b = req.config;
  return (
    mediaType(a.contentType) === mediaType(b.contentType) &&
    a.ttlSeconds === b.ttlSeconds &&
    a.expiresAt === b.expiresAt &&
    closed === req.closed &&
    a.forkedFrom === b.forkedFrom &&
    (b.forkOffset === undefined || (a.forkOffset !== undefined && parseOffset(b.forkOffset) === parseOffset(a.forkOffset))) &&
    inc.forkSubOffset === req.forkSubOffset
  );
}

interface ForkPlan {
  readonly fields: Partial<CreatedEvent>;
  readonly base: number;
  readonly inherited: readonly Segment[];
  readonly prefix: readonly Entry[];
}

/** Checks a fork's source and takes a reference on it (under the source's directory lease). */
async function planFork(c: Lifecycle, req: CreateRequest, forkedFrom: string): Promise<ForkPlan | CreateResult> {
  return withLease(c.log, c.dir.scope(forkedFrom), c.settings, async (lease) => {
    const view = await c.dir.view(forkedFrom);
    if (view.status === 'soft') return { status: 'conflict', reason: 'the source stream is deleted (its forks still read it)' };
    const source = view.status === 'live' ? view.current : undefined;
    if (source === undefined || (await c.access.expired(source, false))) return { status: 'source_not_found' };
    const srcType = source.config.contentType;
    const asked = req.config.contentType;
    // The handler defaults an absent Content-Type to application/octet-stream: that default inherits the source's.
    const contentType = mediaType(asked) === 'application/octet-stream' ? srcType : asked;
    if (mediaType(contentType) !== mediaType(srcType)) return { status: 'conflict', reason: "the content type differs from the source's" };
    const { tail } = await dataState(c.log, c.settings, source);
    const at = req.config.forkOffset === undefined ? tail : parseOffset(req.config.forkOffset);
    if (at === undefined) return { status: 'bad_request', reason: 'malformed Stream-Fork-Offset' };
    if (at > tail) return { status: 'bad_request', reason: "Stream-Fork-Offset is past the source's tail" };
    let prefix: Entry[] = [];
    const sub = req.forkSubOffset;
    if (sub > 0 && req.config.forkOffset === undefined) return { status: 'bad_request', reason: 'Stream-Fork-Sub-Offset needs Stream-Fork-Offset' };
    if (sub > 0) {
      const json = mediaType(srcType) === JSON_TYPE;
      const entries = await readEntries(c.log, c.settings, segmentsOf(source, tail), at, Infinity, json ? sub : 1);
      if (json) {
        if (entries.length < sub) return { status: 'bad_request', reason: "Stream-Fork-Sub-Offset is past the source's tail" };
        prefix = entries;
      } else {
        const bytes = entries[0] === undefined ? undefined : entryBytes(entries[0]);
        if (bytes === undefined || sub > bytes.length) return { status: 'bad_request', reason: 'Stream-Fork-Sub-Offset is past the next data boundary' };
        prefix = [bytes.slice(0, sub)];
      }
    }
    const { ttlSeconds, expiresAt } = req.config;
    const expiry = ttlSeconds !== undefined || expiresAt !== undefined ? { ttlSeconds, expiresAt } : { ttlSeconds: source.config.ttlSeconds, expiresAt: source.config.expiresAt };
    await c.dir.append(forkedFrom, lease.token, view, [{ type: 'durable_stream.forked', generation: source.generation }]);
    const fields: Partial<CreatedEvent> = {
      content_type: contentType,
      ...(expiry.ttlSeconds !== undefined && { ttl_seconds: expiry.ttlSeconds }),
      ...(expiry.expiresAt !== undefined && { expires_at: expiry.expiresAt }),
      forked_from: forkedFrom,
      fork_offset: String(at).padStart(16, '0'),
      ...(sub > 0 && { fork_sub_offset: sub }),
      source_generation: source.generation,
      inherited: inheritedAt(source, at),
    };
    return { fields, base: at, inherited: inheritedAt(source, at), prefix };
  });
}

const isPlan = (p: ForkPlan | CreateResult): p is ForkPlan => !('status' in p);

const randomId = (): string => randomHex(9);

export async function createStream(c: Lifecycle, path: string, req: CreateRequest): Promise<CreateResult> {
  const { ttlSeconds, expiresAt, forkedFrom } = req.config;
  if (ttlSeconds !== undefined && expiresAt !== undefined) return { status: 'bad_request', reason: 'Stream-TTL and Stream-Expires-At together' };
  return withLease(c.log, c.dir.scope(path), c.settings, async (lease) => {
    const view = await c.dir.view(path);
    if (view.status === 'soft') return { status: 'conflict', reason: 'the path belongs to a deleted stream its forks still read' };
    const existing = view.status === 'live' ? view.current : undefined;
    if (existing !== undefined && !(await c.access.expired(existing, false))) {
      const info = await infoOf(c, existing);
      return sameConfig(existing, req, info.closed) ? { status: 'exists', info } : { status: 'conflict', reason: 'the stream exists with another config' };
    }
    let fork: ForkPlan | undefined;
    if (forkedFrom !== undefined) {
      const plan = await planFork(c, req, forkedFrom);
      if (!isPlan(plan)) return plan;
      fork = plan;
    }
    const created: CreatedEvent = {
      type: 'durable_stream.created',
      sequence_number: (view.last ?? 0) + 1,
      id: randomId(),
      content_type: req.config.contentType,
      ...(ttlSeconds !== undefined && { ttl_seconds: ttlSeconds }),
      ...(expiresAt !== undefined && { expires_at: expiresAt }),
      ...fork?.fields,
      created_at: c.settings.now(),
    };
    const inc = incarnationOf(path, created);
    const entries = [...(fork?.prefix ?? []), ...req.entries];
    await writeInitial(c.log, c.settings, inc, appendEvents(inc.base, { entries, close: req.closed }));
    const { sequence_number: _, ...event } = created;
    await c.dir.append(path, lease.token, view, [event]);
    return { status: 'created', info: await infoOf(c, inc) };
  });
}

/** Gives back a fork's reference on `generation` of `path`; a soft-deleted source left with none is purged (and so on up). */
async function unref(c: Lifecycle, path: string, generation: number): Promise<void> {
  const next = await withLease(c.log, c.dir.scope(path), c.settings, async (lease) => {
    const view = await c.dir.view(path);
    const after = await c.dir.append(path, lease.token, view, [{ type: 'durable_stream.unforked', generation }]);
    const inc = after.current;
    if (inc?.generation !== generation || after.status !== 'soft' || (after.refs.get(generation) ?? 0) > 0) return undefined;
    await c.dir.append(path, lease.token, after, [{ type: 'durable_stream.purged', generation }]);
    return inc;
  });
  if (next?.config.forkedFrom !== undefined && next.sourceGeneration !== undefined) await unref(c, next.config.forkedFrom, next.sourceGeneration);
}

export async function deleteStream(c: Lifecycle, path: string): Promise<{ readonly status: 'deleted' } | { readonly status: 'not_found' } | { readonly status: 'gone' }> {
  const deleted = await withLease(c.log, c.dir.scope(path), c.settings, async (lease) => {
    const view = await c.dir.view(path);
    if (view.status === 'soft') return 'gone' as const;
    const inc = view.status === 'live' ? view.current : undefined;
    if (inc === undefined || (await c.access.expired(inc, false))) return 'not_found' as const;
    const soft = (view.refs.get(inc.generation) ?? 0) > 0;
    await c.dir.append(path, lease.token, view, [{ type: 'durable_stream.deleted', generation: inc.generation, soft }]);
    return soft ? undefined : inc;
  });
  if (deleted === 'gone' || deleted === 'not_found') return { status: deleted };
  if (deleted?.config.forkedFrom !== undefined && deleted.sourceGeneration !== undefined) {
    await unref(c, deleted.config.forkedFrom, deleted.sourceGeneration);
  }
  return { status: 'deleted' };
}
