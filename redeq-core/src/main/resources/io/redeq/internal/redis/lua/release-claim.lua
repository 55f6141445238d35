-- release-claim: hands back every job still held under one claim token, with its attempt given
-- back, and burns the token. A consumer runs it when a claim's reply was lost (a timeout or a
-- dropped connection after the script may have run): those jobs were never started, so they must
-- not wait for their lease nor lose an attempt. The token is remembered as used (lib/requests.lua),
-- so a claim or migrate under it that reaches Redis only after this (sent again by Lettuce, or
-- re-routed after a failover) takes nothing. Scans the bucket's in-flight jobs, which are few
-- (bounded by the consumers' slots), and runs only after such a failure.
-- KEYS: the bucket keys with the topic's ready and dead keys (see prelude), then the requests key
-- ARGV[1] topic, ARGV[2] claim token, ARGV[3] ms to remember the token
-- Returns: number of jobs handed back
local topic, token, keep = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not keep or keep <= 0 then
  return redis.error_reply('ERR redeq: release-claim needs how long to remember its token, but got '
    .. tostring(ARGV[3]))
end
local released = {}
for _, held in ipairs(held_by(topic, token)) do
  local a = held.attempt
  a.token = ''
  if a.attempts > 0 then a.attempts = a.attempts - 1 end
  write_attempt(held.job_key, a)
  local rec = redis.call('HGET', K_PAYLOAD, held.job_key)
  redis.call('ZADD', ready_key(topic), ready_score(a.due, rec and priority_of(settings_of(rec)) or 0), held.job_key)
  released[#released + 1] = held.job_key
end
remember_request(KEYS[#KEYS], token, now_ms(), keep)
remove_all('ZREM', K_LEASE, released)
return #released
