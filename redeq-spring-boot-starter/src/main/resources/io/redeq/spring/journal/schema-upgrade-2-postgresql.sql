-- redeq journal schema version 1 -> 2, PostgreSQL 9.6 or later (also used for H2).
-- Adds the job's own settings; rows already there keep them unset (the topic's defaults).
-- Each statement is guarded, so running the script again, or on a version 2 table, does nothing.
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS timeout_ms BIGINT NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS max_attempts INTEGER NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS priority INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS on_duplicate VARCHAR(8) NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS trace_context VARCHAR(512) NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS recovered_in VARCHAR(64) NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS job_version VARCHAR(32) NULL;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS accepted_at BIGINT NULL;
