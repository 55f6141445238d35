-- schedule: adds (or, per the duplicate policy, replaces) jobs of one bucket, atomically per call.
-- KEYS: the bucket keys, with the ready and dead keys of every topic of the jobs (see prelude)
-- ARGV[1] topics, ARGV[2] capacity of this bucket per topic (0 = unlimited), ARGV[3] number of jobs n,
--   ARGV[4] the caller's bucket count, then n groups of 8: jobKey, payload, mode ('in' = delay ms from Redis now | 'at' = epoch ms),
--   ms, duplicate policy ('R' replace | 'K' keep | 'J' reject), the job's own settings ('' none, see lib/settings.lua),
--   trace context ('' none: tracing off), attempts already used ('' or '0' none: a job restored from
--   elsewhere, e.g. the starter's journal, goes on counting; written as its attempt record, with no
--   claim token, only when this call stores the job)
-- Returns: the due ms of the earliest job of this call when it is due before any due time the
--   bucket's migrators were told of (-1 none: the migrator need not wake; see '~next' below),
--   the Redis time (ms) the call ran at, then a triple per job that is not simply new: its
--   position in the call (1-based), status, value. A job with no triple is
--   'new', due at ms ('at') or at the returned time + ms ('in'): a batch of new jobs, the usual
--   call, gets a reply of two numbers instead of two values per job.
--   status: 'replaced' (value: due ms) | 'kept' | 'rejected' (value: state of the existing job)
--         | 'running' (an in-flight job cannot be replaced) | 'full' (value: pending count here)
-- A DEAD job does not block a new one with its id under any policy: it is replaced.
local capacity = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local now = now_ms()

-- Every path here is the hot path of scheduling (one call per job for most applications),
-- so work done per job is kept to what the job needs: values computed once, tables made only
-- when a job replaces another, and one command per key where a call holds many jobs.

-- One new job with a free id, the usual call of an application that schedules jobs one at a
-- time: the same commands as below (HMGET, HSETNX, ZADD, HINCRBY, and the head when '~next'
-- has passed), without the tables a call of many jobs needs. Anything else (a refusal, an id
-- that is taken, a full topic, attempts already used) goes on to the general path below, which
-- decides it: nothing has been written when this part gives up.
if n == 1 and (ARGV[12] == '' or ARGV[12] == '0') then
  local job_key, ms = ARGV[5], tonumber(ARGV[8])
  local topic = topic_of(job_key)
  local due = ms and ((ARGV[7] == 'in') and (now + ms) or ms)
  if topic and TOPIC_KEYS[topic] and ms and ms >= 0 and due <= MAX_TIME then
    local values = redis.call('HMGET', K_COUNT, '~buckets', '~next', topic, '~frozen')
    local settings, trace = ARGV[10], ARGV[11]
    if not (values[4] and not values[1]) and not layout_refusal(values[1], ARGV[4]) and (capacity == 0 or (tonumber(values[3]) or 0) < capacity)
        and redis.call('HSETNX', K_PAYLOAD, job_key,
          created_text(now) .. settings .. (trace == '' and '' or ' ' .. trace) .. '|' .. ARGV[6]) == 1 then
      local score = due
      if settings ~= '' then
        score = due_score(due, priority_of(settings))
      elseif ARGV[7] == 'at' then
        score = ARGV[8]
      end
      redis.call('ZADD', K_DUE, score, job_key)
      redis.call('HINCRBY', K_COUNT, topic, '1')
      -- As at the end of this script, for a call of one job.
      local told = tonumber(values[2]) or -1
      local report = told < 0 or due < told
      if not report and told <= now then
        report = redis.call('ZRANGE', K_DUE, '0', '0')[1] == job_key
      end
      if report then
        redis.call('HSET', K_COUNT, '~next', due)
        return { due, now }
      end
      return { -1, now }
    end
  end
end

-- Check everything before the first write: a refused call must leave nothing behind.
local topics, dues = {}, {}
for i = 1, n do
  local base = i * 8 - 3
  local job_key = ARGV[base]
  local topic = topic_of(job_key)
  if not topic or not TOPIC_KEYS[topic] then
    return redis.error_reply('ERR redeq schedule: keys of the topic of ' .. job_key .. ' were not declared')
  end
  local ms = tonumber(ARGV[base + 3])
  local due = ms and ((ARGV[base + 2] == 'in') and (now + ms) or ms)
  if not ms or ms < 0 or due > MAX_TIME then
    return redis.error_reply('ERR redeq schedule: due time of ' .. job_key .. ' out of range: ' .. tostring(ARGV[base + 3]))
  end
  local used = ARGV[base + 7]
  if used ~= '' and used ~= '0' and not string.match(used, '^[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$') then
    return redis.error_reply('ERR redeq schedule: attempts already used of ' .. job_key .. ' must be a whole number from 0 to 999999999: ' .. tostring(used))
  end
  topics[i], dues[i] = topic, due
