-- forget-in-flight-counters: deletes the per-topic in-flight counters ("<topic>:i") that redeq
-- kept in a bucket's count hash before it counted IN_FLIGHT jobs from the lease set. Nothing
-- reads them any more; an older instance still running during a rolling upgrade may write them
-- again, and the next start of an upgraded instance deletes them again. Topics cannot contain
-- ':', so no pending counter ends in ':i'.
-- Not a job script: it uses no prelude.
-- KEYS[1] the bucket's count hash
-- Returns: the number of fields deleted
local stale = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, -2) == ':i' then stale[#stale + 1] = field end
end
local deleted = 0
for from = 1, #stale, 1000 do
  deleted = deleted + redis.call('HDEL', KEYS[1], unpack(stale, from, math.min(#stale, from + 999)))
end
return deleted
