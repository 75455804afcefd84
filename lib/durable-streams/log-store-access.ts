import { EventLogError } from '../errors.js';
import type { EventLog, LogScope } from '../log/types.js';
import type { Incarnation } from './log-store-directory.js';
import type { LogStoreSettings } from './log-store-options.js';

// Expiry. `Stream-Expires-At` is in the incarnation's config. A sliding TTL needs the last read or write, which any
// process may have served: each incarnation with a TTL has an access stream in the log whose events are numbered by
// the epoch ms of the access they record, so its `state().lastSequenceNumber` IS the last recorded access (one call),
// and a late or concurrent record (a lower number) is skipped by the log, never moving it back. A process records an
// access only when the last record is older than the granularity (touchIntervalMs, or a tenth of the TTL when that is
// shorter): a stream may live up to that much less than its TTL after its last access, never longer.

export class Access {
  constructor(
    private readonly log: EventLog,
    private readonly settings: LogStoreSettings,
  ) {}

  private scope(inc: Incarnation): LogScope {
    return this.settings.scopes.get(inc.access);
  }

  /** Whether `inc` has expired; when not and `touch`, this access is recorded (throttled). */
  async expired(inc: Incarnation, touch: boolean): Promise<boolean> {
    const now = this.settings.now();
    const { expiresAt, ttlSeconds } = inc.config;
    if (expiresAt !== undefined) {
      const at = Date.parse(expiresAt);
      if (Number.isFinite(at) && now >= at) return true;
    }
    if (ttlSeconds === undefined) return false;
    const state = await this.log.state(this.scope(inc));
    const last = Math.max(inc.createdAt, state?.lastSequenceNumber ?? 0);
    const ttlMs = ttlSeconds * 1000;
    if (now >= last + ttlMs) return true;
    if (touch && now - last >= Math.min(this.settings.touchIntervalMs, ttlMs / 10)) await this.record(inc, now);
    return false;
  }

  /** Records an access at `now`: skipped while another process is recording one (it records about the same time). */
  private async record(inc: Incarnation, now: number): Promise<void> {
    const scope = this.scope(inc);
    let token: number;
    try {
      token = (await this.log.acquire(scope, this.settings.leaseMs)).token;
    } catch (e) {
      if (e instanceof EventLogError && e.reason === 'lease_held') return;
      throw e;
    }
    try {
      await this.log.append(scope, token, [{ type: 'durable_stream.access', sequence_number: Math.floor(now) }]);
    } finally {
      await this.log.release(scope, token).catch(() => undefined);
    }
  }
}
