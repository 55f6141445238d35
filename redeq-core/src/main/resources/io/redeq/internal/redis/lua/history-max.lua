-- history-max: raises a history field to a value if the value is larger (the latest start of a
-- minute or hour, in ms), and sets the hash's expiry like the counts beside it. Not a job script:
-- no prelude, no bucket keys; one key, so one slot.
-- KEYS[1] a history hash (prefix:history:<topic>:lateness-max:<m|h>:<period>)
-- ARGV[1] field (the minute of the hour or hour of the day), ARGV[2] value ms, ARGV[3] ttl ms
-- Returns: the field's value after the call
local value = tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if value > current then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  current = value
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return current
