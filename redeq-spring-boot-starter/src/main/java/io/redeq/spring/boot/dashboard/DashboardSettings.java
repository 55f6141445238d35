package io.redeq.spring.boot.dashboard;

/**
 * What the dashboard was configured with ({@code redeq.dashboard.*}).
 *
 * @param path the path it is served under, starting with '/' and without a trailing '/'
 * @param readOnly whether actions are hidden and refused
 * @param actionRole the role Spring Security must grant a user for actions
 * @param roleRequired whether the application runs Spring Security's filter chain, so
 * that actions need {@code actionRole}
 */
public record DashboardSettings(String path, boolean readOnly, String actionRole, boolean roleRequired) {

	/**
	 * Settings with the path normalised: a leading '/', no trailing one.
	 * @param path the configured path
	 * @param readOnly whether actions are hidden and refused
	 * @param actionRole the role required for actions under Spring Security
	 * @param roleRequired whether Spring Security's filter chain runs
	 * @return the settings
	 */
	public static DashboardSettings of(String path, boolean readOnly, String actionRole, boolean roleRequired) {
		String normalised = path.trim();
		if (!normalised.startsWith("/")) {
			normalised = "/" + normalised;
		}
		while (normalised.length() > 1 && normalised.endsWith("/")) {
			normalised = normalised.substring(0, normalised.length() - 1);
		}
		if (normalised.equals("/")) {
			throw new IllegalArgumentException(
					"redeq.dashboard.path must name a path below the root, such as /redeq, but was '" + path + "'");
		}
		return new DashboardSettings(normalised, readOnly, actionRole, roleRequired);
	}

}
