// The upstream streams this instance records: each runs on its own, apart from the client that started it,
// so a client that leaves leaves it running (and recorded); `cancel` and `close` stop them.
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';

const keyOf = (owner: string, responseId: string): string => JSON.stringify([owner, responseId]);

/** One upstream stream being recorded: its events go to `hub` (the starting client's live feed) as they pass. */
export class Producer {
  readonly hub = new Subject<ResponseStreamEvent>();
  responseId: string | undefined;
  /** Whether the upstream runs the response in the background (from its `response.created`). */
  background = false;
  /**
   * Whether the log stopped recording this stream (a write failed): from then on its events exist only as they
   * pass, so the starting client is kept fed from memory, never from the log's shorter copy.
   */
  logFailed = false;
  private sub: Subscription | undefined;
  private done = false;

  constructor(
    readonly owner: string,
    private readonly book: Producers,
  ) {}

  start(source: Observable<ResponseStreamEvent>): void {
    this.sub = source.subscribe({
      next: (e) => {
        if (this.responseId === undefined && e.type === 'response.created') {
          const id = (e as { response?: { id?: unknown } }).response?.id;
          if (typeof id === 'string') {
            this.responseId = id;
            this.background = (e as { response?: { background?: unknown } }).response?.background === true;
            this.book.index(this);
          }
        }
        this.hub.next(e);
      },
      error: (err: unknown) => {
        this.end();
        this.hub.error(err);
      },
      complete: () => {
        this.end();
        this.hub.complete();
      },
    });
    if (this.done) this.sub.unsubscribe();
  }

  /** Stops the upstream stream (its request is aborted) and ends the live feed. */
  stop(): void {
    if (this.done) return;
    this.end();
    this.sub?.unsubscribe();
    this.hub.complete();
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.book.remove(this);
  }
}

export class Producers {
  private readonly all = new Set<Producer>();
  private readonly byId = new Map<string, Producer>();

  get size(): number {
    return this.all.size;
  }

  /** Starts recording `source` for `owner`. */
  start(owner: string, source: Observable<ResponseStreamEvent>): Producer {
    const p = new Producer(owner, this);
    this.all.add(p);
    p.start(source);
    return p;
  }

  get(owner: string, responseId: string): Producer | undefined {
    return this.byId.get(keyOf(owner, responseId));
  }

  index(p: Producer): void {
    if (p.responseId !== undefined) this.byId.set(keyOf(p.owner, p.responseId), p);
  }

  remove(p: Producer): void {
    this.all.delete(p);
    if (p.responseId !== undefined && this.byId.get(keyOf(p.owner, p.responseId)) === p) this.byId.delete(keyOf(p.owner, p.responseId));
  }

  stopAll(): void {
    for (const p of [...this.all]) p.stop();
  }
}
