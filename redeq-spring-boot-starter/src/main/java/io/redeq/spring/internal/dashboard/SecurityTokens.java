package io.redeq.spring.internal.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;

/**
 * Reads Spring Security's CSRF token; loaded only when Spring Security is on the
 * classpath.
 */
final class SecurityTokens {

	private SecurityTokens() {
	}

	static ActionGuard.FormToken.@Nullable Field of(HttpServletRequest request) {
		if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
			return new ActionGuard.FormToken.Field(token.getParameterName(), token.getToken());
		}
		return null;
	}

}
