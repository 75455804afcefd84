import type { LogScope } from './types.js';

// The lease calls of many streams in one script call. When 1,000 streams start (or end, or renew) within
// the same few milliseconds, 1,000 separate ACQUIRE calls queue in Redis ahead of the streams' first appends
// (measured: acquires of 33-125 ms, the first appends waiting behind them); one call per turn carries them all.
// Single Redis only (as APPEND_MANY): each stream's keys are built in the script from its key base
// (lib/log/redis-keys.ts: `<base>:meta`, `:events`, `:end`), and each stream gets its own result.

const KEYS_OF = `
local now
do
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%d', n) end
local function expire3(base, ms)
  redis.call('PEXPIRE', base .. ':meta', ms)
  redis.call('PEXPIRE', base .. ':events', ms)
  redis.call('PEXPIRE', base .. ':end', ms)
end
`;

/**
 * ACQUIRE (lib/log/redis-scripts.ts) for each stream. ARGV: liveTtlMs, then per stream: key base, leaseMs.
 * Returns three elements per stream, in order: 'ok', token, expiresAt; or 'lease_held', until, ''.
 */
export const ACQUIRE_MANY = `${KEYS_OF}
local out = {}
local live = tonumber(ARGV[1])
for a = 2, #ARGV, 2 do
  local base = ARGV[a]
  local km = base .. ':meta'
  local m = redis.call('HMGET', km, 'holder', 'until', 'fence', 'end')
  local holder = tonumber(m[1]) or 0
  if holder > 0 and (tonumber(m[2]) or 0) > now then
    out[#out + 1] = 'lease_held'
    out[#out + 1] = m[2]
    out[#out + 1] = ''
  else
    -- Greater than every earlier token of this stream, and than any token of an expired earlier life of its keys.
    local lease = tonumber(ARGV[a + 1])
    local token = math.max((tonumber(m[3]) or 0) + 1, now)
    local expires = now + lease
    redis.call('HSET', km, 'fence', int(token), 'holder', int(token), 'until', int(expires))
    if not m[4] then expire3(base, math.max(live, 2 * lease)) end
    out[#out + 1] = 'ok'
    out[#out + 1] = int(token)
    out[#out + 1] = int(expires)
  end
end
return out
`;

/**
 * RENEW for each stream. ARGV: liveTtlMs, then per stream: key base, token, leaseMs.
 * Returns three elements per stream, in order: 'ok', token, expiresAt; or 'fenced', '', ''.
 */
export const RENEW_MANY = `${KEYS_OF}
local out = {}
local live = tonumber(ARGV[1])
for a = 2, #ARGV, 3 do
  local base = ARGV[a]
  local km = base .. ':meta'
  local m = redis.call('HMGET', km, 'holder', 'until', 'end')
  if tonumber(m[1]) ~= tonumber(ARGV[a + 1]) or (tonumber(m[2]) or 0) <= now then
    out[#out + 1] = 'fenced'
    out[#out + 1] = ''
    out[#out + 1] = ''
  else
    local lease = tonumber(ARGV[a + 2])
    local expires = now + lease
    redis.call('HSET', km, 'until', int(expires))
    if not m[3] then expire3(base, math.max(live, 2 * lease)) end
    out[#out + 1] = 'ok'
    out[#out + 1] = m[1]
    out[#out + 1] = int(expires)
  end
end
return out
`;

/** RELEASE for each stream (a stale token is ignored). ARGV per stream: key base, token. Returns {}. */
export const RELEASE_MANY = `
for a = 1, #ARGV, 2 do
  local km = ARGV[a] .. ':meta'
  if tonumber(redis.call('HGET', km, 'holder')) == tonumber(ARGV[a + 1]) then
    redis.call('HDEL', km, 'holder', 'until')
  end
end
return {}
`;

/** Most streams one call carries: a script blocks Redis while it runs (1,000 acquires: about 8 ms of Redis). */
const MAX_STREAMS = 250;

interface Waiting<T> {
  readonly scope: LogScope;
  readonly args: readonly (string | number)[];
  readonly resolve: (r: T) => void;
  readonly reject: (e: unknown) => void;
}

export interface LeaseBatcher {
  /** Resolves with this stream's part of the reply (`width` elements), or rejects when the call failed. */
  add(scope: LogScope, args: readonly (string | number)[]): Promise<string[]>;
  /** Sends what waits now (before the log closes its connection). */
  flush(): void;
}

/**
 * Gathers the calls made until `soon` runs its callback (setImmediate: the rest of the event-loop turn;
 * queueMicrotask: the current job's microtasks) and sends them, at most MAX_STREAMS at a time, through `send`
 * (the batch, never empty), which resolves with `width` reply elements per call in order (`width` 0: none).
 */
export function leaseBatcher(
  width: number,
  send: (batch: readonly { scope: LogScope; args: readonly (string | number)[] }[]) => Promise<string[]>,
  soon: (f: () => void) => void = setImmediate,
): LeaseBatcher {
  let queue: Waiting<string[]>[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    if (queue.length === 0) return;
    const all = queue;
    queue = [];
    for (let i = 0; i < all.length; i += MAX_STREAMS) {
      const batch = all.slice(i, i + MAX_STREAMS);
      send(batch).then(
        (r) => {
          if (r.length !== batch.length * width) {
            const e = new Error(`a lease script answered ${r.length} elements for ${batch.length} streams`);
            for (const w of batch) w.reject(e);
          } else batch.forEach((w, k) => w.resolve(r.slice(k * width, (k + 1) * width)));
        },
        (e: unknown) => {
          for (const w of batch) w.reject(e);
        },
      );
    }
  };

  return {
    add(scope, args) {
      return new Promise<string[]>((resolve, reject) => {
        queue.push({ scope, args, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          soon(flush);
        }
      });
    },
    flush,
  };
}
