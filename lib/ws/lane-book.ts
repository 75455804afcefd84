// Which response ran on which lane, and which have ended: how a frame is matched to its request by response
// id (a duplicated or stray terminal event must not end the next request), and how forks find their parent.

const MAX_REMEMBERED = 1024;

export class ResponseBook {
  /** Response id → its lane key and whether it ended; oldest first, bounded. */
  private readonly ids = new Map<string, { readonly lane: string; ended: boolean }>();

  /** Records a response as running on `lane` (moving it to the newest end). */
  running(id: string, lane: string): void {
    this.ids.delete(id);
    this.ids.set(id, { lane, ended: false });
    this.trim();
  }

  /** Records a response as over (its terminal event was seen, or the lane gave up on it). */
  ended(id: string, lane: string): void {
    const known = this.ids.get(id);
    if (known) known.ended = true;
    else {
      this.ids.set(id, { lane, ended: true });
      this.trim();
    }
  }

  hasEnded(id: string): boolean {
    return this.ids.get(id)?.ended === true;
  }

  laneOf(id: string): string | undefined {
    return this.ids.get(id)?.lane;
  }

  private trim(): void {
    if (this.ids.size <= MAX_REMEMBERED) return;
    const oldest = this.ids.keys().next();
    if (!oldest.done) this.ids.delete(oldest.value);
  }
}
