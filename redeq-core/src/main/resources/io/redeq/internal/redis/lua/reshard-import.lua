-- reshard-import: writes one job, copied from a bucket of the old layout, into its bucket of the
-- new one, in the state it had. A job that was IN_FLIGHT becomes READY (the mover sends none: it
-- leaves leased jobs to their consumers and recovers expired ones first, see reshard-recover.lua).
-- Importing twice is a no-op, so a change that was interrupted can simply run again; the copy
-- already in the new bucket wins.
-- KEYS: the bucket keys with the job's topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] jobKey, ARGV[3] payload record, ARGV[4] attempt record ('' none),
-- ARGV[5] last error ('' none), ARGV[6] state (D|R|I|X), ARGV[7] its score in that state's index
-- Returns: 1 if written, 0 if the job was already there
local job_key, state, score = ARGV[2], ARGV[6], tonumber(ARGV[7])
if redis.call('HEXISTS', K_PAYLOAD, job_key) == 1 then return 0 end
local topic = topic_of(job_key)
redis.call('HSET', K_PAYLOAD, job_key, ARGV[3])
if ARGV[4] ~= '' then
  local a = parse_attempt(ARGV[4])
  if state == 'I' then
    a.token = ''
    score = ready_score(a.due, priority_of(settings_of(ARGV[3])))
    state = 'R'
  end
  write_attempt(job_key, a)
end
if ARGV[5] ~= '' then redis.call('HSET', K_ERROR, job_key, ARGV[5]) end
if state == 'D' then
  redis.call('ZADD', K_DUE, score, job_key)
elseif state == 'R' then
  redis.call('ZADD', ready_key(topic), score, job_key)
else
  redis.call('ZADD', K_DIED, score, job_key)
  redis.call('ZADD', dead_key(topic), score, job_key)
end
if state ~= 'X' then count(topic, 1) end
flush_counts()
return 1
