// Shared by the takeover specs (takeover-race, takeover-upstream-error): a producer that records a background
// stream from the loopback fake provider and "crashes" mid-stream (its release is lost, so its lease lapses
// on its own), and a reader's outcome collected with its error as a value.
import type { Observable } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { streamResponse } from '../../lib/http/transports';
import type { EventLog, LogScope } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';

export interface Outcome {
  readonly events: ResponseStreamEvent[];
  readonly error: unknown;
}

/** Everything a reader delivers, and how it ended (an error is a value here). */
export function collect(o: Observable<ResponseStreamEvent>): Promise<Outcome> {
  const events: ResponseStreamEvent[] = [];
  return new Promise((resolve) =>
    o.subscribe({
      next: (e) => events.push(e),
      error: (error: unknown) => resolve({ events, error }),
      complete: () => resolve({ events, error: undefined }),
    }),
  );
}

export const seqs = (events: readonly { sequence_number?: unknown }[]) => events.map((e) => e.sequence_number);
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Streams transcript `model` from `baseURL` through persistTo into `log` until `point` is stored, then
 * crashes: the persistTo is unsubscribed with its release lost (no renewal, no release). The provider must
 * stall the create request after `point + 1` events, so that the producer is mid-stream.
 */
export async function crashedProducer(log: EventLog, baseURL: string, model: string, s: LogScope, point: number, leaseMs: number): Promise<void> {
  const crashing: EventLog = { ...log, release: async () => undefined };
  const producer = streamResponse({ model, input: 'count', background: true }, { baseURL, apiKey: 'sk-test' })
    .pipe(persistTo(crashing, { owner: s.owner, leaseMs, maxBatchDelay: 0 }))
    .subscribe({ error: () => undefined });
  try {
    for (let i = 0; ; i++) {
      const last = (await log.state(s))?.lastSequenceNumber;
      if (last === point) return;
      if (i > 1000) throw new Error(`the producer never stored ${point} (at ${last})`);
      await log.wait(s, last, 200);
    }
  } finally {
    producer.unsubscribe();
  }
}

/** Resolves once the stream's lease is gone (lapsed or released); fails after a generous bound. */
export async function untilLapsed(log: EventLog, s: LogScope): Promise<void> {
  for (let i = 0; (await log.state(s))?.lease !== undefined; i++) {
    if (i > 3000) throw new Error('the lease never lapsed');
    await sleep(20);
  }
}
