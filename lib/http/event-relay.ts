import { Subscriber } from 'rxjs';
import { isErrorType, isTerminalType } from '../events/guards.js';
import { redactError, redactValue, type Secrets } from '../redact.js';
import { keepWarm } from '../warmup.js';

/**
 * Passes a stream's decoded events on: notes the terminal one (from then on the end of the subscription is no
 * reason to cut the connection) and masks the server's text in error events, as in an error body. A Subscriber
 * rather than an observer object, which `subscribe()` would wrap in two more layers that every event crosses; a
 * class, so that this per-event code lives as long as the module (see SSEScannerCore).
 */
export class EventRelay<T> extends Subscriber<T> {
  /** The server finished the stream: a terminal event went out, or the decoder completed. */
  ended = false;

  constructor(
    private readonly out: Subscriber<T>,
    private readonly secrets: Secrets,
  ) {
    super();
  }

  protected override _next(v: T): void {
    const t = (v as { type?: unknown } | null)?.type;
    // Set before the event goes out: a subscriber that leaves on it (`first()`) leaves a finished stream.
    if (isTerminalType(t)) this.ended = true;
    // An `error` / `*.failed` event is the server's text, like an error body: it leaves masked.
    this.out.next(isErrorType(t) ? redactValue(v, this.secrets) : v);
  }

  protected override _error(e: unknown): void {
    try {
      this.out.error(redactError(e, this.secrets));
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    this.ended = true;
    try {
      this.out.complete();
    } finally {
      this.unsubscribe();
    }
  }
}

/**
 * One relay that has been through a whole stream (a terminal event, the end, the unsubscribe), kept once the
 * first relay is made, unless warm-ups are off (lib/warmup.ts): the hidden class of the relays, with each
 * field's value kinds already widened, then survives a full GC, and code that inlined `_next` is not
 * deoptimised again mid-stream by a fresh class whose fields are narrowed anew. It holds no user data.
 */
function relayShape(): EventRelay<unknown> {
  const r = new EventRelay<unknown>(new Subscriber<unknown>(), []);
  r.next({ type: 'response.completed' });
  r.complete();
  return r;
}

/** A relay of `out`'s events (see EventRelay). */
export function relayTo<T>(out: Subscriber<T>, secrets: Secrets): EventRelay<T> {
  keepWarm('event relay', relayShape);
  return new EventRelay(out, secrets);
}
