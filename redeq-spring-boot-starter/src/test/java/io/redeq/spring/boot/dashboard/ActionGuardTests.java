package io.redeq.spring.boot.dashboard;

import java.util.List;

import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.Test;

import org.springframework.http.converter.StringHttpMessageConverter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.function.ServerRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ActionGuard}: read-only, the role under Spring Security, and the
 * double-submit token.
 */
class ActionGuardTests {

	private static final String TOKEN = "0123456789abcdef";

	@Test
	void refusesEverythingWhenReadOnly() {
		ActionGuard guard = new ActionGuard(DashboardSettings.of("/redeq", true, "OPS", false));
		ServerRequest request = request(TOKEN, TOKEN, null);

		assertThat(guard.mayAct(request)).isFalse();
		assertThat(guard.refusal(request)).contains("read-only");
	}

	@Test
	void needsTheRoleOnlyWhenSpringSecurityRuns() {
		ActionGuard secured = new ActionGuard(DashboardSettings.of("/redeq", false, "OPS", true));
		ActionGuard open = new ActionGuard(DashboardSettings.of("/redeq", false, "OPS", false));

		assertThat(secured.mayAct(request(TOKEN, TOKEN, null))).isFalse();
		assertThat(secured.refusal(request(TOKEN, TOKEN, null))).contains("role OPS");
		assertThat(secured.mayAct(request(TOKEN, TOKEN, "OPS"))).isTrue();
		assertThat(secured.refusal(request(TOKEN, TOKEN, "OPS"))).isNull();
		assertThat(open.refusal(request(TOKEN, TOKEN, null))).isNull();
	}

	@Test
	void needsTheFormToRepeatTheCookie() {
		ActionGuard guard = new ActionGuard(DashboardSettings.of("/redeq", false, "OPS", false));

		assertThat(guard.refusal(request(TOKEN, "other", null))).contains("CSRF");
		assertThat(guard.refusal(request(null, TOKEN, null))).contains("CSRF");
		assertThat(guard.refusal(request(TOKEN, null, null))).contains("CSRF");
	}

	@Test
	void issuesAStrictHttpOnlyCookieOnlyWhenThereIsNone() {
		ActionGuard guard = new ActionGuard(DashboardSettings.of("redeq/", false, "OPS", false));

		ActionGuard.FormToken fresh = guard.tokenFor(request(null, null, null));
		ActionGuard.FormToken kept = guard.tokenFor(request(TOKEN, null, null));

		assertThat(fresh.own().value()).hasSize(64);
		assertThat(fresh.setCookie()).contains("redeq-dashboard-csrf=" + fresh.own().value())
			.contains("HttpOnly")
			.contains("SameSite=Strict")
			.contains("Path=/redeq");
		assertThat(kept.own().value()).isEqualTo(TOKEN);
		assertThat(kept.setCookie()).isNull();
	}

	private static ServerRequest request(String cookie, String form, String role) {
		MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/redeq/actions");
		if (cookie != null) {
			servlet.setCookies(new Cookie(ActionGuard.COOKIE, cookie));
		}
		if (form != null) {
			servlet.addParameter(ActionGuard.PARAMETER, form);
		}
		if (role != null) {
			servlet.addUserRole(role);
		}
		return ServerRequest.create(servlet, List.of(new StringHttpMessageConverter()));
	}

}
