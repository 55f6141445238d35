-- upgrade-v2: moves attempt records of one bucket from format 2's attempt hash into the payload
-- hash, where format 3 keeps them beside the jobs' records (see prelude and lib/attempts.lua).
-- Idempotent: an attempt record already in the payload hash was written since by format 3 and
-- wins; the old one is dropped. So is a record whose job is gone: no script reads an attempt
-- record without its job's record.
-- KEYS: the bucket keys (see prelude; no topic keys), then format 2's attempt hash
-- ARGV[1] '' (no topics), then the jobKeys whose attempt records to move (at most 500)
-- Returns: number of attempt records moved
local OLD_ATTEMPT = KEYS[#KEYS]
local job_keys = { unpack(ARGV, 2) }
local old = read_all(OLD_ATTEMPT, job_keys)
local recs, current = read_jobs(job_keys)
local moved = {}
for i, job_key in ipairs(job_keys) do
  if old[i] and recs[i] and not current[i] then
    moved[#moved + 1] = attempt_field(job_key)
    moved[#moved + 1] = old[i]
  end
end
add_all('HSET', K_PAYLOAD, moved)
remove_all('HDEL', OLD_ATTEMPT, job_keys)
return #moved / 2
