-- rate-refund: gives back permits a claim did not use (it found fewer READY jobs than it was
-- granted), so that the window's permits go to jobs that exist. A grant already out of the
-- window is left alone: its permits are free again anyway.
-- KEYS[1] grants zset, KEYS[2] used (see rate-grant)
-- ARGV[1] grant id, ARGV[2] permits granted, ARGV[3] permits to give back
-- Returns: permits given back
local member = ARGV[1] .. '|' .. ARGV[2]
local granted, unused = tonumber(ARGV[2]), tonumber(ARGV[3])
local at = redis.call('ZSCORE', KEYS[1], member)
if not at or unused <= 0 then return 0 end
unused = math.min(unused, granted)
local used = tonumber(redis.call('GET', KEYS[2])) or 0
-- The grant stays in the log with what it kept, even 0, so the log shows every claim it allowed.
redis.call('ZADD', KEYS[1], at, ARGV[1] .. '|' .. (granted - unused))
redis.call('SET', KEYS[2], math.max(0, used - unused), 'KEEPTTL')
redis.call('ZREM', KEYS[1], member)
return unused
