-- redeq journal schema version 1 -> 2, MySQL 8 and MariaDB 10.6 or later.
-- Adds the job's own settings; rows already there keep them unset (the topic's defaults).
-- MySQL has no ADD COLUMN IF NOT EXISTS: each column is added only when the information schema
-- does not list it yet, so running the script again, or on a version 2 table, does nothing.
-- With Flyway or Liquibase, a plain ALTER TABLE ... ADD COLUMN per column does the same once.
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN timeout_ms BIGINT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'timeout_ms');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN max_attempts INT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'max_attempts');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN priority INT DEFAULT 0 NOT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'priority');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN on_duplicate VARCHAR(8) NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'on_duplicate');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN trace_context VARCHAR(512) NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'trace_context');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN recovered_in VARCHAR(64) NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'recovered_in');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN job_version VARCHAR(32) NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'job_version');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
SET @redeq_ddl = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${prefix}job ADD COLUMN accepted_at BIGINT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${prefix}job' AND column_name = 'accepted_at');
PREPARE redeq_upgrade FROM @redeq_ddl;
EXECUTE redeq_upgrade;
DEALLOCATE PREPARE redeq_upgrade;
