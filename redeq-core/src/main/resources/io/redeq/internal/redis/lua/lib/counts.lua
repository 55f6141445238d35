-- Per-topic counter changes (the call's deltas, see prelude.lua), applied once at the end of a
-- script (one HINCRBY per field).
local function count(field, delta)
  deltas[field] = (deltas[field] or 0) + delta
end
local function flush_counts()
  for field, delta in pairs(deltas) do
    if delta ~= 0 then
      -- 1 and -1, the usual deltas, as text: Lua turns a number into text with printf.
      redis.call('HINCRBY', K_COUNT, field, (delta == 1 and '1') or (delta == -1 and '-1') or delta)
    end
  end
end
