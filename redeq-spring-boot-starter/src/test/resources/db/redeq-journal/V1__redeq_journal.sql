-- The journal's table as redeq 0.1.0 created it (schema version 1), as an application's first migration.
CREATE TABLE redeq_job (
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
	PRIMARY KEY (topic, id)
);
CREATE INDEX redeq_job_state_idx ON redeq_job (state, updated_at);
CREATE INDEX redeq_job_finished_idx ON redeq_job (finished_at);
