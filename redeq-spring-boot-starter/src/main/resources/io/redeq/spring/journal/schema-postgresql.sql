-- redeq job journal and transactional outbox, PostgreSQL (also used for H2). Schema version 2.
-- ${prefix} is redeq.journal.table-prefix (default redeq_). Times are epoch milliseconds (UTC).
-- One row per job (topic, id): the outbox row written in the application's transaction,
-- then the job's life (SCHEDULED, RUNNING, RETRYING, COMPLETED, DEAD, CANCELLED), and the
-- job's own settings, so that the relay and the recovery send the job as it was scheduled.
-- job_version names the version of the job the row describes, stored with the job in Redis, so
-- that an outcome of another version never finishes its unsent outbox row; accepted_at is the Redis time
-- Redis stored that version at, so that of two versions the one Redis stored last is kept.
-- A table of version 1 (without the settings) is upgraded by schema-upgrade-2-postgresql.sql.
CREATE TABLE IF NOT EXISTS ${prefix}job (
	topic VARCHAR(200) NOT NULL,
	id VARCHAR(200) NOT NULL,
	state VARCHAR(16) NOT NULL,
	payload TEXT,
	due_at BIGINT NOT NULL,
	attempts INTEGER DEFAULT 0 NOT NULL,
	last_error VARCHAR(1000),
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL,
	finished_at BIGINT,
	timeout_ms BIGINT NULL,
	max_attempts INTEGER NULL,
	priority INTEGER DEFAULT 0 NOT NULL,
	on_duplicate VARCHAR(8) NULL,
	trace_context VARCHAR(512) NULL,
	recovered_in VARCHAR(64) NULL,
	job_version VARCHAR(32) NULL,
	accepted_at BIGINT NULL,
	PRIMARY KEY (topic, id)
);
-- The relay (state = 'OUTBOX' AND updated_at < ?) and the recovery (state IN ('SCHEDULED', 'RUNNING', 'RETRYING')).
CREATE INDEX IF NOT EXISTS ${prefix}job_state_idx ON ${prefix}job (state, updated_at);
-- The retention (finished_at < ?).
CREATE INDEX IF NOT EXISTS ${prefix}job_finished_idx ON ${prefix}job (finished_at);
