package io.redeq.spring.internal.dashboard;

import java.util.HexFormat;
import java.util.List;

import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.Test;

import org.springframework.http.converter.StringHttpMessageConverter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.function.ServerRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ActionGuard}: read-only, a signed-in user with the role whatever
 * signed them in, and the signed double-submit token.
 */
class ActionGuardTests {

	private final ActionGuard guard = new ActionGuard(DashboardSettings.of("/redeq", false, "OPS"));

	@Test
	void refusesEverythingWhenReadOnly() {
		ActionGuard readOnly = new ActionGuard(DashboardSettings.of("/redeq", true, "OPS"));
		String token = readOnly.tokenFor(request(null, null, "ada", "OPS")).own().value();
		ServerRequest request = request(token, token, "ada", "OPS");

		assertThat(readOnly.mayAct(request)).isFalse();
		assertThat(readOnly.refusal(request)).contains("read-only");
	}

	@Test
	void needsASignedInUserWithTheRole() {
		String anonymous = this.guard.tokenFor(request(null, null, null, null)).own().value();
		String viewer = this.guard.tokenFor(request(null, null, "bob", null)).own().value();
		String ops = this.guard.tokenFor(request(null, null, "ada", "OPS")).own().value();

		assertThat(this.guard.mayAct(request(anonymous, anonymous, null, null))).isFalse();
		assertThat(this.guard.refusal(request(anonymous, anonymous, null, null))).contains("nobody is signed in");
		// A request that claims the role without a user (no servlet security would)
		// is refused too.
		assertThat(this.guard.refusal(request(anonymous, anonymous, null, "OPS"))).contains("nobody is signed in");
		assertThat(this.guard.mayAct(request(viewer, viewer, "bob", null))).isFalse();
		assertThat(this.guard.refusal(request(viewer, viewer, "bob", null))).contains("role OPS");
		assertThat(this.guard.mayAct(request(ops, ops, "ada", "OPS"))).isTrue();
		assertThat(this.guard.refusal(request(ops, ops, "ada", "OPS"))).isNull();
	}

	@Test
	void needsTheFormToRepeatACookieThisApplicationSignedForThisUser() {
		String token = this.guard.tokenFor(request(null, null, "ada", "OPS")).own().value();
		String unsigned = HexFormat.of().formatHex(new byte[32]);
		String forged = token.substring(0, token.indexOf('.') + 1) + HexFormat.of().formatHex(new byte[32]);
		String otherApplication = new ActionGuard(DashboardSettings.of("/redeq", false, "OPS"))
			.tokenFor(request(null, null, "ada", "OPS"))
			.own()
			.value();
		String otherUser = this.guard.tokenFor(request(null, null, "eve", "OPS")).own().value();

		assertThat(this.guard.refusal(request(token, token, "ada", "OPS"))).isNull();
		assertThat(this.guard.refusal(request(token, "other", "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(null, token, "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(token, null, "ada", "OPS"))).contains("CSRF");
		// Planted cookies with a matching field: what a sibling subdomain can do.
		assertThat(this.guard.refusal(request(unsigned, unsigned, "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(forged, forged, "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(otherApplication, otherApplication, "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(otherUser, otherUser, "ada", "OPS"))).contains("CSRF");
		assertThat(this.guard.refusal(request(".", ".", "ada", "OPS"))).contains("CSRF");
	}

	@Test
	void issuesAStrictHttpOnlyCookieBelowTheContextPathOnlyWhenThereIsNoSignedOne() {
		ActionGuard slashes = new ActionGuard(DashboardSettings.of("redeq/", false, "OPS"));
		MockHttpServletRequest underContext = servlet(null, null, "ada", "OPS");
		underContext.setContextPath("/shop");
		underContext.setRequestURI("/shop/redeq/actions");

		ActionGuard.FormToken fresh = slashes.tokenFor(ServerRequest.create(underContext, List.of()));
		String value = fresh.own().value();
		ActionGuard.FormToken kept = slashes.tokenFor(request(value, null, "ada", "OPS"));
		ActionGuard.FormToken replaced = slashes.tokenFor(request("planted", null, "ada", "OPS"));

		assertThat(value).matches("[0-9a-f]{64}\\.[0-9a-f]{64}");
		assertThat(fresh.setCookie()).contains("redeq-dashboard-csrf=" + value)
			.contains("HttpOnly")
			.contains("SameSite=Strict")
			.contains("Path=/shop/redeq");
		assertThat(kept.own().value()).isEqualTo(value);
		assertThat(kept.setCookie()).isNull();
		assertThat(replaced.own().value()).isNotEqualTo("planted").matches("[0-9a-f]{64}\\.[0-9a-f]{64}");
		assertThat(replaced.setCookie()).contains("redeq-dashboard-csrf=" + replaced.own().value());
	}

	private static ServerRequest request(String cookie, String form, String user, String role) {
		return ServerRequest.create(servlet(cookie, form, user, role), List.of(new StringHttpMessageConverter()));
	}

	private static MockHttpServletRequest servlet(String cookie, String form, String user, String role) {
		MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/redeq/actions");
		if (cookie != null) {
			servlet.setCookies(new Cookie(ActionGuard.COOKIE, cookie));
		}
		if (form != null) {
			servlet.addParameter(ActionGuard.PARAMETER, form);
		}
		if (user != null) {
			servlet.setUserPrincipal(() -> user);
		}
		if (role != null) {
			servlet.addUserRole(role);
		}
		return servlet;
	}

}
