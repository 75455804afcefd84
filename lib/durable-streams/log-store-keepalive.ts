import type { EventLog, LogScope } from '../log/types.js';
import { BoundedMap } from './log-store-cache.js';
import type { LogStoreSettings } from './log-store-options.js';

// The log drops a stream that has not ended `liveTtlMs` after its last acquire, renew or append. A durable stream's
// directory is written only by creates and deletes, and an open stream only read is not written at all: without
// this, both would vanish a day (the logs' default) after their last write, however busy. So a read or write of a
// stream also takes and gives back (at once) the lease of its directory and data streams, which pushes their expiry
// back, at most once per `keepAliveMs` per process and stream, in the background. A lease held by someone else is
// left alone: its holder is writing, which pushes the expiry back too. (A closed stream's data, ended in the log, is
// kept the log's `ttlMs` after its close whatever this does.)

export class KeepAlive {
  private readonly done: BoundedMap<string, number>;

  constructor(
    private readonly log: EventLog,
    private readonly settings: LogStoreSettings,
  ) {
    this.done = new BoundedMap(settings.cacheSize);
  }

  /** Pushes back the expiry of `scopes` (once per keepAliveMs); never waits, never fails. */
  touch(key: string, scopes: readonly LogScope[]): void {
    const now = Date.now();
    const last = this.done.get(key);
    if (last !== undefined && now - last < this.settings.keepAliveMs) return;
    this.done.set(key, now);
    for (const scope of scopes) void this.refresh(scope);
  }

  private async refresh(scope: LogScope): Promise<void> {
    try {
      const lease = await this.log.acquire(scope, this.settings.leaseMs);
      await this.log.release(scope, lease.token);
    } catch {
      // lease_held (its holder's writes push the expiry back) or the log unavailable: the next access tries again
    }
  }
}
