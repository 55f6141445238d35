package io.redeq.spring.internal.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.RedeqException;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * The dashboard's routes, as Spring MVC functional endpoints: no controller scanning, no
 * view resolver, nothing registered unless the auto-configuration asks for it. Each page
 * computes a small model that its Mustache template draws ({@link DashboardTemplates}).
 *
 * <p>
 * Links, assets, the CSRF cookie and redirects are below the servlet context path, which
 * includes a forwarded prefix ({@code X-Forwarded-Prefix}) when the application applies
 * forwarded headers with Spring's {@code ForwardedHeaderFilter}
 * ({@code server.forward-headers-strategy=framework}).
 *
 * <p>
 * Pages are GETs that change nothing; every change is a POST to {@code <path>/actions}
 * that the {@link ActionGuard} checks, answered with a redirect back to the page (so a
 * reload never repeats it). Pages may not be framed, and scripts, styles and forms must
 * come from the dashboard itself (Content-Security-Policy).
 */
public final class DashboardRoutes {

	private static final Logger logger = LoggerFactory.getLogger(DashboardRoutes.class);

	private static final MediaType HTML = new MediaType("text", "html", StandardCharsets.UTF_8);

	private static final String POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
			+ "form-action 'self'; base-uri 'none'";

	private static final Map<String, MediaType> ASSETS = Map.of("dashboard.css",
			new MediaType("text", "css", StandardCharsets.UTF_8), "dashboard.js",
			new MediaType("text", "javascript", StandardCharsets.UTF_8));

	private final Redeq redeq;

	private final DashboardSettings settings;

	private final ActionGuard guard;

	private final DashboardActions actions;

	private final OverviewPage overview;

	private final TopicPage topic;

	private final DeadLettersPage dead;

	private final InstancePage instance;

	private final Layout layout;

	private final DashboardTemplates templates = new DashboardTemplates();

	public DashboardRoutes(Redeq redeq, @Nullable RedeqListenerEndpointRegistry listeners, DashboardSettings settings) {
		this(redeq, redeq.client(), redeq.admin(), listeners, settings);
	}

	/**
	 * Routes whose actions go through the application's client and admin (with the
	 * journal on, the journaling ones), so that what an operator changes is recorded.
	 * @param redeq the engine, for what the pages read
	 * @param client the client the cancel action uses
	 * @param admin the admin the other actions use
	 * @param listeners the listener registry, or null
	 * @param settings the dashboard's settings
	 */
	public DashboardRoutes(Redeq redeq, RedeqClient client, RedeqAdmin admin,
			@Nullable RedeqListenerEndpointRegistry listeners, DashboardSettings settings) {
		this.redeq = redeq;
		this.settings = settings;
		this.guard = new ActionGuard(settings);
		this.actions = new DashboardActions(client, admin);
		this.layout = new Layout(redeq);
		this.overview = new OverviewPage(redeq, this.layout);
		this.topic = new TopicPage(redeq, this.layout, this.actions);
		this.dead = new DeadLettersPage(redeq, this.layout, this.actions);
		this.instance = new InstancePage(redeq, listeners, this.layout);
	}

	/**
	 * The routes under the configured path.
	 * @return the router function to register as a bean
	 */
	public RouterFunction<ServerResponse> routes() {
		String path = this.settings.path();
		return RouterFunctions.route()
			.GET(path, (request) -> page(request, "overview", this.overview::render))
			.GET(path + "/", (request) -> page(request, "overview", this.overview::render))
			.GET(path + "/topics/{topic}",
					(request) -> page(request, "topic",
							(context) -> this.topic.render(context, request.pathVariable("topic"))))
			.GET(path + "/dead", (request) -> page(request, "dead", this.dead::render))
			.GET(path + "/instance", (request) -> page(request, "instance", this.instance::render))
			.GET(path + "/assets/{name}", this::asset)
			.POST(path + "/actions", this::action)
			.build();
	}

