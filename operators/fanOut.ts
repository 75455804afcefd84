import { Observable, Subscriber, Subscription, type OperatorFunction } from 'rxjs';
import { keepWarm } from '../lib/warmup.js';

/**
 * Runs several operators over one stream in a single pass and merges what they emit: each event is
 * decoded once and handed to every branch in turn. It does what `connect((e) => merge(e.pipe(a), e.pipe(b)))`
 * does, without a Subject per stream, which is most of that pattern's cost on streams of small events.
 *
 * ```
 * events:  --a-----b-----c--|
 *   fanOut(accumulateText(), collectToolCalls())
 * out:     --s-----s--t--s--|     (s: text snapshots, t: tool calls, in the order the branches emit)
 * ```
 *
 * An error of the source reaches every branch (and so the output); an error of one branch ends the output
 * and unsubscribes the source. The output completes when every branch has completed.
 *
 * ```ts
 * streamResponse(body, config).pipe(fanOut(outputText(), collectToolCalls()))
 * ```
 */
export function fanOut<T, R extends readonly unknown[]>(...branches: { readonly [K in keyof R]: OperatorFunction<T, R[K]> }): OperatorFunction<T, R[number]> {
  return (source) =>
    new Observable<R[number]>((subscriber) => {
      keepWarm('fanOut', fanOutShapes);
      const fan = new FanOut<T, R[number]>(subscriber, branches.length);
      const subscription = new Subscription();
      for (const branch of branches as ReadonlyArray<OperatorFunction<T, R[number]>>) {
        subscription.add(branch(fan.hub).subscribe(new FanOutBranch(fan)));
      }
      if (fan.open === 0) {
        subscriber.complete();
        return subscription;
      }
      subscription.add(source.subscribe(fan));
      return subscription;
    });
}

/**
 * One subscription of fanOut: the source's subscriber, which hands each value to the branches' subscribers.
 * A class, not closures made per subscription, so that the optimised code of the per-event path lives as
 * long as the module and survives a full GC between streams (see SSEScannerCore); a Subscriber rather than an
 * observer object, which `subscribe()` would wrap in two more layers that every event crosses (see EventRelay).
 */
class FanOut<T, O> extends Subscriber<T> {
  /**
   * Replaced, never changed in place: a branch that unsubscribes while a value is being handed out
   * (take(1), say) must not make the loop skip the next branch.
   */
  sinks: ReadonlyArray<Subscriber<T>>;
  /** Branches not completed yet. */
  open: number;
  /** What each branch subscribes to. */
  readonly hub: Observable<T>;

  constructor(
    readonly out: Subscriber<O>,
    branches: number,
  ) {
    super();
    this.sinks = [];
    this.open = branches;
    this.hub = new Observable<T>((s) => this.attach(s));
  }

  protected override _next(v: T): void {
    const list = this.sinks;
    for (let i = 0; i < list.length; i++) list[i]!.next(v);
  }

  protected override _error(e: unknown): void {
    try {
      for (const s of this.sinks) s.error(e);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      for (const s of this.sinks) s.complete();
    } finally {
      this.unsubscribe();
    }
  }

  private attach(s: Subscriber<T>): () => void {
    this.sinks = [...this.sinks, s];
    return () => {
      this.sinks = this.sinks.filter((x) => x !== s);
    };
  }
}

/** What one branch of a fanOut emits goes to the output (a Subscriber, as FanOut is). */
class FanOutBranch<T, O> extends Subscriber<O> {
  constructor(private readonly fan: FanOut<T, O>) {
    super();
  }

  protected override _next(v: O): void {
    this.fan.out.next(v);
  }

  protected override _error(e: unknown): void {
    try {
      this.fan.out.error(e);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      if (--this.fan.open === 0) this.fan.out.complete();
    } finally {
      this.unsubscribe();
    }
  }
}

/**
 * One fanOut kept open (on a source that never sends anything, with one branch) once the first one starts, unless
 * warm-ups are off (lib/warmup.ts): the hidden classes (maps) of the fanOut, its branch observer and their RxJS
 * subscribers then survive a full GC while no stream is open, and so does the optimised code that checks for
 * them (see `textShapes`).
 */
const fanOutShapes = (): Subscription =>
  new Observable<unknown>(() => undefined)
    .pipe(fanOut((s: Observable<unknown>) => s))
    .subscribe({ next: () => undefined, error: () => undefined, complete: () => undefined });
