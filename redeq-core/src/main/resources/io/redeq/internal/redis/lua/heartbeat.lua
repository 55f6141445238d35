-- heartbeat: announces a live instance and counts the live ones, so that migrators can each take
-- about buckets / instances buckets. Not a job script: it uses no prelude and no bucket keys.
-- KEYS[1] the instances zset (member -> deadline ms, Redis clock)
-- ARGV[1] instance id, ARGV[2] ttl ms, ARGV[3] 'beat' or 'leave'
-- Returns: number of live instances (this one included while it beats)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[3] == 'leave' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
