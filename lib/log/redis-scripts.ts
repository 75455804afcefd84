// The Lua scripts of `redisEventLog` (lib/log/redis.ts): every write to a stream runs as one script, so the
// fencing check, the duplicate skip, the limits, the write and the keys' expiries happen atomically.
//
// Keys, all of one response and so all in one Redis Cluster hash slot (they share a `{hash tag}`):
//   KEYS[1]  meta    hash:   fence (highest token issued), holder + until (the live lease), last (highest stored
//                            sequence_number), count, bytes (JSON bytes stored), end ('completed' | 'cancelled')
//   KEYS[2]  events  stream: an entry per event, id `<sequence_number>-1`, field `e` = the event's JSON; an append's
//            events after its first are one entry, their JSON joined by '\r', under the last one's id (redis-entries.ts)
//            (a cancel of a started stream also adds an entry `<last>-2` with field `end`, so that a reader tailing only
//            the events keys learns of it from the same XREAD; readers skip entries without `e`; with `replicas`,
//            a confirmation's marker, field `c`, see CONFIRM)
//   KEYS[3]  end     stream: one entry once the stream ended, so a reader's XREAD BLOCK wakes on a cancel too
//
// Times are Redis's own clock (TIME), so that leases mean the same to every process. The write scripts take the
// keys of one or more streams (three each, in KEYS: every key a script touches is declared, as a Cluster needs;
// on a single Redis the appends take one each, APPEND_BASE) and answer for each stream: 'ok', 'fenced', 'lease_held', 'limit', 'lost' or 'corrupt'. The lease scripts
// are in lib/log/redis-lease-scripts.ts.

