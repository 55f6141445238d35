-- recurring-import: writes one recurring definition, copied from a bucket of the old layout, into
-- its bucket of the new one, with its plan and its trigger (see lib/recurring.lua). Importing twice
-- is a no-op, so a bucket count change that was interrupted can simply run again.
-- Not a job script: it uses no prelude.
-- KEYS[1] the new bucket's recurring hash, KEYS[2] its due zset
-- ARGV[1] jobKey, ARGV[2] definition, ARGV[3] plan ('' none), ARGV[4] trigger score ('' none)
-- Returns: 1 if written, 0 if the definition was already there
local job_key = ARGV[1]
if redis.call('HEXISTS', KEYS[1], job_key) == 1 then return 0 end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], job_key, ARGV[2], '~p:' .. job_key, ARGV[3])
else
  redis.call('HSET', KEYS[1], job_key, ARGV[2])
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[4], '~r:' .. job_key)
end
return 1
