// The Subscriber an operator's per-subscription state lives in (a class, not closures, so that its optimised
// per-value code outlives each subscription): what ends the source ends the sink, then lets the source go.
import { Subscriber } from 'rxjs';

/** Where an operator's subscriber ends: the downstream subscriber, or an object that stands for it. */
export interface Sink {
  error(err: unknown): void;
  complete(): void;
}

/**
 * An operator's source subscriber: an error goes to `sink`; a completion runs `beforeComplete()` (what completing adds,
 * e.g. closing what is open) and then completes `sink`; either way the source is let go, even when `sink` throws.
 */
export abstract class OperatorSubscriber<T, S extends Sink> extends Subscriber<T> {
  constructor(protected readonly sink: S) {
    super();
  }

  /** What the operator sends before the sink completes. */
  protected beforeComplete(): void {}

  protected override _error(err: unknown): void {
    try {
      this.sink.error(err);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    try {
      this.beforeComplete();
      this.sink.complete();
    } finally {
      this.unsubscribe();
    }
  }
}
