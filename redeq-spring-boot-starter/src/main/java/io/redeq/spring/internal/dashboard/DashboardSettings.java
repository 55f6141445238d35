package io.redeq.spring.internal.dashboard;

/**
 * What the dashboard was configured with ({@code redeq.dashboard.*}).
 *
 * @param path the path it is served under (below the servlet context path), starting with
 * '/' and without a trailing '/'
 * @param readOnly whether actions are hidden and refused
 * @param actionRole the role a signed-in user needs for actions
 */
public record DashboardSettings(String path, boolean readOnly, String actionRole) {

	/**
	 * Settings with the path normalised: a leading '/', no trailing one.
	 * @param path the configured path
	 * @param readOnly whether actions are hidden and refused
	 * @param actionRole the role a signed-in user needs for actions
	 * @return the settings
	 */
	public static DashboardSettings of(String path, boolean readOnly, String actionRole) {
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
		if (actionRole.isBlank()) {
			throw new IllegalArgumentException("redeq.dashboard.action-role must name the role a user needs for the "
					+ "dashboard's actions, such as REDEQ_ADMIN, but was '" + actionRole
					+ "'; set redeq.dashboard.read-only=true for a dashboard without actions");
		}
		return new DashboardSettings(normalised, readOnly, actionRole.trim());
	}

}
