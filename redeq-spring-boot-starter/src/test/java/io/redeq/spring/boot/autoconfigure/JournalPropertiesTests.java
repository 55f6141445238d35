package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.redeq.spring.internal.journal.JournalSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@code redeq.journal.*}: defaults, mapping, and values refused with their name. */
class JournalPropertiesTests {

	@Test
	void defaultsAreOffEmbeddedAndAWeekOfHistory() {
		RedeqProperties.Journal journal = new RedeqProperties().getJournal();
		assertThat(journal.isEnabled()).isFalse();
		assertThat(journal.getInitializeSchema()).isEqualTo(RedeqProperties.Journal.SchemaInitialization.EMBEDDED);
		assertThat(journal.isAutoRecover()).isFalse();
		JournalSettings settings = RedeqPropertiesMapper.journalSettings(journal);
		assertThat(settings.table()).isEqualTo("redeq_job");
		assertThat(settings.retention()).isEqualTo(Duration.ofDays(7));
		assertThat(settings.relayInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(settings.relayGrace()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void theRelayGraceIsTwiceTheInterval() {
		RedeqProperties.Journal journal = new RedeqProperties().getJournal();
		journal.setRelayInterval(Duration.ofSeconds(5));
		journal.setTablePrefix("shop_");
		JournalSettings settings = RedeqPropertiesMapper.journalSettings(journal);
		assertThat(settings.relayGrace()).isEqualTo(Duration.ofSeconds(10));
		assertThat(settings.table()).isEqualTo("shop_job");
	}

	@Test
	void badValuesAreRefusedWithTheirName() {
		RedeqProperties.Journal journal = new RedeqProperties().getJournal();
		journal.setBatchSize(0);
		assertThatIllegalArgumentException().isThrownBy(() -> RedeqPropertiesMapper.journalSettings(journal))
			.withMessageContaining("redeq.journal.batch-size")
			.withMessageContaining("0");
		journal.setBatchSize(500);
		journal.setRetention(Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> RedeqPropertiesMapper.journalSettings(journal))
			.withMessageContaining("redeq.journal.retention");
	}

}
