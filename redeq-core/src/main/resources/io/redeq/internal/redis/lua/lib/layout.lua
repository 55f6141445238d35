-- Refusals of a bucket whose layout is changing or changed start with 'ERR redeq-layout:'
-- (io.redeq.internal.redis.LayoutChangedException): the caller waits for its engine to follow the
-- layout recorded in the prefix's meta hash, then tries again. This file: an instance on another
-- bucket count (lib/frozen.lua: a bucket whose jobs are moving).

-- Refuses to add jobs sent by an instance whose bucket count is not the one the last change
-- recorded in this bucket ('~buckets'): it would put them where the new layout does not look.
local function layout_refusal(layout, buckets)
  if layout and layout ~= buckets then
    return redis.error_reply('ERR redeq-layout: this prefix was resharded to ' .. layout
      .. ' buckets, but the instance that sent this runs with ' .. buckets
      .. '; it must follow the bucket count recorded in Redis before it writes here again')
  end
  return nil
end

local function refuse_other_layout(buckets)
  return layout_refusal(redis.call('HGET', K_COUNT, '~buckets'), buckets)
end
