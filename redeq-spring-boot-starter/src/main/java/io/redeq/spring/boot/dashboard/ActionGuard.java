package io.redeq.spring.boot.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.Principal;
import java.security.SecureRandom;
import java.util.HexFormat;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseCookie;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Decides who may use the dashboard's actions and protects them from cross-site requests.
 *
 * <p>
 * A user needs to be signed in and to have the configured role, whatever signed them in:
 * the check is the servlet request's ({@link HttpServletRequest#getUserPrincipal} and
 * {@link HttpServletRequest#isUserInRole}), which Spring Security, the servlet container
 * or any filter that wraps the request answer. Nobody signed in, no action.
 *
 * <p>
 * Against cross-site requests the forms carry the dashboard's own token, a random value
 * that a {@code SameSite=Strict}, HTTP-only cookie repeats (double submit). Under Spring
 * Security the forms also carry its CSRF token, so that its filter lets them through.
 */
final class ActionGuard {

	static final String COOKIE = "redeq-dashboard-csrf";

	/** Not Spring Security's {@code _csrf}: the forms carry both. */
	static final String PARAMETER = "redeq-csrf";

	private static final String SECURITY_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

	private static final HexFormat HEX = HexFormat.of();

	private final DashboardSettings settings;

	private final boolean securityTokens;

	private final SecureRandom random = new SecureRandom();

	ActionGuard(DashboardSettings settings) {
		ClassLoader loader = ActionGuard.class.getClassLoader();
		this.settings = settings;
		this.securityTokens = ClassUtils.isPresent(SECURITY_TOKEN, loader);
	}

	/** Whether actions are shown to, and accepted from, the user of this request. */
	boolean mayAct(ServerRequest request) {
		return !this.settings.readOnly() && user(request) != null
				&& request.servletRequest().isUserInRole(this.settings.actionRole());
	}

	/** The tokens the page's forms carry, and a cookie to set when ours is new. */
	FormToken tokenFor(ServerRequest request) {
		FormToken.Field security = this.securityTokens ? SecurityTokens.of(request.servletRequest()) : null;
		String existing = cookie(request);
		if (existing != null) {
			return new FormToken(new FormToken.Field(PARAMETER, existing), security, null);
		}
		byte[] bytes = new byte[32];
		this.random.nextBytes(bytes);
		String value = HEX.formatHex(bytes);
		ResponseCookie cookie = ResponseCookie.from(COOKIE, value)
			.httpOnly(true)
			.sameSite("Strict")
			.secure(request.servletRequest().isSecure())
			.path(PageContext.base(request, this.settings))
			.build();
		return new FormToken(new FormToken.Field(PARAMETER, value), security, cookie.toString());
	}

	/**
	 * Why an action must be refused, or {@code null} when it may run: read-only, nobody
	 * signed in, the role missing, or the request not carrying the page's token.
	 */
	@Nullable String refusal(ServerRequest request) {
		if (this.settings.readOnly()) {
			return "the dashboard is read-only (redeq.dashboard.read-only)";
		}
		String role = this.settings.actionRole();
		if (user(request) == null) {
			return "actions need a signed-in user with the role " + role
					+ " (redeq.dashboard.action-role), and nobody is signed in";
		}
		if (!mayAct(request)) {
			return "actions need the role " + role + " (redeq.dashboard.action-role)";
		}
		String expected = cookie(request);
		String sent = request.param(PARAMETER).orElse(null);
		if (expected == null || sent == null || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
				sent.getBytes(StandardCharsets.UTF_8))) {
			return "the form's CSRF token is missing or does not match; reload the page and try again";
		}
		return null;
	}

	private static @Nullable Principal user(ServerRequest request) {
		return request.servletRequest().getUserPrincipal();
	}

	private static @Nullable String cookie(ServerRequest request) {
		Cookie cookie = request.cookies().getFirst(COOKIE);
		return (cookie != null && !cookie.getValue().isEmpty()) ? cookie.getValue() : null;
	}

	/**
	 * A form's hidden CSRF fields.
	 *
	 * @param own the dashboard's token
	 * @param security Spring Security's token, or {@code null}
	 * @param setCookie a {@code Set-Cookie} header value when our token is new, else
	 * {@code null}
	 */
	record FormToken(Field own, @Nullable Field security, @Nullable String setCookie) {

		/**
		 * One hidden field.
		 *
		 * @param name its name
		 * @param value its value
		 */
		record Field(String name, String value) {
		}

	}

}
