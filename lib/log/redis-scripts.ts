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

// Appends the events in ARGV[from..to] (triples: sequence_number, '1' when terminal else '0', JSON) to one
// stream (keys km, ke, kn: meta, events, end) for the holder of `token`. Returns {'ok', stored}, {'fenced'} or
// {'limit', what, would}.
const APPEND_ONE = `
local function append_one(km, ke, kn, token, live_ttl, end_ttl, max_events, max_bytes, from, to, now)
  local m = redis.call('HMGET', km, 'holder', 'until', 'end', 'last', 'count', 'bytes')
  if tonumber(m[1]) ~= tonumber(token) or (tonumber(m[2]) or 0) <= now then return {'fenced'} end
  if m[3] then return {'ok', '0'} end
  local last = tonumber(m[4])
  local count = tonumber(m[5]) or 0
  local bytes = tonumber(m[6]) or 0
  local picked = {}
  local added = 0
  local terminal = false
  for i = from, to, 3 do
    local seq = tonumber(ARGV[i])
    if last == nil or seq > last then
      picked[#picked + 1] = i
      last = seq
      added = added + string.len(ARGV[i + 2])
      if ARGV[i + 1] == '1' then
        terminal = true
        break
      end
    end
  end
  if #picked == 0 then return {'ok', '0'} end
  if count + #picked > tonumber(max_events) then return {'limit', 'events', int(count + #picked)} end
  if bytes + added > tonumber(max_bytes) then return {'limit', 'bytes', int(bytes + added)} end
  for _, i in ipairs(picked) do
    redis.call('XADD', ke, ARGV[i] .. '-1', 'e', ARGV[i + 2])
  end
  redis.call('HSET', km, 'last', ARGV[picked[#picked]], 'count', int(count + #picked), 'bytes', int(bytes + added))
  local ttl = tonumber(live_ttl)
  if terminal then
    redis.call('HSET', km, 'end', 'completed')
    redis.call('XADD', kn, '*', 'end', 'completed')
    ttl = tonumber(end_ttl)
  end
  redis.call('PEXPIRE', km, ttl)
  redis.call('PEXPIRE', ke, ttl)
  redis.call('PEXPIRE', kn, ttl)
  return {'ok', int(#picked)}
end
`;

/**
 * ARGV: token, liveTtlMs, endTtlMs, maxEvents, maxBytes, then per event: sequence_number, '1' when terminal
 * else '0', JSON. Returns {'ok', stored}, {'fenced'} or {'limit', what, would}.
 */
export const APPEND = `${PRELUDE}${APPEND_ONE}
return append_one(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], 6, #ARGV, now_ms())
`;

/**
 * The appends of several streams in one call (a single Redis: the streams' keys are in different Cluster
 * slots). KEYS: meta, events, end of each stream in turn. ARGV: liveTtlMs, endTtlMs, maxEvents, maxBytes,
 * then per stream: token, number of events n, n triples as in APPEND. Returns three elements per stream: what
 * APPEND returns, padded with ''. Each stream's append is all or nothing on its own.
 */
export const APPEND_MANY = `${PRELUDE}${APPEND_ONE}
local now = now_ms()
local out = {}
local i = 5
for j = 0, #KEYS / 3 - 1 do
  local from = i + 2
  local to = from + 3 * tonumber(ARGV[i + 1]) - 1
  local r = append_one(KEYS[3 * j + 1], KEYS[3 * j + 2], KEYS[3 * j + 3], ARGV[i], ARGV[1], ARGV[2], ARGV[3], ARGV[4], from, to, now)
  out[#out + 1] = r[1]
  out[#out + 1] = r[2] or ''
  out[#out + 1] = r[3] or ''
  i = to + 1
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
