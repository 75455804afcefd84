import { PRELUDE } from './redis-scripts.js';

// The lease scripts of `redisEventLog`: acquire, renew and release for one or more streams in one call, all of
// one Cluster slot. KEYS: each stream's meta, events and end keys, in turn (lib/log/redis-scripts.ts says what
// they hold). Each stream gets its own three reply elements, in order; a stream whose meta key holds another
// type answers 'corrupt', key, Redis's error, and the others go on. Each can run twice to the same effect (the
// log tries a call again after a transient failure, whose reply may have been lost after it ran): an acquire
// carries a claim (random, stored with the lease), so that its repeat answers the lease it got, not 'lease_held'.
// (The error(...) calls share their line with the command, so that a refusal names it: lib/log/redis-refused.ts.)

const EACH = `${PRELUDE}
local now = now_ms()
local out = {}
local function answer(a, b, c)
  out[#out + 1] = a
  out[#out + 1] = b
  out[#out + 1] = c
end
local function expire3(j, ms)
  redis.call('PEXPIRE', KEYS[3 * j - 2], ms)
  redis.call('PEXPIRE', KEYS[3 * j - 1], ms)
  redis.call('PEXPIRE', KEYS[3 * j], ms)
end
`;

/**
 * ARGV: liveTtlMs, then per stream: leaseMs, claim. Per stream: 'ok', token, expiresAt; 'lease_held', until,
 * ''; or 'corrupt', key, error. The claim's own lease, still held, is answered again as it is.
 */
export const ACQUIRE = `${EACH}
local live = tonumber(ARGV[1])
for j = 1, #KEYS / 3 do
  local km = KEYS[3 * j - 2]
  local lease, claim = tonumber(ARGV[2 * j]), ARGV[2 * j + 1]
  local m = redis.pcall('HMGET', km, 'holder', 'until', 'fence', 'end', 'claim') if broken(m) and not key_trouble(m) then error(m) end
  if broken(m) then
    answer('corrupt', km, m.err)
  elseif (tonumber(m[1]) or 0) > 0 and (tonumber(m[2]) or 0) > now then
    if m[5] == claim then answer('ok', m[1], m[2]) else answer('lease_held', m[2], '') end
  else
    -- Greater than every earlier token of this stream, and than any token of an expired earlier life of its keys.
    local token = math.max((tonumber(m[3]) or 0) + 1, now)
    local expires = now + lease
    redis.call('HSET', km, 'fence', int(token), 'holder', int(token), 'until', int(expires), 'claim', claim)
    if not m[4] then expire3(j, math.max(live, 2 * lease)) end
    answer('ok', int(token), int(expires))
  end
end
return out
`;

/** ARGV: liveTtlMs, then per stream: token, leaseMs. Per stream: 'ok', token, expiresAt; 'fenced', '', ''; or 'corrupt', key, error. */
export const RENEW = `${EACH}
local live = tonumber(ARGV[1])
for j = 1, #KEYS / 3 do
  local km = KEYS[3 * j - 2]
  local token, lease = ARGV[2 * j], tonumber(ARGV[2 * j + 1])
  local m = redis.pcall('HMGET', km, 'holder', 'until', 'end') if broken(m) and not key_trouble(m) then error(m) end
  if broken(m) then
    answer('corrupt', km, m.err)
  elseif tonumber(m[1]) ~= tonumber(token) or (tonumber(m[2]) or 0) <= now then
    answer('fenced', '', '')
  else
    local expires = now + lease
    redis.call('HSET', km, 'until', int(expires))
    if not m[3] then expire3(j, math.max(live, 2 * lease)) end
    answer('ok', m[1], int(expires))
  end
end
return out
`;

/** ARGV per stream: token (a stale one is ignored). Per stream: 'ok', '', ''; or 'corrupt', key, error. */
export const RELEASE = `
local out = {}
for j = 1, #KEYS / 3 do
  local km = KEYS[3 * j - 2]
  local holder = redis.pcall('HGET', km, 'holder') if type(holder) == 'table' and holder.err and not string.find(holder.err, '^WRONGTYPE') then error(holder) end
  local n = #out
  if type(holder) == 'table' and holder.err then
    out[n + 1], out[n + 2], out[n + 3] = 'corrupt', km, holder.err
  else
    if tonumber(holder) == tonumber(ARGV[j]) then redis.call('HDEL', km, 'holder', 'until', 'claim') end
    out[n + 1], out[n + 2], out[n + 3] = 'ok', '', ''
  end
end
return out
`;
