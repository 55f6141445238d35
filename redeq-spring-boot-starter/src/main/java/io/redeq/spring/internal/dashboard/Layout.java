package io.redeq.spring.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.redeq.Redeq;
import io.redeq.RedeqSnapshot;

/**
 * What the frame of every page shows (the {@code header} and {@code footer} partials):
 * navigation, Redis status, the message of the last action; and the action forms the
 * pages carry.
 */
final class Layout {

	private final Redeq redeq;

	Layout(Redeq redeq) {
		this.redeq = redeq;
	}

	/** The frame of a page in a section of the navigation. */
	Frame frame(PageContext context, String title, String section, RedeqSnapshot snapshot) {
		List<Frame.Link> nav = List.of(link(context, "overview", "Overview", "", section),
				link(context, "dead", "Dead letters", "/dead", section),
				link(context, "instance", "Instances", "/instance", section));
		String viewOnly = context.mayAct() ? null : (context.settings().readOnly() ? "read-only" : "view only");
		return new Frame(title, context.base(), this.redeq.options().prefix(), nav, viewOnly, snapshot.redisReachable(),
				snapshot.error(), context.request().param("msg").orElse(null),
				context.request().param("err").orElse(null));
	}

	private static Frame.Link link(PageContext context, String id, String label, String below, String section) {
		return new Frame.Link(id, label, context.url(below), id.equals(section));
	}

	/**
	 * One-button forms that post these actions, or none when the user may not act.
	 * @param id the job's id, or {@code null} for an action on the whole topic
	 */
	static List<Form> forms(PageContext context, List<DashboardActions.Action> actions, String topic,
			@Nullable String id) {
		if (!context.mayAct()) {
			return List.of();
		}
		List<Form> forms = new ArrayList<>(actions.size());
		for (DashboardActions.Action action : actions) {
			List<ActionGuard.FormToken.Field> fields = new ArrayList<>();
			fields.add(new ActionGuard.FormToken.Field("action", action.name()));
			fields.add(new ActionGuard.FormToken.Field("topic", topic));
			if (id != null) {
				fields.add(new ActionGuard.FormToken.Field("id", id));
			}
			fields.add(new ActionGuard.FormToken.Field("return", context.here()));
			fields.add(context.token().own());
			if (context.token().security() != null) {
				fields.add(context.token().security());
			}
			forms.add(new Form(context.url("/actions"), action.name(), action.label(), action.confirm(),
					(id != null) ? id : topic, fields));
		}
		return forms;
	}

	/**
	 * The frame of a page.
	 *
	 * @param title the page's title
	 * @param base where the dashboard is, as the browser sees it (context path and
	 * forwarded prefix included)
	 * @param prefix redeq's key prefix
	 * @param nav the navigation's links
	 * @param viewOnly why there are no actions ("read-only", "view only"), or
	 * {@code null}
	 * @param redisUp whether Redis answered
	 * @param redisError why it did not, or {@code null}
	 * @param message what the last action did, or {@code null}
	 * @param error why the last action failed, or {@code null}
	 */
	record Frame(String title, String base, String prefix, List<Link> nav, @Nullable String viewOnly, boolean redisUp,
			@Nullable String redisError, @Nullable String message, @Nullable String error) {

		/**
		 * A link of the navigation.
		 *
		 * @param id its element id is {@code nav-<id>}
		 * @param label its text
		 * @param href where it goes
		 * @param active whether it is the current section
		 */
		record Link(String id, String label, String href, boolean active) {
		}

	}

	/**
	 * A one-button form that posts an action (the {@code form} partial).
	 *
	 * @param url where it posts to
	 * @param name the action's name
	 * @param label the button's text
	 * @param confirm the question the browser asks first, or {@code null}
	 * @param target the job's id or the topic, for the button's {@code data-id}
	 * @param fields the hidden fields: action, topic, id, return and CSRF tokens
	 */
	record Form(String url, String name, String label, @Nullable String confirm, String target,
			List<ActionGuard.FormToken.Field> fields) {
	}

}