export const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%d', n) end
-- An error reply (redis.pcall's), and one that says a key holds something else than the log put there.
local function broken(r) return type(r) == 'table' and r.err ~= nil end
local function key_trouble(r) return string.find(r.err, '^WRONGTYPE') ~= nil or string.find(r.err, 'equal or smaller than the target stream top item', 1, true) ~= nil end
`;

// Appends events to one stream (keys km, ke, kn: meta, events, end) for the holder of `token`. The events
// come packed (few arguments for the client to write and for Redis to parse): `seqs`, their marks joined by ','
// (the sequence number, or -1 - it for a terminal event: '4,5,-7' ends with sequence number 6, as a writer
// queues them: lib/log/packed.ts), or `lo~hi` for consecutive ones ('4~-7': 4, 5, and a terminal 6); and their
// JSON from byte `pos` of `jsons`, joined by '\r', before the next stream's '\n' or the end of `jsons`
// (JSON.stringify never writes a raw line break). Consecutive marks after the stored ones are stored without
// looking at each event (a loop over them was half of the script's own work).
// `acked`: the highest sequence number this producer was told is stored ('' for none); a stream whose stored
// last is below it lost acknowledged events (a master died before its replica had them): 'lost', rather
// than storing past the gap. A key that is not what the log left there (another type, a stream with entries
// past the recorded last, an events key gone once events were counted: evicted) fails this stream alone,
// 'corrupt', key, Redis's error, before its events are written; any other error of Redis ends the script.
// Returns nil when it went well (the events stored, or none to store), else {'fenced'}, {'limit', what,
// would}, {'lost', stored, acked} or {'corrupt', key, error}; and the byte of `jsons` after this stream's events.
// The keys' expiry is pushed back to live_ttl when the stream gets its first events and then only once it has
// come nearer than live_ttl less 1% (at most 1 s): three PEXPIREs per append were a third of its cost.
// (The error(...) calls share their line with the command, so that a refusal names it: lib/log/redis-refused.ts.)
// `live` (APPEND_LIVE): the stored entries are published too, a line each, from the strings the XADDs took (a
// string per line, and each JSON cut out again, were much of its Redis CPU per event).
// An append of one event (a paced stream's: most of them) takes a path without the tables of several, and the
// counts go to HSET as Lua numbers (Redis writes an integral one as its digits, as int() did): the script's own
// work was more than half of its Redis CPU per event (docs/performance.md, the durable log's fifth round).
/** Most events in one entry: a reader from a cursor inside one parses its events before the cursor too. */
export const MAX_JOINED = 64;

const appendOne = (live: boolean): string => `
-- The first XADD of an append checks the events key (another type, entries past the recorded last, gone once
-- events were counted): a 'corrupt' reply, or nil.
local function first_xadd(ke, count, id, json)
  local r
  if count > 0 then r = redis.pcall('XADD', ke, 'NOMKSTREAM', id, 'e', json) else r = redis.pcall('XADD', ke, id, 'e', json) end if broken(r) and not key_trouble(r) then error(r) end
  if not r then return {'corrupt', ke, 'missing, though ' .. int(count) .. ' events were stored (evicted?)'} end
  if broken(r) then return {'corrupt', ke, r.err} end
  return nil
end
local function append_one(km, ke, kn, token, seqs, acked, jsons, pos, now, live_ttl, end_ttl, max_events, max_bytes)
  local m = redis.pcall('HMGET', km, 'holder', 'until', 'end', 'last', 'count', 'bytes', 'exp') if m.err and not key_trouble(m) then error(m) end
  local bad = nil
  if m.err then bad, m = m.err, {} end
  local stored = tonumber(m[4])
  local n, added, terminal, at = 0, 0, false, nil
  -- Which events to store: those after the last stored, up to a terminal one. The first is stored alone, from
  -- byte p1 to stop1 under id first; the others in entries of at most ${MAX_JOINED} (parts: each one's id, then its
  -- events' JSON as one string), each under its last event's id.
  local first, p1, stop1, parts
  -- This stream's JSON ends before the next '\\n' (the next stream's) or with jsons.
  local send, lo, hi = nil, nil, nil
  if seqs ~= '' then
    local e = string.find(jsons, '\\n', pos, true)
    send = e and e - 1 or #jsons
    lo, hi = string.match(seqs, '^(%d+)~(%-?%d+)$')
  end
  if lo then
    lo, hi = tonumber(lo), tonumber(hi)
    if hi < 0 then terminal, hi = true, -1 - hi end
    if stored == nil or lo > stored then
      -- Consecutive and all after the stored (a writer's usual append): no event to look at but the first.
      n, at, first, p1, stop1 = hi - lo + 1, int(hi), int(lo), pos, send
      added = send - pos + 1 - (n - 1)
      if n > 1 then
        stop1 = string.find(jsons, '\\r', pos, true) - 1
        parts = {}
        local from, taken = stop1 + 2, 1
        while n - taken > ${MAX_JOINED} do
          local to = from
          for k = 1, ${MAX_JOINED} do to = string.find(jsons, '\\r', to, true) + 1 end
          taken = taken + ${MAX_JOINED}
          parts[#parts + 1] = int(lo + taken - 1) .. '-1'
          parts[#parts + 1] = string.sub(jsons, from, to - 2)
          from = to
        end
        parts[#parts + 1] = at .. '-1'
        parts[#parts + 1] = string.sub(jsons, from, send)
      end
      seqs = ''
    else
      -- Some stored already (a replay): each event's mark, for the loop below.
      local marks = {}
      for v = lo, hi do marks[#marks + 1] = int(v) end
      if terminal then marks[#marks] = int(-1 - hi) end
      seqs, terminal = table.concat(marks, ','), false
    end
  end
  if seqs == '' then
    -- no events (and no JSON in jsons), or taken above
  elseif not string.find(seqs, ',', 1, true) then
    local v = tonumber(seqs)
    local t = v < 0
    if t then v = -1 - v end
    if stored == nil or v > stored then
      n, added, terminal, at, p1, stop1 = 1, send - pos + 1, t, t and int(v) or seqs, pos, send
      first = at
    end
  else
    -- Each event's id, first and last byte, three to an event in one flat table; then the first alone, and the
    -- others joined as in jsons (a run of them is one cut).
    local picked = {}
    local last = stored
    for s in string.gmatch(seqs, '[^,]+') do
      local nl = string.find(jsons, '\\r', pos, true)
      local stop = (nl and nl <= send) and nl - 1 or send
      if not terminal then
        local v = tonumber(s)
        local t = v < 0
        if t then v = -1 - v s = int(v) end
        if last == nil or v > last then
          n, added, last, at = n + 1, added + stop - pos + 1, v, s
          picked[3 * n - 2], picked[3 * n - 1], picked[3 * n] = s, pos, stop
          terminal = t
        end
      end
      pos = stop + 2
    end
    if n > 0 then first, p1, stop1 = picked[1], picked[2], picked[3] end
    if n > 1 then
      parts = {}
      local i = 4
      while i <= 3 * n do
        -- Events i (the index of its id in picked) to j, at most ${MAX_JOINED}.
        local j = math.min(i + 3 * (${MAX_JOINED} - 1), 3 * n - 2)
        local runs, r, from, to = {}, 0, picked[i + 1], picked[i + 2]
        for k = i + 3, j, 3 do
          local p, stop = picked[k + 1], picked[k + 2]
          if p == to + 2 then to = stop else r = r + 1 runs[r] = string.sub(jsons, from, to) from, to = p, stop end
        end
        local v = string.sub(jsons, from, to)
        if r > 0 then runs[r + 1] = v v = table.concat(runs, '\\r') end
        parts[#parts + 1] = picked[j] .. '-1'
        parts[#parts + 1] = v
        i = j + 3
      end
    end
  end
  if send then pos = send + 2 end
  if bad then return {'corrupt', km, bad}, pos end
  if acked ~= '' and not m[3] and (stored == nil or stored < tonumber(acked)) then return {'lost', m[4] or '', acked}, pos end
  if tonumber(m[1]) ~= tonumber(token) or (tonumber(m[2]) or 0) <= now then return {'fenced'}, pos end
  if m[3] or n == 0 then return nil, pos end
  local count = tonumber(m[5]) or 0
  local bytes = tonumber(m[6]) or 0
  if count + n > tonumber(max_events) then return {'limit', 'events', int(count + n)}, pos end
  if bytes + added > tonumber(max_bytes) then return {'limit', 'bytes', int(bytes + added)}, pos end
  -- The first write to each key checks it (the end key first: a terminal append writes nothing when it is wrong).
  if terminal then
    local r = redis.pcall('XADD', kn, '*', 'end', 'completed') if broken(r) and not key_trouble(r) then error(r) end
    if broken(r) then return {'corrupt', kn, r.err}, pos end
  end
  -- The first event alone (its XADD checks the key), then the others joined, each entry under its last event's
  -- id: an XADD per event was half of an append's Redis CPU. A reader takes the events after its cursor from
  -- them (redis-entries.ts).
  local json = (p1 == 1 and stop1 == #jsons) and jsons or string.sub(jsons, p1, stop1)
  local id1 = first .. '-1'
  local c = first_xadd(ke, count, id1, json)
  if c then return c, pos end
  if parts == nil then
${live ? "    redis.call('SPUBLISH', string.sub(km, 1, -6) .. ':live', id1 .. ' e ' .. json)" : ''}
  else
    for k = 1, #parts, 2 do redis.call('XADD', ke, parts[k], 'e', parts[k + 1]) end
${live ? `    if #parts == 2 then
      redis.call('SPUBLISH', string.sub(km, 1, -6) .. ':live', id1 .. ' e ' .. json .. '\\n' .. parts[1] .. ' e ' .. parts[2])
    else
      local lines = {id1, ' e ', json}
      for k = 1, #parts, 2 do
        local l = #lines
        lines[l + 1], lines[l + 2], lines[l + 3], lines[l + 4] = '\\n', parts[k], ' e ', parts[k + 1]
      end
      redis.call('SPUBLISH', string.sub(km, 1, -6) .. ':live', table.concat(lines))
    end` : ''}
  end
  if terminal then
    redis.call('HSET', km, 'last', at, 'count', count + n, 'bytes', bytes + added, 'end', 'completed')
    local ttl = tonumber(end_ttl)
    redis.call('PEXPIRE', km, ttl)
    redis.call('PEXPIRE', ke, ttl)
    redis.call('PEXPIRE', kn, ttl)
    return nil, pos
  end
  local ttl = tonumber(live_ttl)
  local exp = tonumber(m[7])
  if count == 0 or exp == nil or exp - now < ttl - math.min(1000, math.floor(ttl / 100)) then
    redis.call('HSET', km, 'last', at, 'count', count + n, 'bytes', bytes + added, 'exp', now + ttl)
    redis.call('PEXPIRE', km, ttl)
    redis.call('PEXPIRE', ke, ttl)
  else
    redis.call('HSET', km, 'last', at, 'count', count + n, 'bytes', bytes + added)
  end
  return nil, pos
end
`;

/**
 * The appends of one or more streams, all of one Cluster slot. KEYS: each stream's meta, events and end keys,
 * in turn (`oneKey`: each stream's key base alone, see APPEND_BASE). ARGV: liveTtlMs, endTtlMs, maxEvents,
 * maxBytes, the JSON of every stream's events in turn (a stream's joined by '\r', the streams' by '\n'), then
 * every stream's `token:acked:seqs` (as APPEND_ONE says) joined by ' ' into one argument: not an argument per
 * stream, fewer for the client to build and write and for Redis to parse. Returns only the appends that failed, four elements each: the
 * stream's position in the call (from 1), then APPEND_ONE's reply padded with ''. Each stream's append is all
 * or nothing on its own.
 */
const appendScript = (live: boolean, oneKey = false): string => `${PRELUDE}${appendOne(live)}
local now = now_ms()
local jsons = ARGV[5]
local pos = 1
local out = {}
local specs, at = ARGV[6], 1
for j = 1, ${oneKey ? '#KEYS' : '#KEYS / 3'} do
  local token, acked, seqs, nxt = string.match(specs, '^([^:]*):([^:]*):([^ ]*) ?()', at)
  at = nxt
  local r
${oneKey ? "  local b = KEYS[j]\n  r, pos = append_one(b .. ':meta', b .. ':events', b .. ':end', token, seqs, acked, jsons, pos, now, ARGV[1], ARGV[2], ARGV[3], ARGV[4])" : '  r, pos = append_one(KEYS[3 * j - 2], KEYS[3 * j - 1], KEYS[3 * j], token, seqs, acked, jsons, pos, now, ARGV[1], ARGV[2], ARGV[3], ARGV[4])'}
  if r then
    out[#out + 1] = int(j)
    out[#out + 1] = r[1]
    out[#out + 1] = r[2] or ''
    out[#out + 1] = r[3] or ''
  end
end
return out
`;

export const APPEND = appendScript(false);

/**
 * APPEND on a Redis Cluster (and on a single Redis with liveReads 'subscribe'): each stream's new entries are
 * also published (SPUBLISH: same slot as its keys) on its live channel `<keyBase>:live`, one line per entry as
 * stored, `<id> e <json>` (a joined entry's JSON on its line, as stored), for the readers subscribed there (lib/log/redis-cluster-live.ts). A single Redis read
 * with XREAD does not pay for it.
 */
export const APPEND_LIVE = appendScript(true);

/**
 * APPEND and APPEND_LIVE on a single Redis (not a Cluster): KEYS holds each stream's key base
 * (`<keyPrefix>{owner:id}`, lib/log/redis-keys.ts) and the script adds `:meta`, `:events`, `:end` itself. A
 * standalone Redis lets a script without a shebang touch keys it did not declare (the ACL's key patterns still
 * apply to each command, and the base is under the same prefix); a Cluster needs every key declared to route
 * the call. One key instead of three per stream: fewer arguments for the client to build and write (the
 * producer's CPU per event: docs/performance.md, the durable log's sixth round). The keys, and what they hold,
 * are the same.
 */
export const APPEND_BASE = appendScript(false, true);
export const APPEND_LIVE_BASE = appendScript(true, true);

// The id of a marker or a cancel's entry on the events stream ke: \`<seq>-<k>\`, or just after the stream's top entry
// when that is not below it (a confirmation's marker \`<seq>-3\` may already be there, or events after seq).
// Readers tell entries apart by their field (e, c, end), not by their id.
const NEXT_ID = `
local function next_id(ke, seq, k)
  local top = redis.call('XREVRANGE', ke, '+', '-', 'COUNT', 1)[1]
  if top then
    local tms, tk = string.match(top[1], '^(%d+)-(%d+)$')
    tms, tk = tonumber(tms), tonumber(tk)
    if tms > seq or (tms == seq and tk >= k) then return string.format('%d-%d', tms, tk + 1) end
  end
  return string.format('%d-%d', seq, k)
end
`;

/**
 * With \`replicas\` ≥ 1: marks events as confirmed, run once an append's WAIT confirmed it (and then WAITed for
 * too: the mark itself must survive a failover). KEYS: each stream's meta, events and end keys; ARGV: '1' on a
 * Redis Cluster (publish the mark on the live channel, as APPEND_LIVE), then per stream the highest sequence
 * number confirmed. For each stream that holds it (clamped to its stored last) and has not had it marked yet:
 * meta \`durable\` = seq, and an entry on the events stream with field \`c\` = seq (id \`<seq>-3\`: after the event
 * \`<seq>-1\`, before \`<seq+1>-1\`; or right after the top entry). Readers of such a log hand over only the events
 * up to the highest mark (redis-follow.ts, redis-read.ts). Idempotent; answers {}.
 */
export const CONFIRM = `${PRELUDE}${NEXT_ID}
for j = 1, #KEYS / 3 do
  local km, ke = KEYS[3 * j - 2], KEYS[3 * j - 1]
  local m = redis.pcall('HMGET', km, 'last', 'durable')
  if not broken(m) and m[1] and redis.call('EXISTS', ke) == 1 then
    local seq = math.min(tonumber(ARGV[1 + j]), tonumber(m[1]))
    if (tonumber(m[2]) or -1) < seq then
      local id = next_id(ke, seq, 3)
      redis.call('HSET', km, 'durable', int(seq))
      redis.call('XADD', ke, id, 'c', int(seq))
      if ARGV[1] == '1' then redis.call('SPUBLISH', string.sub(km, 1, -6) .. ':live', id .. ' c ' .. int(seq)) end
    end
  end
end
return {}
`;

/**
 * ARGV: endTtlMs, and '1' on a Redis Cluster: publish the end on the stream's live channel too (as APPEND_LIVE:
 * `<id> end cancelled`, or `end` when only the end key got an entry). Ends the stream as cancelled (creating
 * it when it does not exist) unless it already ended.
 */
export const CANCEL = `${NEXT_ID}
local held = redis.call('HGET', KEYS[1], 'holder')
redis.call('HDEL', KEYS[1], 'holder', 'until')
if not redis.call('HGET', KEYS[1], 'end') then
  redis.call('HSET', KEYS[1], 'end', 'cancelled')
  local live = 'end'
  -- Only where a reader may be following: a stream never started keeps no events key.
  if held or redis.call('EXISTS', KEYS[2]) == 1 then
    local last = redis.call('HGET', KEYS[1], 'last') or '0'
    live = last .. '-2'
    -- With \`replicas\`, a confirmation's mark may be there already: then the entry goes after it.
    local r = redis.pcall('XADD', KEYS[2], live, 'end', 'cancelled')
    if type(r) == 'table' and r.err ~= nil then
      if not string.find(r.err, 'equal or smaller', 1, true) then error(r) end
      live = next_id(KEYS[2], tonumber(last), 2)
      redis.call('XADD', KEYS[2], live, 'end', 'cancelled')
    end
    live = live .. ' end cancelled'
  end
  redis.call('XADD', KEYS[3], '*', 'end', 'cancelled')
  if ARGV[2] == '1' then redis.call('SPUBLISH', string.sub(KEYS[1], 1, -6) .. ':live', live) end
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
