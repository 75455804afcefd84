// A minimal in-memory DurableStreamStore for the handler's own tests (no forks, no TTL expiry): the handler's
// rules are tested apart from any real store's. The package's store is eventLogStreamStore (log-store.ts).
import { formatOffset, parseOffset } from '../../lib/durable-streams/offsets';
import type {
  AppendRequest, AppendResult, CreateRequest, CreateResult, DurableStreamStore, Entry, ReadBatch, StreamInfo,
} from '../../lib/durable-streams/store';

interface Stream {
  id: string;
  config: CreateRequest['config'];
  entries: Entry[];
  closed: boolean;
  lastSeq?: string;
  producers: Map<string, { epoch: number; seq: number }>;
  closedBy?: string;
  waiters: Set<() => void>;
}

const norm = (t: string): string => t.split(';')[0]!.trim().toLowerCase();
const size = (e: Entry): number => (typeof e === 'string' ? Buffer.byteLength(e) : e.byteLength);

export function testStore(): DurableStreamStore & { failing: boolean; waiting(): number } {
  const streams = new Map<string, Stream>();
  let ids = 0;
  const info = (s: Stream): StreamInfo => ({ ...s.config, id: s.id, tail: formatOffset(s.entries.length), closed: s.closed });
  const wake = (s: Stream): void => {
    for (const w of [...s.waiters]) w();
  };
  const store = {
    failing: false,
    waiting: () => [...streams.values()].reduce((n, s) => n + s.waiters.size, 0),
    async info(path: string) {
      if (store.failing) throw new Error('storage down: secret detail');
      const s = streams.get(path);
      return s === undefined ? { status: 'not_found' as const } : info(s);
    },
    async read(path: string, offset: string, options: { maxBytes: number }) {
      if (store.failing) throw new Error('storage down: secret detail');
      const s = streams.get(path);
      if (s === undefined) return { status: 'not_found' as const };
      const start = offset === '-1' ? 0 : offset === 'now' ? s.entries.length : parseOffset(offset);
      if (start === undefined || start > s.entries.length) return { status: 'bad_request' as const, reason: 'bad offset' };
      const out: Entry[] = [];
      let bytes = 0;
      for (let i = start; i < s.entries.length; i++) {
        const e = s.entries[i]!;
        if (out.length > 0 && bytes + size(e) > options.maxBytes) break;
        out.push(e);
        bytes += size(e);
      }
      const end = start + out.length;
      const upToDate = end === s.entries.length;
      const batch: ReadBatch = { info: info(s), entries: out, next: formatOffset(end), upToDate, closed: upToDate && s.closed };
      return batch;
    },
    wait(path: string, offset: string, timeoutMs: number, signal: AbortSignal) {
      return new Promise<boolean>((resolve) => {
        const s = streams.get(path);
        const at = parseOffset(offset) ?? 0;
        if (s === undefined || signal.aborted) return resolve(false);
        if (s.entries.length > at || s.closed) return resolve(true);
        const done = (v: boolean): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          s.waiters.delete(check);
          resolve(v);
        };
        const check = (): void => {
          if (s.entries.length > at || s.closed) done(true);
        };
        const onAbort = (): void => done(false);
        const timer = setTimeout(() => done(false), timeoutMs);
        signal.addEventListener('abort', onAbort);
        s.waiters.add(check);
      });
    },
    async create(path: string, req: CreateRequest): Promise<CreateResult> {
      if (req.config.forkedFrom !== undefined) return { status: 'bad_request', reason: 'no forks here' };
      const s = streams.get(path);
      if (s !== undefined) {
        const same = norm(s.config.contentType) === norm(req.config.contentType) && s.config.ttlSeconds === req.config.ttlSeconds
          && s.config.expiresAt === req.config.expiresAt && s.closed === req.closed;
        return same ? { status: 'exists', info: info(s) } : { status: 'conflict', reason: 'config differs' };
      }
      const created: Stream = { id: `s${++ids}`, config: req.config, entries: [...req.entries], closed: req.closed, producers: new Map(), waiters: new Set() };
      streams.set(path, created);
      return { status: 'created', info: info(created) };
    },
    async append(path: string, req: AppendRequest): Promise<AppendResult> {
      const s = streams.get(path);
      if (s === undefined) return { status: 'not_found' };
      const tail = (): string => formatOffset(s.entries.length);
      const key = req.producer && `${req.producer.id}/${req.producer.epoch}/${req.producer.seq}`;
      if (s.closed) {
        if (key !== undefined && key === s.closedBy) return { status: 'duplicate', tail: tail(), closed: true, producer: { epoch: req.producer!.epoch, seq: req.producer!.seq } };
        if (req.entries.length === 0 && req.producer === undefined) return { status: 'appended', tail: tail(), closed: true };
        return { status: 'closed', tail: tail() };
      }
      if (req.contentType !== undefined && norm(req.contentType) !== norm(s.config.contentType)) return { status: 'content_type_mismatch' };
      if (req.producer !== undefined) {
        const st = s.producers.get(req.producer.id);
        const { epoch, seq } = req.producer;
        if (st !== undefined && epoch < st.epoch) return { status: 'stale_epoch', epoch: st.epoch };
        if (st === undefined || epoch > st.epoch) {
          if (seq !== 0) return { status: 'bad_request', reason: 'new epoch starts at 0' };
        } else if (seq <= st.seq) {
          return { status: 'duplicate', tail: tail(), closed: s.closed, producer: { epoch, seq: st.seq } };
        } else if (seq > st.seq + 1) {
          return { status: 'producer_seq_gap', expected: st.seq + 1, received: seq };
        }
      }
      if (req.streamSeq !== undefined) {
        if (s.lastSeq !== undefined && req.streamSeq <= s.lastSeq) return { status: 'stream_seq_conflict' };
        s.lastSeq = req.streamSeq;
      }
      if (req.producer !== undefined) s.producers.set(req.producer.id, { epoch: req.producer.epoch, seq: req.producer.seq });
      s.entries.push(...req.entries);
      if (req.close) {
        s.closed = true;
        s.closedBy = key;
      }
      wake(s);
      return { status: 'appended', tail: tail(), closed: s.closed, ...(req.producer && { producer: { epoch: req.producer.epoch, seq: req.producer.seq } }) };
    },
    async delete(path: string) {
      const s = streams.get(path);
      if (s === undefined) return { status: 'not_found' as const };
      streams.delete(path);
      wake(s);
      return { status: 'deleted' as const };
    },
  };
  return store;
}
