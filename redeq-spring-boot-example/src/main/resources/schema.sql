-- The demo's orders: placed in a transaction that also writes the order's timeout job to
-- redeq's journal (the table redeq_job, created by redeq.journal.initialize-schema).
CREATE TABLE IF NOT EXISTS orders (
	id BIGINT PRIMARY KEY,
	item VARCHAR(200) NOT NULL,
	created_at TIMESTAMP NOT NULL
);
