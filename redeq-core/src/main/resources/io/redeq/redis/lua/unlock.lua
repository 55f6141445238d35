-- unlock: releases a bucket's migrator lock, only if this owner still holds it.
-- KEYS: the fixed bucket keys (see prelude)
-- ARGV[1] tag, ARGV[2] owner token
-- Returns: 1 if released
if redis.call('GET', K_LOCK) == ARGV[2] then
  return redis.call('DEL', K_LOCK)
end
return 0
