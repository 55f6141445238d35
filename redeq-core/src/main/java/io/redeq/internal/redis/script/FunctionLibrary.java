package io.redeq.internal.redis.script;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * redeq's hot-path scripts as one Redis Functions library (Redis 7 and later).
 * <p>
 * Redis runs a script sent with {@code EVALSHA} from its first line at every call, so
 * every helper the script includes is defined again each time, a large share of the Redis
 * CPU a job costs between schedule, hand-off and completion. A library defines the
 * helpers once, when it is loaded; each of its functions sets its call's state
 * ({@code begin_call} in prelude.lua) and runs the same body the script runs, so both
 * ways of calling do the same thing and either may serve any call.
 * <p>
 * The library and its functions are named after the digest of the library's text: during
 * a rolling upgrade, instances of two redeq versions each call their own.
 */
final class FunctionLibrary {

	private static final String NAME_PLACEHOLDER = "{{library}}";

	private final String name;

	private final String source;

	private final Map<String, String> functions;

	private FunctionLibrary(String name, String source, Map<String, String> functions) {
		this.name = name;
		this.source = source;
		this.functions = functions;
	}

	/**
	 * A library of job scripts.
	 * @param adding scripts that add jobs: Redis refuses them up front when it is out of
	 * memory, as it refuses their first write when sent with {@code EVALSHA}
	 * @param moving scripts that only move or delete jobs (and the small records a claim
	 * needs): they run when Redis is out of memory, so due jobs still reach consumers and
	 * finished jobs still free their memory
	 */
	static FunctionLibrary of(List<LuaScript> adding, List<LuaScript> moving) {
		List<String> bodies = new ArrayList<>();
		StringBuilder registrations = new StringBuilder();
		Map<String, String> functionNames = new HashMap<>();
		for (LuaScript script : concat(adding, moving)) {
			String body = LuaScript.read(script.name());
			bodies.add(body);
			String function = functionName(script);
			functionNames.put(script.name(), function);
			registrations.append("redis.register_function{function_name = '")
				.append(NAME_PLACEHOLDER)
				.append('_')
				.append(function)
				.append("',")
				.append(moving.contains(script) ? " flags = { 'allow-oom' }," : "")
				.append(" callback = function(keys, args)\nKEYS, ARGV = keys, args\n")
				.append(LuaScript.BEGIN_CALL.replace("KEYS, ARGV[1]", "keys, args[1]"))
				.append(body)
				.append("\nend}\n");
		}
		// KEYS and ARGV are the scripts' globals; in a library they are set per call.
		String template = "local KEYS, ARGV\n" + LuaScript.read("prelude") + "\n"
				+ LuaScript.librariesFor(String.join("\n", bodies)) + registrations;
		String name = "redeq_" + LuaScript.sha1(template).substring(0, 12);
		Map<String, String> byScript = new HashMap<>();
		functionNames.forEach((script, function) -> byScript.put(script, name + "_" + function));
		return new FunctionLibrary(name, "#!lua name=" + name + "\n" + template.replace(NAME_PLACEHOLDER, name),
				Map.copyOf(byScript));
	}

	private static List<LuaScript> concat(List<LuaScript> first, List<LuaScript> second) {
		List<LuaScript> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	/** Function names allow letters, digits and underscores only. */
	private static String functionName(LuaScript script) {
		return script.name().replace('-', '_');
	}

	String name() {
		return this.name;
	}

	/** The text sent with {@code FUNCTION LOAD}. */
	String source() {
		return this.source;
	}

	/**
	 * The function that runs a script, or {@code null} when the script is not in here.
	 */
	@Nullable String functionOf(LuaScript script) {
		return this.functions.get(script.name());
	}

}
