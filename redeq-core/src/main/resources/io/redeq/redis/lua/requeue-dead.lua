-- requeue-dead: gives dead jobs of one topic a fresh set of attempts and makes them READY.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] topic, ARGV[3] at most this many, ARGV[4] one jobKey ('' = the oldest ones)
-- Returns: number of jobs requeued
local topic = ARGV[2]
local keys
if ARGV[4] ~= '' then
  keys = { ARGV[4] }
else
  keys = redis.call('ZRANGE', dead_key(topic), 0, tonumber(ARGV[3]) - 1)
end
local moved = {}
for _, job_key in ipairs(keys) do
  local rec = redis.call('HGET', K_JOBS, job_key)
  if rec then
    local j = parse(rec)
    if j.state == 'X' then
      j.state = 'R'
      j.attempts = 0
      j.token = ''
      redis.call('HSET', K_JOBS, job_key, format(j))
      redis.call('HDEL', K_ERRORS, job_key)
      moved[#moved + 1] = job_key
    end
  end
  redis.call('ZREM', K_DEAD, job_key)
  redis.call('ZREM', dead_key(topic), job_key)
end
if #moved > 0 then
  redis.call('RPUSH', ready_key(topic), unpack(moved))
  count(topic, 'X', -#moved)
  count(topic, 'R', #moved)
end
return #moved
