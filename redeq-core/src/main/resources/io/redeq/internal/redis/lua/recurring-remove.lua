-- recurring-remove: deletes a recurring definition, its plan and its trigger from its old bucket
-- after recurring-import wrote them to the new one, only if the definition is still the one that
-- was copied (copy first, delete second: a crash in between leaves a copy, never a loss).
-- Not a job script: it uses no prelude.
-- KEYS[1] the old bucket's recurring hash, KEYS[2] its due zset
-- ARGV[1] jobKey, ARGV[2] the definition that was copied
-- Returns: 1 if removed
local job_key = ARGV[1]
if redis.call('HGET', KEYS[1], job_key) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], job_key, '~p:' .. job_key)
redis.call('ZREM', KEYS[2], '~r:' .. job_key)
return 1
