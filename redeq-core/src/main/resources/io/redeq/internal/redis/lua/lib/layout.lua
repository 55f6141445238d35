-- Refuses to add jobs sent by an instance whose bucket count is not the one the last reshard
-- made: it would put them where the new layout does not look for them.
local function layout_refusal(layout, buckets)
  if layout and layout ~= buckets then
    return redis.error_reply('ERR redeq: this prefix was resharded to ' .. layout
      .. ' buckets, but the instance that sent this runs with ' .. buckets
      .. '; restart it: an instance follows the bucket count recorded in Redis when it starts')
  end
  return nil
end

local function refuse_other_layout(buckets)
  return layout_refusal(redis.call('HGET', K_COUNT, '~buckets'), buckets)
end
