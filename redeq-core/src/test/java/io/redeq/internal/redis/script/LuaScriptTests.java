package io.redeq.internal.redis.script;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The loader sends each job script with only the helpers it calls: a helper left out
 * fails the script at run time ("attempt to call a nil value"), one put in for nothing
 * costs every call the time to define it.
 */
class LuaScriptTests {

	private static final Pattern DEFINED = Pattern.compile("^local function (\\w+)\\(", Pattern.MULTILINE);

	@Test
	void everyHelperAScriptCallsIsDefinedBeforeTheScriptRuns() throws Exception {
		Set<String> helpers = helpersOf(LuaScript.job("migrate", ScriptOutputType.MULTI).source());
		helpers.addAll(helpersOf(LuaScript.job("schedule", ScriptOutputType.MULTI).source()));
		assertThat(helpers).contains("parse_attempt", "count", "state_of", "refuse_other_layout", "undeclared");
		for (LuaScript script : allScripts()) {
			String source = script.source().replaceAll("--[^\n]*", "");
			Set<String> defined = helpersOf(source);
			for (String helper : helpers) {
				if (calls(source, helper)) {
					assertThat(defined).as("%s calls %s()", script, helper).contains(helper);
				}
			}
		}
	}

	@Test
	void aScriptGetsOnlyTheHelpersItCalls() {
		assertThat(helpersOf(Scripts.UNLOCK.source())).containsOnly("begin_call", "now_ms", "topic_of", "ready_key",
				"dead_key");
		assertThat(helpersOf(Scripts.CLAIM.source())).contains("parse_attempt", "count", "bury", "zadd_all")
			.doesNotContain("state_of", "refuse_other_layout", "undeclared");
		// bury() calls count(): a script that only buries still gets the counters
		assertThat(LuaScript.librariesFor("bury(job_key, topic, now, 'x')")).contains("local function count(");
	}

	@Test
	void helpersComeBeforeTheirCallers() {
		String claim = Scripts.CLAIM.source();
		assertThat(claim.indexOf("local function count(")).isLessThan(claim.indexOf("local function bury("));
		assertThat(claim.indexOf("local function bury(")).isLessThan(claim.indexOf("local topic = ARGV[1]"));
	}

	private static boolean calls(String source, String helper) {
		return Pattern.compile("(?<![\\w.])" + helper + "\\(")
			.matcher(source.replace("local function " + helper + "(", ""))
			.find();
	}

	private static Set<String> helpersOf(String source) {
		Set<String> names = new LinkedHashSet<>();
		Matcher matcher = DEFINED.matcher(source);
		while (matcher.find()) {
			names.add(matcher.group(1));
		}
		return names;
	}

	private static List<LuaScript> allScripts() throws IllegalAccessException {
		List<LuaScript> scripts = new ArrayList<>();
		for (Field field : Scripts.class.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) && field.getType() == LuaScript.class) {
				field.setAccessible(true);
				scripts.add((LuaScript) field.get(null));
			}
		}
		assertThat(scripts).hasSizeGreaterThan(15);
		return scripts;
	}

}
