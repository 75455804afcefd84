// Appends to one path are stored in the order they were called. Each one first looks its stream up in the log (the
// directory's state, the access check), and those look-ups take a varying number of round trips and microtasks (a
// cached view or a fresh read, a Cluster node that answers later): without a turn per call, a later append could
// enter the writer's queue first.

/** Per key, hands each call's looked-up value to `enter` only once every earlier call for that key has entered. */
export class CallOrder {
  private readonly last = new Map<string, Promise<void>>();

  /**
   * Waits for `look`, then for the earlier calls on `key` to enter (or fail), then calls `enter` synchronously with
   * the value: `enter` must take its place (a queue, a request) before it returns. A failed look-up rejects this call
   * only, in its turn. The turn ends when `enter` returns, not when what it started settles: calls still overlap.
   */
  async run<T, R>(key: string, look: Promise<T>, enter: (value: T) => R | Promise<R>): Promise<R> {
    const before = this.last.get(key);
    let entered!: () => void;
    const mine = new Promise<void>((resolve) => (entered = resolve));
    this.last.set(key, mine);
    try {
      if (before === undefined) return enter(await look);
      const looked = await look.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      await before;
      if (!looked.ok) throw looked.error;
      return enter(looked.value);
    } finally {
      entered();
      if (this.last.get(key) === mine) this.last.delete(key);
    }
  }
}
