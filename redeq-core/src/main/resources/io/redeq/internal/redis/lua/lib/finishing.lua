-- Ending finished jobs: complete.lua's, and the completions a hand-off's migrate call carries
-- (migrate.lua). A job ends only while its claim token still matches its attempt record: a worker
-- whose lease expired, and whose job was claimed again elsewhere, must not end the new claim
-- (fencing). One HMGET reads the attempt records of all the jobs, unless the caller read them
-- with others of its own (attempt_recs, in the order of job_keys). Appends to out, per job, 1 if it
-- ended or 0 if the claim was no longer ours, and counts the ended jobs out of their topics.
-- Returns the ended jobs, and those of them that failed an attempt before (only those can have an
-- error to forget). The caller removes them with its other removals, last (see prelude.lua): out
-- of the lease set, and their payload, attempt and error records.
local function finish(out, job_keys, tokens, attempt_recs)
  attempt_recs = attempt_recs or read_all(K_PAYLOAD, attempt_fields(job_keys))
  local done, failed_before = {}, {}
  for i, job_key in ipairs(job_keys) do
    local a = parse_attempt(attempt_recs[i])
    local ok = 0
    if holds_claim(a, tokens[i]) then
      count(topic_of(job_key), -1)
      done[#done + 1] = job_key
      if a.attempts > 1 then failed_before[#failed_before + 1] = job_key end
      ok = 1
    end
    out[#out + 1] = ok
  end
  return done, failed_before
end
