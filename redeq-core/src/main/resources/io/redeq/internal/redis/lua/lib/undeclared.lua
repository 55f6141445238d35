-- Topics of these job keys whose keys the caller did not declare (the caller retries with them).
local function undeclared(job_keys, missing, seen)
  for _, job_key in ipairs(job_keys) do
    local topic = topic_of(job_key)
    if topic and not TOPIC_KEYS[topic] and not seen[topic] then
      seen[topic] = true
      missing[#missing + 1] = topic
    end
  end
end
