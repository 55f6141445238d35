-- Refusals of a bucket whose layout is changing or changed start with 'ERR redeq-layout:'
-- (io.redeq.internal.redis.LayoutChangedException): the caller waits for its engine to follow the
-- layout recorded in the prefix's meta hash, then tries again. This file: a frozen bucket
-- (lib/layout.lua: an instance on another bucket count).

-- Refuses work that would start or change waiting jobs in a bucket frozen ('~frozen' in its count
-- hash) while a change of the bucket count moves its jobs: the mover copies each job before it
-- removes it, and a job claimed, promoted or cancelled in between would run twice or come back.
-- Work already in flight (complete, retry, bury, extend, release) is not refused: it ends there,
-- and the mover moves what it leaves waiting. `frozen` is the field's value when the caller read
-- it with its own HMGET, nil to read it here; `layout` the '~buckets' value if read too.
local function frozen_refusal(frozen, layout)
  if frozen == nil then
    frozen = redis.call('HEXISTS', K_COUNT, '~frozen') == 1
  end
  if not frozen then return nil end
  layout = layout or redis.call('HGET', K_COUNT, '~buckets') or '?'
  return redis.error_reply('ERR redeq-layout: bucket ' .. K_COUNT .. ' is frozen while the bucket count of its '
    .. 'prefix changes to ' .. layout .. '; its jobs are moving to the new layout')
end
