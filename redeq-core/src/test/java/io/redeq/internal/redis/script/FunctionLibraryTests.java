package io.redeq.internal.redis.script;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's text: named after its digest, one function per script running the
 * script's own body after setting the call's state, and the out-of-memory flag only on
 * the scripts that add no jobs.
 */
class FunctionLibraryTests {

	private final FunctionLibrary library = Scripts.LIBRARY;

	@Test
	void theLibraryAndItsFunctionsAreNamedAfterItsDigest() {
		assertThat(this.library.name()).matches("redeq_[0-9a-f]{12}");
		assertThat(this.library.source()).startsWith("#!lua name=" + this.library.name() + "\n");
		assertThat(this.library.functionOf(Scripts.SCHEDULE)).isEqualTo(this.library.name() + "_schedule");
		assertThat(this.library.functionOf(Scripts.MIGRATE)).isEqualTo(this.library.name() + "_migrate");
		assertThat(this.library.functionOf(Scripts.COMPLETE)).isEqualTo(this.library.name() + "_complete");
		assertThat(this.library.functionOf(Scripts.CLAIM)).as("a script left out").isNull();
	}

	@Test
	void aChangedScriptMakesAnotherLibrary() {
		LuaScript claim = LuaScript.job("claim", ScriptOutputType.MULTI);
		FunctionLibrary other = FunctionLibrary.of(List.of(Scripts.SCHEDULE), List.of(claim));
		assertThat(other.name()).isNotEqualTo(this.library.name());
		assertThat(other.functionOf(claim)).isEqualTo(other.name() + "_claim");
	}

	@Test
	void eachFunctionSetsItsCallsStateThenRunsTheScriptsBody() {
		String source = this.library.source();
		String schedule = registration("schedule");
		assertThat(schedule).doesNotContain("allow-oom")
			.contains("KEYS, ARGV = keys, args\nbegin_call(keys, args[1])\n" + LuaScript.read("schedule"));
		assertThat(registration("migrate")).contains("flags = { 'allow-oom' }").contains(LuaScript.read("migrate"));
		assertThat(registration("complete")).contains("flags = { 'allow-oom' }").contains(LuaScript.read("complete"));
		// Helpers once, before the functions, and KEYS/ARGV as the library's own locals.
		assertThat(source.indexOf("local KEYS, ARGV\n")).isLessThan(source.indexOf("local function begin_call("));
		assertThat(source.split("local function claim_ready\\(", -1)).hasSize(2);
		assertThat(source.indexOf("local function claim_ready(")).isLessThan(source.indexOf("redis.register_function"));
	}

	private String registration(String script) {
		String source = this.library.source();
		int start = source.indexOf("function_name = '" + this.library.name() + "_" + script + "'");
		assertThat(start).as("registration of %s", script).isPositive();
		int end = source.indexOf("\nend}\n", start);
		return source.substring(start, end);
	}

}
