-- release: hands in-flight jobs back to READY at once (graceful shutdown), at the front of their
-- ready list so they run next. A job whose handler never started gets its attempt back.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, then triples: jobKey, claim token, 1 to give the attempt back or 0
-- Returns: number of jobs released
local released = 0
for i = 2, #ARGV, 3 do
  local job_key, token, refund = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local rec = redis.call('HGET', K_JOBS, job_key)
  if rec then
    local j = parse(rec)
    if j.state == 'I' and j.token == token then
      local topic = topic_of(job_key)
      count(topic, 'I', -1)
      j.state = 'R'
      j.token = ''
      if refund == '1' and j.attempts > 0 then j.attempts = j.attempts - 1 end
      redis.call('HSET', K_JOBS, job_key, format(j))
      redis.call('ZREM', K_INFLIGHT, job_key)
      redis.call('LPUSH', ready_key(topic), job_key)
      count(topic, 'R', 1)
      released = released + 1
    end
  end
end
return released
