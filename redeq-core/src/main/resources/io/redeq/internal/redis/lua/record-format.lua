-- record-format: records the data format this version writes, unless Redis already records a
-- newer one (written by a newer redeq), which an older instance must neither downgrade nor touch.
-- Not a job script: it uses no prelude and no bucket keys.
-- KEYS[1] the prefix's meta hash
-- ARGV[1] the data format of this version
-- Returns: the format recorded before (0 if none); it was left as it is if newer than ARGV[1]
local recorded = tonumber(redis.call('HGET', KEYS[1], 'format') or '0') or 0
if recorded <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'format', ARGV[1])
end
return recorded
