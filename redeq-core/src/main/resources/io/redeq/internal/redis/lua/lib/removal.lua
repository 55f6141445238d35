-- Removes members from a key with one command (a chunk of 2000 at most; callers keep their
-- batches below that, so the key is touched once: see the order rule in prelude.lua). A job's
-- record and attempt record are two fields of the payload hash, so 1000 jobs fit one chunk.
local function remove_all(cmd, key, members)
  for from = 1, #members, 2000 do
    redis.call(cmd, key, unpack(members, from, math.min(#members, from + 1999)))
  end
end

-- The fields of the payload hash that hold these jobs: their records (records_of, absent: none),
-- then the attempt records of attempts_of (see lib/attempts.lua). Removed with one HDEL.
local function job_fields(records_of, attempts_of)
  local fields = {}
  for _, job_key in ipairs(records_of or {}) do fields[#fields + 1] = job_key end
  for _, job_key in ipairs(attempts_of) do fields[#fields + 1] = '@' .. job_key end
  return fields
end

-- Forgets everything about these jobs (completed, cancelled, or dead past retention).
local function forget_all(job_keys)
  remove_all('HDEL', K_PAYLOAD, job_fields(job_keys, job_keys))
  remove_all('HDEL', K_ERROR, job_keys)
end

-- Adds score/member (ZADD) or field/value (HSET) pairs to a key in chunks, so no unpack ever
-- exceeds Lua's stack limit: one command per chunk instead of one per pair.
local CHUNK = 500
local function add_all(cmd, key, pairs_list)
  for from = 1, #pairs_list, 2 * CHUNK do
    local to = math.min(#pairs_list, from + 2 * CHUNK - 1)
    redis.call(cmd, key, unpack(pairs_list, from, to))
  end
end

local function zadd_all(key, pairs_list)
  add_all('ZADD', key, pairs_list)
end

-- The values of these fields of a hash (false where absent), one HMGET per chunk of 500, so no
-- unpack exceeds Lua's stack limit: one command per call instead of one HGET per field.
local function read_all(key, fields)
  local values = {}
  for from = 1, #fields, CHUNK do
    local part = redis.call('HMGET', key, unpack(fields, from, math.min(#fields, from + CHUNK - 1)))
    for j = 1, #part do values[from + j - 1] = part[j] end
  end
  return values
end

-- The records and the attempt records (false where absent) of these jobs, read together from the
-- payload hash: one HMGET per 250 jobs instead of one per hash.
local function read_jobs(job_keys)
  local recs, attempt_recs = {}, {}
  for from = 1, #job_keys, CHUNK / 2 do
    local to = math.min(#job_keys, from + CHUNK / 2 - 1)
    local fields = {}
    for i = from, to do fields[#fields + 1] = job_keys[i] end
    for i = from, to do fields[#fields + 1] = '@' .. job_keys[i] end
    local part = redis.call('HMGET', K_PAYLOAD, unpack(fields))
    local n = to - from + 1
    for j = 1, n do
      recs[from + j - 1] = part[j]
      attempt_recs[from + j - 1] = part[n + j]
    end
  end
  return recs, attempt_recs
end

-- Removes waiting jobs of one topic, DELAYED (in the due index) and READY (in the topic's ready
-- index), and forgets them: the removals of a cancel, so the caller runs it last (see the order
-- rule in prelude.lua), after counting them out. 1000 jobs at most, so each key is touched once.
local function remove_waiting(topic, delayed, ready)
  if #delayed > 0 then remove_all('ZREM', K_DUE, delayed) end
  if #ready > 0 then remove_all('ZREM', ready_key(topic), ready) end
  local all = {}
  for _, job_key in ipairs(delayed) do all[#all + 1] = job_key end
  for _, job_key in ipairs(ready) do all[#all + 1] = job_key end
  forget_all(all)
end
