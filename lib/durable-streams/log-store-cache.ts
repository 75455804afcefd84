import type { LogScope } from '../log/types.js';

// The store's in-process caches (directory views, writer states) are only shortcuts, validated against the log on
// every use: bounded so that a process serving many streams keeps the most recently used ones, not every one.

/** A Map that forgets its least recently used key past `max` entries. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    this.map.delete(key);
  }
}

/**
 * The log scopes of one store, one object per stream name: the logs key a scope object once (a WeakMap from scope to
 * its key string), so handing them the same object each call spares a key built again per call.
 */
export class Scopes {
  private readonly known: BoundedMap<string, LogScope>;

  constructor(
    private readonly owner: string,
    max: number,
  ) {
    this.known = new BoundedMap(max);
  }

  get(responseId: string): LogScope {
    let scope = this.known.get(responseId);
    if (scope === undefined) this.known.set(responseId, (scope = { owner: this.owner, responseId }));
    return scope;
  }
}
