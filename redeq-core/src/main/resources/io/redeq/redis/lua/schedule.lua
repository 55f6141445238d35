-- schedule: adds (or, per the duplicate policy, replaces) jobs of one bucket, atomically per call.
-- KEYS: the bucket keys, with the ready and dead keys of every topic of the jobs (see prelude)
-- ARGV[1] topics, ARGV[2] capacity of this bucket per topic (0 = unlimited), ARGV[3] number of jobs n,
--   ARGV[4] the caller's bucket count, then n groups of 8: jobKey, payload, mode ('in' = delay ms from Redis now | 'at' = epoch ms),
--   ms, duplicate policy ('R' replace | 'K' keep | 'J' reject), the job's own settings ('' none, see lib/settings.lua),
--   trace context ('' none: tracing off), attempts already used ('' or '0' none: a job restored from
--   elsewhere, e.g. the starter's journal, goes on counting; written as its attempt record, with no
--   claim token, only when this call stores the job)
-- Returns: the due ms of a job of this call that became the bucket's earliest (-1 none: the
--   migrator need not wake), then n pairs: status, value
--   status: 'new' | 'replaced' (value: due ms) | 'kept' | 'rejected' (value: state of the existing job)
--         | 'running' (an in-flight job cannot be replaced) | 'full' (value: pending count here)
-- A DEAD job does not block a new one with its id under any policy: it is replaced.
local capacity = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local now = now_ms()

-- Check everything before the first write: a refused call must leave nothing behind.
for i = 0, n - 1 do
  local base = 5 + i * 8
  local job_key, mode, ms = ARGV[base], ARGV[base + 2], tonumber(ARGV[base + 3])
  local topic = topic_of(job_key)
  if not topic or not TOPIC_KEYS[topic] then
    return redis.error_reply('ERR redeq schedule: keys of the topic of ' .. job_key .. ' were not declared')
  end
  local due = (mode == 'in') and (now + ms) or ms
  if not ms or ms < 0 or due > MAX_TIME then
    return redis.error_reply('ERR redeq schedule: due time of ' .. job_key .. ' out of range: ' .. tostring(ARGV[base + 3]))
  end
  local used = ARGV[base + 7]
  if used ~= '' and used ~= '0' and not string.match(used, '^[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$') then
    return redis.error_reply('ERR redeq schedule: attempts already used of ' .. job_key .. ' must be a whole number from 0 to 999999999: ' .. tostring(used))
  end
end

local refused = refuse_other_layout(ARGV[4])
if refused then return refused end

-- Where a job with this key is now: 'none', a state letter, or 'gone' (a record in no index,
-- never left by redeq: it is written anew and counted). Read live, so the same id twice in one
-- call sees what the first one left.
local function state_now(job_key, topic)
  if redis.call('HEXISTS', K_PAYLOAD, job_key) == 0 then return 'none' end
  return state_of(job_key, topic) or 'gone'
end

local pending = {}
local written = {}
local removals = { ready = {}, dead = {}, died = {}, attempt = {}, error = {} }
local restored, any_restored = {}, false
local out = { -1 }
for i = 0, n - 1 do
  local base = 5 + i * 8
  local job_key, payload, mode, ms, policy = ARGV[base], ARGV[base + 1], ARGV[base + 2], tonumber(ARGV[base + 3]), ARGV[base + 4]
  local settings, trace, used = ARGV[base + 5], ARGV[base + 6], ARGV[base + 7]
  local topic = topic_of(job_key)
  local due = (mode == 'in') and (now + ms) or ms
  -- The job's own settings, then its trace context after a space (only jobs scheduled with
  -- tracing on carry one), ride in the record's head, between the created time and the '|'.
  local record = string.format('%d', now) .. settings .. (trace == '' and '' or ' ' .. trace) .. '|' .. payload
  -- The common case, a new id with no capacity to check, costs one command instead of a
  -- read and a write. With a capacity the count must be read before anything is written.
  local state, stored = nil, false
  if capacity == 0 and redis.call('HSETNX', K_PAYLOAD, job_key, record) == 1 then
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
  if grows and capacity > 0 then
    if not pending[topic] then
      pending[topic] = tonumber(redis.call('HGET', K_COUNT, topic)) or 0
    end
    if pending[topic] >= capacity then
      status, value = 'full', pending[topic]
    end
  end
  if status == 'new' or status == 'replaced' then
    if not stored then
      redis.call('HSET', K_PAYLOAD, job_key, record)
    end
    redis.call('ZADD', K_DUE, due_score(due, priority_of(settings)), job_key)
    if state == 'R' then
      removals.ready[topic] = removals.ready[topic] or {}
      table.insert(removals.ready[topic], job_key)
    elseif state == 'X' then
      removals.dead[topic] = removals.dead[topic] or {}
      table.insert(removals.dead[topic], job_key)
      table.insert(removals.died, job_key)
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
    if status == 'replaced' then
      table.insert(removals.error, job_key)
    end
    if grows then
      count(topic, 1)
      if pending[topic] then pending[topic] = pending[topic] + 1 end
    end
    written[job_key] = due
  end
  out[#out + 1] = status
  out[#out + 1] = value
end
for job_key, attempt in pairs(restored) do
  redis.call('HSET', K_ATTEMPT, job_key, attempt)
end
flush_counts()
local head = redis.call('ZRANGE', K_DUE, 0, 0)
if head[1] and written[head[1]] then
  out[1] = written[head[1]]
end
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
remove_all('HDEL', K_ATTEMPT, stale)
remove_all('HDEL', K_ERROR, removals.error)
return out
