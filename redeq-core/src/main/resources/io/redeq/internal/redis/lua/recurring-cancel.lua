-- recurring-cancel: removes a recurring job's definition, plan and trigger (lib/recurring.lua).
-- An occurrence already created is an ordinary job and stays (cancel it by its id).
-- KEYS: the bucket keys (no topic keys: ARGV[1] is empty), then the recurring hash
-- ARGV[1] '', ARGV[2] jobKey
-- Returns: 1 if it was declared, else 0
local K_RECURRING = KEYS[#KEYS]
local refused = frozen_refusal()
if refused then return refused end
local job_key = ARGV[2]
if redis.call('HEXISTS', K_RECURRING, job_key) == 0 then
  return 0
end
redis.call('HDEL', K_RECURRING, job_key, plan_field(job_key))
redis.call('ZREM', K_DUE, trigger_of(job_key))
return 1
