-- purge-dead: deletes the longest-dead jobs of one topic.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude)
-- ARGV[1] topic, ARGV[2] at most this many (500 at most), ARGV[3] the caller's bucket count (see
--   moved_refusal in lib/layout.lua)
-- Returns: number of jobs deleted
local refused = moved_refusal(ARGV[3])
if refused then return refused end
local topic = ARGV[1]
local keys = redis.call('ZRANGE', dead_key(topic), '0', tonumber(ARGV[2]) - 1)
if #keys == 0 then return 0 end
remove_all('ZREM', K_DIED, keys)
redis.call('ZREMRANGEBYRANK', dead_key(topic), '0', #keys - 1)
forget_all(keys)
return #keys
