-- Removes members from a key with one command (a chunk of 1000 at most; callers keep their
-- batches below that, so the key is touched once: see the order rule in prelude.lua).
local function remove_all(cmd, key, members)
  for from = 1, #members, 1000 do
    redis.call(cmd, key, unpack(members, from, math.min(#members, from + 999)))
  end
end

-- Forgets everything about these jobs (completed, cancelled, or dead past retention).
local function forget_all(job_keys)
  remove_all('HDEL', K_PAYLOAD, job_keys)
  remove_all('HDEL', K_ATTEMPT, job_keys)
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
