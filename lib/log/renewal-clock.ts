import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';

// The lease renewals of many writers on one timer. Each writer renewing on its own interval kept a timer and a
// scheduler action per stream for the stream's whole life (long enough to be promoted), and its renewals reached
// the log one at a time, a turn apart: 1,000 streams started a few milliseconds apart made some 300 renewal
// calls a second, one stream each. Writers whose next renewal falls due in the same slice of time (a sixteenth of
// the period, never later than asked: a lease is renewed a little early, never late) share one action instead;
// it renews them all in one turn, so that the log's batching carries them in one call.

/** One writer's part: renewed when its bucket is due. */
export interface Renewable {
  renew(): void;
}

/** One writer in its bucket (the bucket changes when two meet at one instant). */
interface Member {
  readonly writer: Renewable;
  bucket: Bucket;
}

/** The writers renewed at one instant, every `period`: their action re-arms itself while any is left. */
interface Bucket {
  readonly period: number;
  due: number;
  readonly members: Set<Member>;
  action: Subscription | undefined;
}

/** Per scheduler, per period: the buckets by the instant they are next due. */
const clocks = new WeakMap<SchedulerLike, Map<number, Map<number, Bucket>>>();

/**
 * Renews `writer` every `period` ms from now on `scheduler` (the first renewal at most a sixteenth of the period
 * early, to share an instant with others already waiting), until the returned function is called.
 */
export function renewEvery(scheduler: SchedulerLike, period: number, writer: Renewable): () => void {
  let byPeriod = clocks.get(scheduler);
  if (byPeriod === undefined) clocks.set(scheduler, (byPeriod = new Map()));
  let buckets = byPeriod.get(period);
  if (buckets === undefined) byPeriod.set(period, (buckets = new Map()));
  const slice = Math.max(1, Math.floor(period / 16));
  const now = scheduler.now();
  const due = Math.floor((now + period) / slice) * slice;
  let bucket = buckets.get(due);
  if (bucket === undefined) {
    bucket = { period, due, members: new Set(), action: undefined };
    buckets.set(due, bucket);
    bucket.action = arm(scheduler, buckets, bucket, Math.max(0, due - now));
  }
  const member: Member = { writer, bucket };
  bucket.members.add(member);
  const all = buckets;
  return () => leave(all, member);
}

function arm(scheduler: SchedulerLike, buckets: Map<number, Bucket>, bucket: Bucket, delay: number): Subscription {
  return scheduler.schedule(function (this: SchedulerAction<undefined>) {
    // Re-keyed first, so that a writer joining from a renewal's callback finds the bucket where it is next due.
    if (buckets.get(bucket.due) === bucket) buckets.delete(bucket.due);
    bucket.due += bucket.period;
    const there = buckets.get(bucket.due);
    if (there === undefined) {
      buckets.set(bucket.due, bucket);
      this.schedule(undefined, bucket.period);
    } else {
      // A bucket made later for the same instant: this one's writers move there after this renewal, and its action ends.
      bucket.action = undefined;
      for (const m of bucket.members) {
        m.bucket = there;
        there.members.add(m);
      }
    }
    for (const m of bucket.members) m.writer.renew();
    if (there !== undefined) bucket.members.clear();
  }, delay);
}

function leave(buckets: Map<number, Bucket>, member: Member): void {
  const bucket = member.bucket;
  if (!bucket.members.delete(member) || bucket.members.size > 0) return;
  bucket.action?.unsubscribe();
  bucket.action = undefined;
  if (buckets.get(bucket.due) === bucket) buckets.delete(bucket.due);
}
