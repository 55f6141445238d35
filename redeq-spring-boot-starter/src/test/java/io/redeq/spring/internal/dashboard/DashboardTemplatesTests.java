package io.redeq.spring.internal.dashboard;

import java.util.List;

import com.samskivert.mustache.MustacheException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link DashboardTemplates}: every page compiles, values are escaped, and a
 * template that asks its model for a name the model lacks fails instead of drawing
 * nothing.
 */
class DashboardTemplatesTests {

	private final DashboardTemplates templates = new DashboardTemplates();

	@Test
	void escapesEveryValueAndKeepsTheFrame() {
		Layout.Frame frame = new Layout.Frame("<b>title</b>", "/shop/redeq", "redeq",
				List.of(new Layout.Frame.Link("overview", "Overview", "/shop/redeq", true)), "view only", false,
				"\"quoted\" & <tag>", "done <i>", null);

		String page = this.templates.render("problem",
				new DashboardRoutes.Problem(frame, "<script>alert(1)</script>", "it's <b>bad</b>"));

		assertThat(page).startsWith("<!DOCTYPE html>")
			.contains("<title>&lt;b&gt;title&lt;/b&gt; · redeq</title>")
			.contains("<link rel=\"stylesheet\" href=\"/shop/redeq/assets/dashboard.css\">")
			.contains("<a href=\"/shop/redeq\" id=\"nav-overview\" class=\"active\" aria-current=\"page\">Overview</a>")
			.contains("<span class=\"badge muted\" id=\"read-only\">view only</span>")
			.contains("title=\"&quot;quoted&quot; &amp; &lt;tag&gt;\">Redis unreachable</span>")
			.contains("<p class=\"flash ok\" id=\"flash\" role=\"status\">done &lt;i&gt;</p>")
			.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
			.contains("it&#39;s &lt;b&gt;bad&lt;/b&gt;")
			.doesNotContain("<script>alert")
			.doesNotContain("role=\"alert\"")
			.contains("</main>\n</body>\n</html>");
	}

	@Test
	void aModelWithoutANameItsTemplateUsesFails() {
		assertThatExceptionOfType(MustacheException.class)
			.isThrownBy(() -> this.templates.render("problem", new Object()))
			.withMessageContaining("frame");
	}

	@Test
	void anUnknownPageIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.templates.render("nope", new Object()))
			.withMessageContaining("'nope'")
			.withMessageContaining("overview");
	}

}
