package io.redeq.spring.internal.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Principal;
import java.security.SecureRandom;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

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
 * Against cross-site requests the forms carry the dashboard's own token, which a
 * {@code SameSite=Strict}, HTTP-only cookie repeats (double submit). The token is signed:
 * a random nonce and an HMAC-SHA256 of it and the user's name, under a key drawn at
 * random when the application starts. A cookie planted by a sibling subdomain (which can
 * set cookies for the parent domain) therefore fails: its holder can neither sign a token
 * nor reuse one issued to another user. Under Spring Security the forms also carry its
 * CSRF token, so that its filter lets them through.
 */
final class ActionGuard {

	static final String COOKIE = "redeq-dashboard-csrf";

	/** Not Spring Security's {@code _csrf}: the forms carry both. */
	static final String PARAMETER = "redeq-csrf";

	private static final String SECURITY_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

	private static final String HMAC = "HmacSHA256";

	private static final HexFormat HEX = HexFormat.of();

	private final DashboardSettings settings;

	private final boolean securityTokens;

	private final SecureRandom random = new SecureRandom();

	private final SecretKeySpec key;

	ActionGuard(DashboardSettings settings) {
		ClassLoader loader = ActionGuard.class.getClassLoader();
		this.settings = settings;
		this.securityTokens = ClassUtils.isPresent(SECURITY_TOKEN, loader);
		byte[] secret = new byte[32];
		this.random.nextBytes(secret);
		this.key = new SecretKeySpec(secret, HMAC);
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
		if (existing != null && signed(existing, request)) {
			return new FormToken(new FormToken.Field(PARAMETER, existing), security, null);
		}
		byte[] bytes = new byte[32];
		this.random.nextBytes(bytes);
		String nonce = HEX.formatHex(bytes);
		String value = nonce + "." + signature(nonce, request);
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
	 * signed in, the role missing, or the request not carrying a token this application
	 * signed for this user in both its cookie and its form.
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
				sent.getBytes(StandardCharsets.UTF_8)) || !signed(sent, request)) {
			return "the form's CSRF token is missing, does not match or was not issued to you; "
					+ "reload the page and try again";
		}
		return null;
	}

	/** Whether this application signed {@code token} for the user of this request. */
	private boolean signed(String token, ServerRequest request) {
		int dot = token.indexOf('.');
		if (dot <= 0 || dot == token.length() - 1) {
			return false;
		}
		byte[] expected = signature(token.substring(0, dot), request).getBytes(StandardCharsets.US_ASCII);
		return MessageDigest.isEqual(expected, token.substring(dot + 1).getBytes(StandardCharsets.UTF_8));
	}

	/** The HMAC of the nonce and the user's name (empty when nobody is signed in). */
	private String signature(String nonce, ServerRequest request) {
		Principal user = user(request);
		String name = (user != null) ? user.getName() : "";
		try {
			Mac mac = Mac.getInstance(HMAC);
			mac.init(this.key);
			mac.update(nonce.getBytes(StandardCharsets.UTF_8));
			mac.update((byte) 0);
			return HEX.formatHex(mac.doFinal(name.getBytes(StandardCharsets.UTF_8)));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is missing from this JVM", ex);
		}
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