end

-- The layout check, the due time the bucket's migrators were last told of ('~next', see the
-- end of this script) and, with a capacity, the pending count of every topic of the call, in
-- one read.
local pending = {}
local fields = { '~buckets', '~next', '~frozen' }
if capacity > 0 then
  local seen = {}
  for i = 1, n do
    if not seen[topics[i]] then
      seen[topics[i]] = true
      fields[#fields + 1] = topics[i]
    end
  end
end
local values = redis.call('HMGET', K_COUNT, unpack(fields))
-- A frozen bucket refuses callers on the old count through its '~buckets' mark. One that carries
-- the caller's own count is a bucket both layouts use: a job of the new layout may join it while
-- the change moves the others out (the change never touches a job already in its place).
local refused = layout_refusal(values[1], ARGV[4]) or (not values[1] and frozen_refusal(values[3], values[1]))
if refused then return refused end
local told = tonumber(values[2]) or -1
for j = 4, #fields do
  pending[fields[j]] = tonumber(values[j]) or 0
end

-- Where a job with this key is now: 'none', a state letter, or 'gone' (a record in no index,
-- never left by redeq: it is written anew and counted, as 'none' is).
local function state_now(job_key, topic)
  if redis.call('HEXISTS', K_PAYLOAD, job_key) == 0 then return 'none' end
  return state_of(job_key, topic) or 'gone'
end

-- The states of all jobs of a larger call, with the same answers as state_now. Most jobs of a
-- batch are new: one HMGET finds the ids that have a record, and only those are looked up in
-- the indexes, with one ZMSCORE per index.
local BATCH_READ_FROM = 8
local function states_of_all()
  local all, states = {}, {}
  for i = 1, n do all[i] = ARGV[i * 8 - 3] end
  local existing, at = {}, {}
  for from = 1, n, 1000 do
    local records = redis.call('HMGET', K_PAYLOAD, unpack(all, from, math.min(n, from + 999)))
    for j = 1, #records do
      local i = from + j - 1
      if records[j] then
        existing[#existing + 1] = all[i]
        at[#at + 1] = i
      else
        states[i] = 'none'
      end
    end
  end
  if #existing == 0 then return states end
  local function scores(key, members)
    local found = {}
    for from = 1, #members, 1000 do
      local part = redis.call('ZMSCORE', key, unpack(members, from, math.min(#members, from + 999)))
      for j = 1, #part do found[from + j - 1] = part[j] end
    end
    return found
  end
  local by_topic = {}
  for k, i in ipairs(at) do
    local topic = topics[i]
    by_topic[topic] = by_topic[topic] or { keys = {}, at = {} }
    table.insert(by_topic[topic].keys, existing[k])
    table.insert(by_topic[topic].at, k)
  end
  local ready = {}
  for topic, jobs in pairs(by_topic) do
    local found = scores(ready_key(topic), jobs.keys)
    for j, k in ipairs(jobs.at) do ready[k] = found[j] end
  end
  local due, lease, died = scores(K_DUE, existing), scores(K_LEASE, existing), scores(K_DIED, existing)
  for k, i in ipairs(at) do
    states[i] = (due[k] and 'D') or (ready[k] and 'R') or (lease[k] and 'I') or (died[k] and 'X') or 'gone'
  end
  return states
end

-- Reads first, then adds, then removes (prelude.lua). Records and due entries are added with
-- one HSET and one ZADD for the whole call; a job seen again in the same call is in the due set
-- by then ('D'), and the last write of an id decides, as HSET and ZADD keep the last pair.
local known = (n >= BATCH_READ_FROM) and states_of_all() or nil
local created = created_text(now)
local written = {}
local records, due_pairs = {}, {}
local removals -- made when a job replaces another: { ready = {}, dead = {}, died = {}, attempt = {}, error = {} }
local restored, any_restored = {}, false
local out = { -1, now }
for i = 1, n do
  local base = i * 8 - 3
  local job_key, payload, policy = ARGV[base], ARGV[base + 1], ARGV[base + 4]
  local settings, trace, used = ARGV[base + 5], ARGV[base + 6], ARGV[base + 7]
  local topic, due = topics[i], dues[i]
  -- The job's own settings, then its trace context after a space (only jobs scheduled with
  -- tracing on carry one), ride in the record's head, between the created time and the '|'.
  local record = created .. settings .. (trace == '' and '' or ' ' .. trace) .. '|' .. payload
  -- A new id where there is room costs one command (HSETNX) instead of a read and a write.
  local state, stored = nil, false
  if written[job_key] then
    state = 'D'
  elseif known then
    state = known[i]
  elseif (capacity == 0 or pending[topic] < capacity) and redis.call('HSETNX', K_PAYLOAD, job_key, record) == 1 then
    state, stored = 'none', true
  else
    state = state_now(job_key, topic)
  end
  local status, value = 'new', due
  if state == 'X' then
    status = 'replaced'
  elseif state ~= 'none' and state ~= 'gone' and policy == 'K' then
    status, value = 'kept', 0
  elseif state ~= 'none' and state ~= 'gone' and policy == 'J' then
    status, value = 'rejected', state
  elseif state == 'I' then
    status, value = 'running', 0
  elseif state == 'D' or state == 'R' then
    status = 'replaced'
  end
  local grows = (status == 'new') or (state == 'X')
  if grows and capacity > 0 and pending[topic] >= capacity then
    status, value = 'full', pending[topic]
  end
  if status == 'new' or status == 'replaced' then
    if not stored then
      records[#records + 1] = job_key
      records[#records + 1] = record
    end
    -- An absolute due time without priority goes to ZADD as the caller's own text: Lua turns
    -- a number into text with printf("%.17g"), which costs more than the rest of the add.
    local score = due
    if settings ~= '' then
      score = due_score(due, priority_of(settings))
    elseif ARGV[base + 2] == 'at' then
      score = ARGV[base + 3]
    end
    due_pairs[#due_pairs + 1] = score
    due_pairs[#due_pairs + 1] = job_key
    if status == 'replaced' then
      removals = removals or { ready = {}, dead = {}, died = {}, attempt = {}, error = {} }
      if state == 'R' then
        removals.ready[topic] = removals.ready[topic] or {}
        table.insert(removals.ready[topic], job_key)
      elseif state == 'X' then
        removals.dead[topic] = removals.dead[topic] or {}
        table.insert(removals.dead[topic], job_key)
        table.insert(removals.died, job_key)
      end
      table.insert(removals.error, job_key)
    end
    -- A restored job's attempt record is written (an add) with the other adds; it then
    -- replaces the record of the job it replaced instead of being removed with it. The
    -- last write of an id in this call decides.
    if used ~= '' and used ~= '0' then
      restored[job_key] = format_attempt({ attempts = tonumber(used), due = due, token = '' })
      any_restored = true
    elseif status == 'replaced' then
      restored[job_key] = nil
      table.insert(removals.attempt, job_key)
    end
    if grows then
      count(topic, 1)
      if capacity > 0 then pending[topic] = pending[topic] + 1 end
    end
    written[job_key] = due
  end
  if status ~= 'new' then
    out[#out + 1] = i
    out[#out + 1] = status
    out[#out + 1] = value
  end
end
if any_restored then
  -- Attempt records are fields of the payload hash: written by the same HSET as the records.
  for job_key, attempt in pairs(restored) do
    records[#records + 1] = attempt_field(job_key)
    records[#records + 1] = attempt
  end
end
add_all('HSET', K_PAYLOAD, records)
add_all('ZADD', K_DUE, due_pairs)
flush_counts()
-- Whether a migrator must wake earlier than planned. '~next' in the count hash is the earliest
-- due time any migrator of this bucket was told of: migrate sets it to the due set's head it
-- leaves (and returns it to its caller), this script lowers it when it reports a job due before
-- it. A job due at or after a time still ahead needs no wake: a migrator runs by then, and that
-- migrate finds the job (or reports it as the head it leaves). Kept in a field the HMGET above
-- reads anyway, it spares the usual call a look at the due set's head. A time told of that has
-- passed proves nothing (the migrate due then has not run yet, or ran in an older redeq, which
-- writes no '~next' during a rolling upgrade): the call then looks at the head, as it always did.
if #due_pairs > 0 then
  local earliest
  for _, due in pairs(written) do
    if not earliest or due < earliest then earliest = due end
  end
  local report = told < 0 or earliest < told
  if not report and told <= now then
    local head = redis.call('ZRANGE', K_DUE, '0', '0')
    report = head[1] ~= nil and written[head[1]] ~= nil
  end
  if report then
    out[1] = earliest
    redis.call('HSET', K_COUNT, '~next', earliest)
  end
end
if removals then
  for topic, job_keys in pairs(removals.ready) do
    remove_all('ZREM', ready_key(topic), job_keys)
  end
  for topic, job_keys in pairs(removals.dead) do
    remove_all('ZREM', dead_key(topic), job_keys)
  end
  remove_all('ZREM', K_DIED, removals.died)
  local stale = removals.attempt
  if any_restored then
    stale = {}
    for _, job_key in ipairs(removals.attempt) do
      if not restored[job_key] then stale[#stale + 1] = job_key end
    end
  end
  remove_all('HDEL', K_PAYLOAD, job_fields(nil, stale))
  remove_all('HDEL', K_ERROR, removals.error)
end
return out
