// The Lua scripts of `redisEventLog` (lib/log/redis.ts): every write to a stream runs as one script, so the
// fencing check, the duplicate skip, the limits, the write and the keys' expiries happen atomically.
//
// Keys, all of one response and so all in one Redis Cluster hash slot (they share a `{hash tag}`):
//   KEYS[1]  meta    hash:   fence (highest token issued), holder + until (the live lease), last (highest stored
//                            sequence_number), count, bytes (JSON bytes stored), end ('completed' | 'cancelled')
//   KEYS[2]  events  stream: one entry per event, id `<sequence_number>-1`, field `e` = the event's JSON
//            (a cancel of a started stream also adds an entry `<last>-2` with field `end`, so that a reader tailing only
//            the events keys learns of it from the same XREAD; readers skip entries without `e`)
//   KEYS[3]  end     stream: one entry once the stream ended, so a reader's XREAD BLOCK wakes on a cancel too
//
// Times are Redis's own clock (TIME), so that leases mean the same to every process. Each script returns an
// array whose first element says how it went: 'ok', 'fenced', 'lease_held' or 'limit'.

const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%d', n) end
local function expire_all(ms)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ms) end
end
`;

/** ARGV: leaseMs, liveTtlMs. Returns {'ok', token, expiresAt} or {'lease_held', until}. */
export const ACQUIRE = `${PRELUDE}
local now = now_ms()
local m = redis.call('HMGET', KEYS[1], 'holder', 'until', 'fence', 'end')
local holder = tonumber(m[1]) or 0
if holder > 0 and (tonumber(m[2]) or 0) > now then return {'lease_held', m[2]} end
-- Greater than every earlier token of this stream, and than any token of an expired earlier life of its keys.
local token = math.max((tonumber(m[3]) or 0) + 1, now)
local expires = now + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'fence', int(token), 'holder', int(token), 'until', int(expires))
if not m[4] then expire_all(math.max(tonumber(ARGV[2]), 2 * tonumber(ARGV[1]))) end
return {'ok', int(token), int(expires)}
`;

/** ARGV: token, leaseMs, liveTtlMs. Returns {'ok', token, expiresAt} or {'fenced'}. */
export const RENEW = `${PRELUDE}
local now = now_ms()
local m = redis.call('HMGET', KEYS[1], 'holder', 'until', 'end')
if tonumber(m[1]) ~= tonumber(ARGV[1]) or (tonumber(m[2]) or 0) <= now then return {'fenced'} end
local expires = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'until', int(expires))
if not m[3] then expire_all(math.max(tonumber(ARGV[3]), 2 * tonumber(ARGV[2]))) end
return {'ok', m[1], int(expires)}
`;

/** ARGV: token. A stale token is ignored. Returns {'ok'}. */
export const RELEASE = `
if tonumber(redis.call('HGET', KEYS[1], 'holder')) == tonumber(ARGV[1]) then
  redis.call('HDEL', KEYS[1], 'holder', 'until')