	private ServerResponse page(ServerRequest request, String template, Function<PageContext, Object> model) {
		ActionGuard.FormToken token = this.guard.tokenFor(request);
		PageContext context = new PageContext(request, this.settings, this.guard.mayAct(request), token, Instant.now());
		HttpStatus status = HttpStatus.OK;
		String body;
		try {
			body = this.templates.render(template, model.apply(context));
		}
		catch (IllegalArgumentException ex) {
			status = HttpStatus.BAD_REQUEST;
			body = problem(context, "Bad request", ex.getMessage());
		}
		catch (RedeqException ex) {
			logger.debug("redeq dashboard could not read Redis", ex);
			status = HttpStatus.SERVICE_UNAVAILABLE;
			body = problem(context, "Redis did not answer", ex.getMessage());
		}
		ServerResponse.BodyBuilder response = ServerResponse.status(status).contentType(HTML);
		secure(response);
		if (token.setCookie() != null) {
			response.header(HttpHeaders.SET_COOKIE, token.setCookie());
		}
		return response.body(body);
	}

	private String problem(PageContext context, String title, @Nullable String detail) {
		return this.templates.render("problem",
				new Problem(this.layout.frame(context, title, "", this.redeq.snapshot()), title, detail));
	}

	private ServerResponse action(ServerRequest request) {
		String back = returnTo(PageContext.base(request, this.settings), request.param("return").orElse(null));
		String refusal = this.guard.refusal(request);
		if (refusal != null) {
			ServerResponse.BodyBuilder response = ServerResponse.status(HttpStatus.FORBIDDEN)
				.contentType(MediaType.TEXT_PLAIN);
			secure(response);
			return response.body("Refused: " + refusal);
		}
		String name = request.param("action").orElse("");
		DashboardActions.Action action = this.actions.named(name);
		String topic = request.param("topic").orElse("");
		String id = request.param("id").orElse(null);
		String outcome;
		try {
			if (action == null) {
				throw new IllegalArgumentException("Unknown dashboard action '" + name + "'");
			}
			if (action.perJob() && (id == null || id.isBlank())) {
				throw new IllegalArgumentException("Action " + name + " needs the id of a job");
			}
			outcome = "msg=" + PageContext.encode(action.run().apply(topic, id));
			logger.info("redeq dashboard: {} on topic {}{} by {}", name, topic, (id != null) ? " job " + id : "",
					user(request));
		}
		catch (IllegalArgumentException | RedeqException ex) {
			outcome = "err=" + PageContext.encode(String.valueOf(ex.getMessage()));
		}
		String location = back + (back.contains("?") ? "&" : "?") + outcome;
		ServerResponse.BodyBuilder response = ServerResponse.status(HttpStatus.SEE_OTHER)
			.location(URI.create(location));
		secure(response);
		return response.build();
	}

	private static String user(ServerRequest request) {
		return (request.servletRequest().getUserPrincipal() != null)
				? request.servletRequest().getUserPrincipal().getName() : "an unauthenticated user";
	}

	/**
	 * Where an action returns to: a page of the dashboard, never another site.
	 * @param root the dashboard's root as the browser sees it
	 */
	private static String returnTo(String root, @Nullable String requested) {
		if (requested != null && requested.startsWith(root)) {
			String rest = requested.substring(root.length());
			if (rest.isEmpty() || (rest.charAt(0) == '/' && !rest.startsWith("//")) || rest.charAt(0) == '?') {
				return requested;
			}
		}
		return root;
	}

	private ServerResponse asset(ServerRequest request) throws IOException {
		String name = request.pathVariable("name");
		MediaType type = ASSETS.get(name);
		if (type == null) {
			return ServerResponse.notFound().build();
		}
		byte[] content;
		try (InputStream in = new ClassPathResource("io/redeq/spring/internal/dashboard/" + name).getInputStream()) {
			content = in.readAllBytes();
		}
		return ServerResponse.ok()
			.contentType(type)
			.header(HttpHeaders.CACHE_CONTROL, "max-age=300")
			.header("X-Content-Type-Options", "nosniff")
			.body(new String(content, StandardCharsets.UTF_8));
	}

	private static void secure(ServerResponse.BodyBuilder response) {
		response.header(HttpHeaders.CACHE_CONTROL, "no-store")
			.header("Content-Security-Policy", POLICY)
			.header("X-Frame-Options", "DENY")
			.header("X-Content-Type-Options", "nosniff")
			.header("Referrer-Policy", "same-origin");
	}

	/**
	 * A page that could not be drawn ({@code problem.mustache}).
	 *
	 * @param frame the page's frame
	 * @param heading what went wrong
	 * @param detail the details, or {@code null}
	 */
	record Problem(Layout.Frame frame, String heading, @Nullable String detail) {
	}

}
