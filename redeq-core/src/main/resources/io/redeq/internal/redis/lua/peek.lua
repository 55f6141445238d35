-- peek: the migrator's sweep. Renews the caller's locks and reports, per bucket, whether anything
-- needs a migrate call, reading only the head of each index. Not a job script: in a standalone
-- Redis one call covers every bucket an instance owns (keys of several slots are allowed there),
-- in a cluster the migrator sends one call per bucket. It changes no job.
-- KEYS: per bucket 4 keys: due, lease, died, lock
-- ARGV[1] owner token, ARGV[2] lock ttl ms
-- Returns: now, then per bucket 4 values: 1 if the lock is held (and renewed), earliest due ms,
--   earliest lease deadline ms, earliest death ms (-1 when the index is empty)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = { now }
local function head(key)
  local first = redis.call('ZRANGE', key, '0', '0', 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return -1
end
for i = 1, #KEYS, 4 do
  local held = 0
  if redis.call('GET', KEYS[i + 3]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i + 3], ARGV[2])
    held = 1
  end
  out[#out + 1] = held
  out[#out + 1] = head(KEYS[i])
  out[#out + 1] = head(KEYS[i + 1])
  out[#out + 1] = head(KEYS[i + 2])
end
return out
