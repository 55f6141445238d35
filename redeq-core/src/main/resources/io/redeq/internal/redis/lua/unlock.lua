-- unlock: releases a bucket's migrator lock, only if this owner still holds it.
-- KEYS: the bucket keys (see prelude); no topics
-- ARGV[1] '' (no topics), ARGV[2] owner token
-- Returns: 1 if released
if redis.call('GET', K_LOCK) == ARGV[2] then
  return redis.call('DEL', K_LOCK)
end
return 0
