package io.redeq.spring.internal.journal;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The schema scripts shipped in the jar, and the table name rules. */
class JournalSchemaTests {

	@Test
	void theScriptsUseThePrefixForTheTableAndItsIndexes() {
		for (JournalDialect dialect : JournalDialect.values()) {
			String script = JournalSchema.script(dialect.schemaLocation(), "shop_");
			assertThat(script).contains("CREATE TABLE IF NOT EXISTS shop_job")
				.contains("shop_job_state_idx")
				.contains("shop_job_finished_idx")
				.doesNotContain("${prefix}");
			assertThat(JournalSchema.script(dialect.upgradeLocation(), "shop_")).contains("ALTER TABLE shop_job")
				.doesNotContain("${prefix}");
		}
	}

	/**
	 * Every column the journal reads or writes is created by both scripts, and added by
	 * both upgrades.
	 */
	@Test
	void everyColumnIsInEachScriptOfEachDatabase() {
		for (JournalDialect dialect : JournalDialect.values()) {
			String create = JournalSchema.script(dialect.schemaLocation(), "redeq_");
			String upgrade = JournalSchema.script(dialect.upgradeLocation(), "redeq_");
			for (String column : JournalSchema.COLUMNS) {
				assertThat(create).containsPattern("(?m)^\\s+" + column + " ");
			}
			for (String column : List.of("timeout_ms", "max_attempts", "priority", "on_duplicate", "trace_context",
					"recovered_in", "job_version", "accepted_at")) {
				assertThat(upgrade).containsAnyOf("ADD COLUMN IF NOT EXISTS " + column + " ",
						"ADD COLUMN " + column + " ");
			}
		}
	}

	@Test
	void aPrefixThatIsNotAPlainIdentifierIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> JournalSchema.table("x; DROP TABLE users; --"))
			.withMessageContaining("redeq.journal.table-prefix")
			.withMessageContaining("DROP TABLE");
		assertThatIllegalArgumentException().isThrownBy(() -> JournalSchema.table("1x"));
		assertThat(JournalSchema.table("redeq_")).isEqualTo("redeq_job");
	}

	@Test
	void theDialectFollowsTheProductName() {
		assertThat(JournalDialect.of("PostgreSQL")).isEqualTo(JournalDialect.POSTGRESQL);
		assertThat(JournalDialect.of("MariaDB")).isEqualTo(JournalDialect.MYSQL);
		assertThat(JournalDialect.of("MySQL")).isEqualTo(JournalDialect.MYSQL);
		assertThat(JournalDialect.of("H2")).isEqualTo(JournalDialect.H2);
		assertThatIllegalStateException().isThrownBy(() -> JournalDialect.of("Oracle"))
			.withMessageContaining("Oracle")
			.withMessageContaining("redeq.journal.enabled=false");
	}

}
