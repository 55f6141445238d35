-- upgrade-v1: converts jobs of one bucket from redeq's first data format (one record holding
-- state and payload, rewritten at every transition) to the current format (see prelude), in the
-- state they had. Idempotent: a job already present in the current format wins and its old copy
-- is dropped.
-- KEYS: the bucket keys with the ready and dead keys of the jobs' topics (see prelude), then the
--   bucket's format-1 keys: jobs, delayed, inflight, dead, errors
-- ARGV[1] topics, then the jobKeys to convert
-- Returns: number of jobs converted
local k = 0
for _ in string.gmatch(ARGV[1], '[^,]+') do k = k + 1 end
local OLD_JOBS, OLD_DELAYED, OLD_INFLIGHT, OLD_DEAD, OLD_ERRORS =
  KEYS[8 + 2 * k], KEYS[9 + 2 * k], KEYS[10 + 2 * k], KEYS[11 + 2 * k], KEYS[12 + 2 * k]
for i = 2, #ARGV do
  local topic = topic_of(ARGV[i])
  if not topic or not TOPIC_KEYS[topic] then
    return redis.error_reply('ERR redeq upgrade: keys of the topic of ' .. ARGV[i] .. ' were not declared')
  end
end
local converted = 0
for i = 2, #ARGV do
  local job_key = ARGV[i]
  local topic = topic_of(job_key)
  local rec = redis.call('HGET', OLD_JOBS, job_key)
  local s, a, c, d, t, p
  if rec then
    s, a, c, d, t, p = string.match(rec, '^(%u)|(%d+)|(%d+)|(%d+)|([^|]*)|(.*)$')
  end
  -- An unreadable old record stays where it is, for a person to look at; nothing is dropped.
  local drop = (not rec) or (s ~= nil)
  if s and redis.call('HEXISTS', K_PAYLOAD, job_key) == 0 then
    local attempts, due = tonumber(a), tonumber(d)
    redis.call('HSET', K_PAYLOAD, job_key, c .. '|' .. p)
    local err = redis.call('HGET', OLD_ERRORS, job_key)
    if err then redis.call('HSET', K_ERROR, job_key, err) end
    if attempts > 0 or s == 'I' then
      write_attempt(job_key, { attempts = attempts, due = due, token = (s == 'I') and t or '' })
    end
    if s == 'D' then
      redis.call('ZADD', K_DUE, due, job_key)
      count(topic, 1)
    elseif s == 'R' then
      redis.call('ZADD', ready_key(topic), due, job_key)
      count(topic, 1)
    elseif s == 'I' then
      redis.call('ZADD', K_LEASE, tonumber(redis.call('ZSCORE', OLD_INFLIGHT, job_key)) or 0, job_key)
      count(topic, 1)
    else
      local died = tonumber(redis.call('ZSCORE', OLD_DEAD, job_key)) or 0
      redis.call('ZADD', K_DIED, died, job_key)
      redis.call('ZADD', dead_key(topic), died, job_key)
    end
    converted = converted + 1
  end
  if drop then
    redis.call('HDEL', OLD_JOBS, job_key)
    redis.call('HDEL', OLD_ERRORS, job_key)
    redis.call('ZREM', OLD_DELAYED, job_key)
    redis.call('ZREM', OLD_INFLIGHT, job_key)
    redis.call('ZREM', OLD_DEAD, job_key)
  end
end
flush_counts()
return converted
