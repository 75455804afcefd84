// A burst: what one chunk of a body decodes to, passed on synchronously one event after another (the gateway's
// upstream body pushes each socket read's bytes, lib/sse/source.ts). A log writer that sends each event at once to
// a log that acknowledges at once (lib/log/sync-append.ts) sends a burst's events together, at its end: one
// append per socket read, as when the appends' round trips batched them, not one per event.
let depth = 0;
let ends: (() => void)[] = [];

/** Starts a burst; `burstEnded` (in a `finally`) ends it, running what `atBurstEnd` was given meanwhile. */
export function burstStarts(): void {
  depth++;
}

export function burstEnded(): void {
  if (--depth === 0 && ends.length > 0) endBurst();
}

function endBurst(): void {
  let failed = false;
  let failure: unknown;
  // What an end does may start another burst, or ask for another end (then called at once: no burst under way).
  while (ends.length > 0) {
    const list = ends;
    ends = [];
    for (const f of list) {
      try {
        f();
      } catch (e) {
        if (!failed) (failed = true), (failure = e);
      }
    }
  }
  if (failed) throw failure;
}

/** Whether a burst is under way (what runs now came from an upstream read). */
export function inBurst(): boolean {
  return depth > 0;
}

/** Calls `f` at the end of the burst under way and answers true; answers false outside a burst. */
export function atBurstEnd(f: () => void): boolean {
  if (depth === 0) return false;
  ends.push(f);
  return true;
}