end
return {'ok'}
`;

// Appends events to one stream (keys km, ke, kn: meta, events, end) for the holder of `token`. The events
// come packed (few arguments for the client to write and for Redis to parse): `seqs`, their sequence numbers
// joined by ',' with a 't' after a terminal one ('4,5,6t'), and their JSON, one after another from byte `pos`
// of `jsons`, each ended by '\n' but the last of `jsons` (JSON.stringify never writes a raw newline).
// Returns nil when it went well (the events stored, or none to store), else {'fenced'} or
// {'limit', what, would}; and the byte of `jsons` after this stream's events.
// The keys' expiry is pushed back to live_ttl when the stream gets its first events and then only once it has
// come nearer than live_ttl less 1% (at most 1 s): three PEXPIREs per append were a third of its cost.
const APPEND_ONE = `
local function append_one(km, ke, kn, token, live_ttl, end_ttl, max_events, max_bytes, seqs, jsons, pos, now)
  local m = redis.call('HMGET', km, 'holder', 'until', 'end', 'last', 'count', 'bytes', 'exp')
  -- Where this stream's events end in jsons, and which of them to store: those after the last stored, up to
  -- a terminal one (their id, first and last byte, three to an event in one flat table).
  local last = tonumber(m[4])
  local picked = {}
  local n, added, terminal, at = 0, 0, false, nil
  for s, t in string.gmatch(seqs, '(%d+)(t?)') do
    local nl = string.find(jsons, '\\n', pos, true)
    local stop = nl and nl - 1 or #jsons
    if not terminal then
      local v = tonumber(s)
      if last == nil or v > last then
        n, added, last, at = n + 1, added + stop - pos + 1, v, s
        picked[3 * n - 2], picked[3 * n - 1], picked[3 * n] = s, pos, stop
        terminal = t == 't'
      end
    end
    pos = stop + 2
  end
  if tonumber(m[1]) ~= tonumber(token) or (tonumber(m[2]) or 0) <= now then return {'fenced'}, pos end
  if m[3] or n == 0 then return nil, pos end
  local count = tonumber(m[5]) or 0
  local bytes = tonumber(m[6]) or 0
  if count + n > tonumber(max_events) then return {'limit', 'events', int(count + n)}, pos end
  if bytes + added > tonumber(max_bytes) then return {'limit', 'bytes', int(bytes + added)}, pos end
  local whole = #jsons
  for i = 1, 3 * n, 3 do
    local p, stop = picked[i + 1], picked[i + 2]
    redis.call('XADD', ke, picked[i] .. '-1', 'e', (p == 1 and stop == whole) and jsons or string.sub(jsons, p, stop))
  end
  if terminal then
    redis.call('HSET', km, 'last', at, 'count', int(count + n), 'bytes', int(bytes + added), 'end', 'completed')
    redis.call('XADD', kn, '*', 'end', 'completed')
    local ttl = tonumber(end_ttl)
    redis.call('PEXPIRE', km, ttl)
    redis.call('PEXPIRE', ke, ttl)
    redis.call('PEXPIRE', kn, ttl)
    return nil, pos
  end
  local ttl = tonumber(live_ttl)
  local exp = tonumber(m[7])
  if count == 0 or exp == nil or exp - now < ttl - math.min(1000, math.floor(ttl / 100)) then
    redis.call('HSET', km, 'last', at, 'count', int(count + n), 'bytes', int(bytes + added), 'exp', int(now + ttl))
    redis.call('PEXPIRE', km, ttl)
    redis.call('PEXPIRE', ke, ttl)
  else
    redis.call('HSET', km, 'last', at, 'count', int(count + n), 'bytes', int(bytes + added))
  end
  return nil, pos
end
`;

/**
 * ARGV: token, liveTtlMs, endTtlMs, maxEvents, maxBytes, seqs, jsons (the events packed as APPEND_ONE says).
 * Returns {'ok'}, {'fenced'} or {'limit', what, would}.
 */
export const APPEND = `${PRELUDE}${APPEND_ONE}
return (append_one(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], 1, now_ms())) or {'ok'}
`;

/**
 * The appends of several streams in one call, on a single Redis only: the streams of one call live in
 * different Cluster slots anyway, so their keys are not passed as KEYS (thousands of arguments) but built
 * here from each stream's key base (lib/log/redis-keys.ts: `<base>:meta`, `:events`, `:end`). ARGV:
 * liveTtlMs, endTtlMs, maxEvents, maxBytes, the JSON of every stream's events in turn (joined by '\n'), then
 * per stream: key base, token, seqs (as in APPEND). Returns only the appends that failed, four elements
 * each: the stream's position in the call (from 1), then what APPEND returns, padded with ''. Each stream's
 * append is all or nothing on its own.
 */
export const APPEND_MANY = `${PRELUDE}${APPEND_ONE}
local now = now_ms()
local jsons = ARGV[5]
local pos = 1
local out = {}
local j = 0
for a = 6, #ARGV, 3 do
  j = j + 1
  local base = ARGV[a]
  local r
  r, pos = append_one(base .. ':meta', base .. ':events', base .. ':end', ARGV[a + 1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[a + 2], jsons, pos, now)
  if r then
    out[#out + 1] = int(j)
    out[#out + 1] = r[1]
    out[#out + 1] = r[2] or ''
    out[#out + 1] = r[3] or ''
  end
end
return out
`;

/** ARGV: endTtlMs. Ends the stream as cancelled (creating it when it does not exist) unless it already ended. */
export const CANCEL = `
local held = redis.call('HGET', KEYS[1], 'holder')
redis.call('HDEL', KEYS[1], 'holder', 'until')
if not redis.call('HGET', KEYS[1], 'end') then
  redis.call('HSET', KEYS[1], 'end', 'cancelled')
  -- Only where a reader may be following: a stream never started keeps no events key.
  if held or redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('XADD', KEYS[2], (redis.call('HGET', KEYS[1], 'last') or '0') .. '-2', 'end', 'cancelled')
  end
  redis.call('XADD', KEYS[3], '*', 'end', 'cancelled')
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1])) end
end
return {'ok'}
`;

/** Returns {} when the stream does not exist, else {'ok', holder, until, end, last, now} ('' for none). */
export const STATE = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local m = redis.call('HMGET', KEYS[1], 'holder', 'until', 'end', 'last')
return {'ok', m[1] or '', m[2] or '', m[3] or '', m[4] or '', int(now_ms())}
`;
