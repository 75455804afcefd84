// One-shot timers that may fire a little late, sharing a Node timer with the others due in the same slice of time.
// A thousand readers each checking its stream once a second, on timers of their own, reach the log one at a time
// all second long; rounded up to the same instants they fire in the same turn, and a log that gathers the calls of
// a turn (the Redis log's `state`) answers them all in one call. Never early: a check that fired before its time
// would only find there was nothing to do yet and wait again.

interface Due {
  readonly fire: () => void;
}

/** The timers due at one instant: one Node timer for all of them. */
interface Slice {
  readonly members: Set<Due>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const slices = new Map<number, Slice>();

/**
 * Calls `fire` once, at least `ms` (1 at least) from now and less than a `grain` later (rounded up to a multiple of
 * `grain` ms of the clock), unless the returned function is called first.
 */
export function coarseTimeout(fire: () => void, ms: number, grain: number): () => void {
  const g = Math.max(1, Math.floor(grain));
  const at = Math.ceil((Date.now() + Math.max(1, ms)) / g) * g;
  let slice = slices.get(at);
  if (slice === undefined) {
    const made: Slice = { members: new Set(), timer: undefined };
    made.timer = setTimeout(() => run(at, made), at - Date.now());
    slices.set(at, made);
    slice = made;
  }
  const due: Due = { fire };
  slice.members.add(due);
  const mine = slice;
  return () => {
    if (!mine.members.delete(due) || mine.members.size > 0) return;
    if (mine.timer !== undefined) clearTimeout(mine.timer);
    if (slices.get(at) === mine) slices.delete(at);
  };
}

function run(at: number, slice: Slice): void {
  slice.timer = undefined;
  if (slices.get(at) === slice) slices.delete(at);
  // Each once, in the order they were set; one cancelled by another's call does not fire, and one that throws
  // does not keep the others from firing.
  let failure: { error: unknown } | undefined;
  for (const m of slice.members) {
    slice.members.delete(m);
    try {
      m.fire();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
