// The upstream streams this instance records: each runs on its own, apart from the client that started it,
// so a client that leaves leaves it running (and recorded); `cancel` and `close` stop them.
import { Observable, Subscriber, type Subscription } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';

/**
 * The starting client's live feed of a producer's events: a Subject's behaviour (each subscriber gets the events
 * from its subscription on; after the end, the end) for the one subscriber it has in practice (the client's pump,
 * until it lets go for the log), which gets each event handed over directly, not through a Subject's loop over a
 * copy of its observers in an error context. More than one still works (a copy of the list per event).
 */
export class LiveFeed extends Observable<ResponseStreamEvent> {
  private sinks: Subscriber<ResponseStreamEvent>[] = [];
  private ended: { readonly error: unknown } | 'complete' | undefined;

  constructor() {
    super((subscriber) => {
      const end = this.ended;
      if (end === 'complete') return subscriber.complete();
      if (end !== undefined) return subscriber.error(end.error);
      this.sinks = [...this.sinks, subscriber];
      return () => {
        this.sinks = this.sinks.filter((x) => x !== subscriber);
      };
    });
  }

  next(e: ResponseStreamEvent): void {
    if (this.ended !== undefined) return;
    const sinks = this.sinks;
    if (sinks.length === 1) sinks[0]!.next(e);
    else for (const s of sinks) s.next(e);
  }

  error(err: unknown): void {
    if (this.ended !== undefined) return;
    this.ended = { error: err };
    const sinks = this.sinks;
    this.sinks = [];
    for (const s of sinks) s.error(err);
  }

  complete(): void {
    if (this.ended !== undefined) return;
    this.ended = 'complete';
    const sinks = this.sinks;
    this.sinks = [];
    for (const s of sinks) s.complete();
  }
}

const keyOf = (owner: string, responseId: string): string => JSON.stringify([owner, responseId]);

/** One upstream stream being recorded: its events go to `hub` (the starting client's live feed) as they pass. */
export class Producer {
  readonly hub = new LiveFeed();
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
    this.sub = source.subscribe(new Recording(this));
    if (this.done) this.sub.unsubscribe();
  }

  /** @internal An event of the upstream stream, passing. */
  passed(e: ResponseStreamEvent): void {
    if (this.responseId === undefined && e.type === 'response.created') {
      const id = (e as { response?: { id?: unknown } }).response?.id;
      if (typeof id === 'string') {
        this.responseId = id;
        this.background = (e as { response?: { background?: unknown } }).response?.background === true;
        this.book.index(this);
      }
    }
    this.hub.next(e);
  }

  /** @internal The upstream stream ended (`err` when it failed). */
  ended(err?: { readonly error: unknown }): void {
    this.end();
    if (err) this.hub.error(err.error);
    else this.hub.complete();
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

/** A producer's subscriber to its upstream stream: a Subscriber of its own, not an observer object that `subscribe` wraps in two more layers every event crosses. */
class Recording extends Subscriber<ResponseStreamEvent> {
  constructor(private readonly producer: Producer) {
    super();
  }

  protected override _next(e: ResponseStreamEvent): void {
    this.producer.passed(e);
  }

  protected override _error(err: unknown): void {
    try {
      this.producer.ended({ error: err });
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      this.producer.ended();
    } finally {
      this.unsubscribe();
    }
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
