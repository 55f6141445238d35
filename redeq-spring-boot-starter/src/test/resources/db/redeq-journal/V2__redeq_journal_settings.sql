-- Journal schema version 2, as docs/journal.md gives it for Flyway and Liquibase.
ALTER TABLE redeq_job ADD COLUMN timeout_ms BIGINT NULL;
ALTER TABLE redeq_job ADD COLUMN max_attempts INTEGER NULL;
ALTER TABLE redeq_job ADD COLUMN priority INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE redeq_job ADD COLUMN on_duplicate VARCHAR(8) NULL;
ALTER TABLE redeq_job ADD COLUMN trace_context VARCHAR(512) NULL;
ALTER TABLE redeq_job ADD COLUMN recovered_in VARCHAR(64) NULL;
ALTER TABLE redeq_job ADD COLUMN job_version VARCHAR(32) NULL;
ALTER TABLE redeq_job ADD COLUMN accepted_at BIGINT NULL;
