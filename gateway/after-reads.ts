// The pumps' writes of one turn of the event loop, made together once the turn's reads have run (setImmediate: the
// check phase, right after the I/O phase). A paced upstream brings many streams' reads in one turn; written one
// after another, their clients' sockets wake each client process once for several writes instead of once per write,
// and a wake of a sleeping process is most of a small write's kernel time (docs/performance.md, the tenth round).
import { atBurstEnd } from '../lib/burst.js';
import { reportUnhandled } from '../lib/report-unhandled.js';

/** How long a write may wait for the rest of its turn: past it (an overloaded loop), the next write queued sends them all, at the end of its read. */
export const AFTER_READS_MAX_WAIT_MS = 1;

/**
 * Calls each `f` given to it once the turn's reads have run, in the order given, or when the first waited
 * `maxWaitMs`: then at the end of the read under way (lib/burst.ts), so that a write still follows the log's append
 * of what that read brought (which the log's writer makes at that end too, registered first), else at once.
 */
export type AfterReads = (f: () => void) => void;

/** A queue of its own (a test's clock); the gateway's pumps share `afterReads`. */
export function afterReadsQueue(maxWaitMs: number = AFTER_READS_MAX_WAIT_MS, now: () => number = () => performance.now()): AfterReads {
  let queue: (() => void)[] = [];
  let firstAt = 0;
  let armed = false;
  /** A run waits for the end of the read under way (the bound passed within a read). */
  let atEnd = false;

  const run = (): void => {
    atEnd = false;
    const list = queue;
    queue = [];
    // Each on its own: what one write throws is reported, never stops another stream's write.
    for (const f of list) {
      try {
        f();
      } catch (e) {
        reportUnhandled(e);
      }
    }
  };
  const onImmediate = (): void => {
    armed = false;
    run();
  };

  return (f) => {
    queue.push(f);
    if (queue.length === 1) {
      firstAt = now();
      if (!armed) {
        armed = true;
        setImmediate(onImmediate);
      }
    } else if (!atEnd && now() - firstAt >= maxWaitMs) {
      if (atBurstEnd(run)) atEnd = true;
      else run();
    }
  };
}

/** The queue the gateway's pumps share. */
export const afterReads: AfterReads = afterReadsQueue();
