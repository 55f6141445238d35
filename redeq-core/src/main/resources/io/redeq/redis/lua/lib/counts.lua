-- Per-topic counter changes, applied once at the end of a script (one HINCRBY per field).
local deltas = {}
local function count(field, delta)
  deltas[field] = (deltas[field] or 0) + delta
end
local function flush_counts()
  for field, delta in pairs(deltas) do
    if delta ~= 0 then
      redis.call('HINCRBY', K_COUNT, field, delta)
    end
  end
end
