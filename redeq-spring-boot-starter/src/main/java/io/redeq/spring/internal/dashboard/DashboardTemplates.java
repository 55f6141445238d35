package io.redeq.spring.internal.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.samskivert.mustache.Mustache;
import com.samskivert.mustache.Template;

/**
 * The pages' Mustache templates ({@code templates/*.mustache} beside this class),
 * compiled once. Every value is HTML-escaped: payloads, ids and errors are written by
 * applications and must never become markup. A name a template uses that its model lacks
 * fails the page rather than showing nothing; a {@code null} value shows as empty, and as
 * false in a section.
 */
final class DashboardTemplates {

	/** The templates of whole pages; the others are partials they include. */
	static final List<String> PAGES = List.of("overview", "topic", "dead", "instance", "problem");

	private static final String LOCATION = "io/redeq/spring/internal/dashboard/templates/";

	private final Map<String, Template> pages;

	DashboardTemplates() {
		Mustache.Compiler compiler = Mustache.compiler()
			.withLoader(DashboardTemplates::open)
			.nullValue("")
			.strictSections(true);
		Map<String, Template> pages = new HashMap<>();
		for (String page : PAGES) {
			try (Reader reader = open(page)) {
				pages.put(page, compiler.compile(reader));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read the dashboard's template " + page, ex);
			}
		}
		this.pages = Map.copyOf(pages);
	}

	/** The page {@code name} drawn from {@code model}. */
	String render(String name, Object model) {
		Template template = this.pages.get(name);
		if (template == null) {
			throw new IllegalArgumentException("No dashboard page template named '" + name + "'; pages: " + PAGES);
		}
		return template.execute(model);
	}

	private static Reader open(String name) throws IOException {
		InputStream in = DashboardTemplates.class.getClassLoader().getResourceAsStream(LOCATION + name + ".mustache");
		if (in == null) {
			throw new IOException("No template " + LOCATION + name + ".mustache on the classpath");
		}
		return new InputStreamReader(in, StandardCharsets.UTF_8);
	}

}
