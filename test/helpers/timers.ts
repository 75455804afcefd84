// Which timers a test leaves running, and where they were created: counting `Timeout` resources
// before and after is too coarse (a timer another suite left may fire or be born in between).
import { createHook } from 'node:async_hooks';

interface Tracked {
  readonly resource: { hasRef?(): boolean };
  readonly stack: string;
}

/** Starts recording timers; `leftover()` waits up to `waitMs` for them to end and returns the creation stacks of the rest. */
export function trackTimers(): { leftover(waitMs?: number): Promise<string[]>; stop(): void } {
  const live = new Map<number, Tracked>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout') live.set(id, { resource: resource as Tracked['resource'], stack: new Error('timer created').stack ?? '' });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  const alive = () => [...live.values()].filter((t) => t.resource.hasRef?.() !== false).map((t) => t.stack);
  return {
    async leftover(waitMs = 2000) {
      const until = Date.now() + waitMs;
      while (alive().length > 0 && Date.now() < until) {
        await new Promise<void>((resolve) => {
          const wait = setTimeout(resolve, 20);
          for (const [id, t] of live) if (t.resource === (wait as unknown)) live.delete(id); // not the test's
        });
      }
      hook.disable();
      return alive();
    },
    stop: () => hook.disable(),
  };
}
