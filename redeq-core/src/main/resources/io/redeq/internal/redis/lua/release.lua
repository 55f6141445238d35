-- release: hands in-flight jobs back to READY at once (graceful shutdown). They keep their due
-- time as score, so they are claimed before jobs that became due later. A job whose handler
-- never started gets its attempt back.
-- KEYS: the bucket keys with the jobs' topics' ready and dead keys (see prelude)
-- ARGV[1] topics, then triples: jobKey, claim token, 1 to give the attempt back or 0
-- Returns: number of jobs released
local released = {}
for i = 2, #ARGV, 3 do
  local job_key, token, refund = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local read = redis.call('HMGET', K_PAYLOAD, job_key, attempt_field(job_key))
  local a = parse_attempt(read[2])
  if holds_claim(a, token) then
    local topic = topic_of(job_key)
    a.token = ''
    if refund == '1' and a.attempts > 0 then a.attempts = a.attempts - 1 end
    write_attempt(job_key, a)
    local rec = read[1]
    redis.call('ZADD', ready_key(topic), ready_score(a.due, rec and priority_of(settings_of(rec)) or 0), job_key)
    released[#released + 1] = job_key
  end
end
remove_all('ZREM', K_LEASE, released)
return #released
