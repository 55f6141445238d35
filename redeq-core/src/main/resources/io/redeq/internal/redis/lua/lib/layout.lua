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

-- Refuses what a caller on `buckets` buckets asks of a bucket whose jobs are moving (frozen), or
-- that a finished change marked with another count (a tag both layouts use): a cancel, reschedule
-- or find there would miss a job that moved away and answer as if it were gone. Without a count
-- (a caller that does not send one), only the freeze is checked.
local function moved_refusal(buckets)
  if buckets == nil or buckets == '' then
    return frozen_refusal()
  end
  local values = redis.call('HMGET', K_COUNT, '~buckets', '~frozen')
  return layout_refusal(values[1] or nil, buckets) or frozen_refusal(values[2] and true or false, values[1] or nil)
end
