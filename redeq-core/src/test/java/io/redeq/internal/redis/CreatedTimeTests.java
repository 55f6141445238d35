package io.redeq.internal.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CreatedTimeTests {

	@Test
	void aTimeOfThisCenturyTakesSevenBase64CharactersStartingWithALetter() {
		String text = CreatedTime.format(1_795_000_000_000L);

		assertThat(text).hasSize(7).matches("[A-Za-z][0-9A-Za-z_-]{6}");
		assertThat(CreatedTime.parse(text)).isEqualTo(1_795_000_000_000L);
		assertThat(CreatedTime.format(0)).isEqualTo("0");
		assertThat(CreatedTime.format(63)).isEqualTo("_");
		assertThat(CreatedTime.format(64)).isEqualTo("10");
	}

	@Test
	void everyTimeFrom1992To2109ReadsBackAsWritten() {
		for (long ms = 694_224_000_000L; ms < 4_398_046_511_104L; ms += 9_876_543_211L) {
			String text = CreatedTime.format(ms);
			assertThat(text).as("created %d", ms).hasSizeLessThanOrEqualTo(7).doesNotContain(";", "|", " ");
			assertThat(Character.isDigit(text.charAt(0))).as("first character of %s", text).isFalse();
			assertThat(CreatedTime.parse(text)).isEqualTo(ms);
		}
	}

	@Test
	void aDecimalTimeWrittenByEarlierBuildsIsReadAsDecimal() {
		assertThat(CreatedTime.parse("1764000000000")).isEqualTo(1_764_000_000_000L);
		assertThat(CreatedTime.of(1_764_000_000_000L)).isEqualTo(1_764_000_000_000L);
		assertThat(CreatedTime.ofRecord("1764000000000;t500 00-ab|{\"a\":1}")).isEqualTo(1_764_000_000_000L);
	}

	@Test
	void theHeadOfAWholeRecordEndsAtItsSettingsTraceOrPayload() {
		String created = CreatedTime.format(1_795_123_456_789L);

		assertThat(CreatedTime.ofRecord(created + "|p")).isEqualTo(1_795_123_456_789L);
		assertThat(CreatedTime.ofRecord(created + ";a3;p9|p")).isEqualTo(1_795_123_456_789L);
		assertThat(CreatedTime.ofRecord(created + " 00-trace|p")).isEqualTo(1_795_123_456_789L);
	}

	@Test
	void textThatIsNoCreatedTimeIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> CreatedTime.parse("Zq*x"))
			.withMessageContaining("'Zq*x'");
		assertThatIllegalArgumentException().isThrownBy(() -> CreatedTime.parse("ABCDEFGHIJK"))
			.withMessageContaining("ABCDEFGHIJK");
		assertThatIllegalArgumentException().isThrownBy(() -> CreatedTime.parse(""))
			.withMessageContaining("no created time");
		assertThatIllegalArgumentException().isThrownBy(() -> CreatedTime.format(-1)).withMessageContaining("-1");
	}

}
