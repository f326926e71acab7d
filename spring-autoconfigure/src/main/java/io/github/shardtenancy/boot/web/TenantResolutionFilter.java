package io.github.shardtenancy.boot.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantIds;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Binds the tenant a request names to the request's thread with {@link TenantContext#bind(String)} for the rest of the
 * filter chain, and unbinds it when the chain returns or throws. The tenant is found by {@link TenantResolver}s:
 * every resolver is asked, in order, and all that name a tenant must name the same one.
 *
 * <ul>
 * <li>A request no resolver names a tenant for runs without a tenant (work that needs one fails with
 * {@link io.github.shardtenancy.NoTenantBoundException}), or with the tenant already bound on the thread, if any.</li>
 * <li>HTTP 400, with the reason, and nothing routed nor the chain called, when a named tenant breaks the tenant id rule
 * ({@link InvalidTenantIdException}), when a resolver throws {@link TenantResolutionException} (a header sent twice,
 * say), when two resolvers name different tenants ({@code TenantMismatch}), when a resolver that
 * {@linkplain TenantResolver#decides decides} the request names none and another names one ({@code TenantNotGranted}:
 * an authenticated user without the tenant claim and a tenant header), and when another tenant is already bound
 * on the thread, by an earlier filter of the application ({@code TenantMismatch}). The body is plain text, or an RFC
 * 9457 problem detail ({@code application/problem+json}, as {@link ShardTenancyProblemDetails} answers) when
 * constructed with {@code problemDetails}.</li>
 * <li>With a {@link TenantAccessPolicy}, HTTP 403 ({@code TenantAccessDenied}), and nothing bound nor the chain
 * called, when the policy refuses the principal authenticated by Spring Security the tenant the request resolves to.
 * Anonymous and unauthenticated requests are not asked about: Spring Security's authorisation rules decide whether
 * they reach the application.</li>
 * <li>Once the tenant is decided (and granted), every resolver's {@link TenantResolver#resolved} is called (the session resolver
 * stores it in the session).</li>
 * </ul>
 *
 * <p>Ordered at {@link #ORDER}, ahead of Spring Security's filter chain ({@code -100} by default), so that everything
 * downstream, authentication included, sees the tenant; or, when a resolver
 * {@linkplain TenantResolver#requiresAuthentication() reads the authenticated user}, at an order after Spring
 * Security's chain, given to the constructor; with a {@link TenantAccessPolicy}, always after Spring Security's chain,
 * so that the authenticated principal is known. Thread-safe.
 */
public class TenantResolutionFilter extends OncePerRequestFilter implements Ordered {

	/**
	 * The filter's default order: {@code -105}, just before Spring Security's default filter chain order
	 * ({@code -100}).
	 */
	public static final int ORDER = -105;

	/**
	 * The order after Spring Security's filter chain at its default order ({@code -100}): {@code -95}, for resolvers
	 * that read the authenticated user.
	 */
	public static final int AFTER_SECURITY_ORDER = -95;

	private final List<TenantResolver> resolvers;

	private final boolean problemDetails;

	private final int order;

	private final @Nullable TenantAccessPolicy accessPolicy;

	/**
	 * @param resolvers the resolvers, asked in this order; never {@code null} nor empty
	 * @param problemDetails whether a refused request is answered with an RFC 9457 problem detail instead of plain
	 * text
	 * @param order the filter's order among the servlet filters, {@link #ORDER} or, when a resolver reads the
	 * authenticated user, an order after Spring Security's filter chain such as {@link #AFTER_SECURITY_ORDER}
	 * @throws IllegalArgumentException if there is no resolver
	 */
	public TenantResolutionFilter(List<? extends TenantResolver> resolvers, boolean problemDetails, int order) {
		this(resolvers, problemDetails, order, null);
	}

	/**
	 * @param resolvers the resolvers, asked in this order; never {@code null} nor empty
	 * @param problemDetails whether a refused request is answered with an RFC 9457 problem detail instead of plain
	 * text
	 * @param order the filter's order among the servlet filters; with an access policy, an order after Spring
	 * Security's filter chain such as {@link #AFTER_SECURITY_ORDER}
	 * @param accessPolicy decides whether the authenticated principal may act for the resolved tenant, or
	 * {@code null} for no check; a policy needs {@code spring-security-core}
	 * @throws IllegalArgumentException if there is no resolver
	 */
	public TenantResolutionFilter(List<? extends TenantResolver> resolvers, boolean problemDetails, int order,
			@Nullable TenantAccessPolicy accessPolicy) {
		Objects.requireNonNull(resolvers, "resolvers");
		if (resolvers.isEmpty()) {
			throw new IllegalArgumentException("At least one tenant resolver is needed");
		}
		this.resolvers = List.copyOf(resolvers);
		this.problemDetails = problemDetails;
		this.order = order;
		this.accessPolicy = accessPolicy;
	}

	/** @return the policy deciding whether the authenticated principal may act for the tenant, or {@code null} */
	public @Nullable TenantAccessPolicy accessPolicy() {
		return this.accessPolicy;
	}

	/** @return the resolvers, in the order they are asked */
	public List<TenantResolver> resolvers() {
		return this.resolvers;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String tenant;
		try {
			tenant = resolve(request);
		}
		catch (TenantResolutionException ex) {
			badRequest(response, ex.code(), ex.title(), ex.getMessage());
			return;
		}
		catch (InvalidTenantIdException ex) {
			badRequest(response, "InvalidTenantIdException", "Invalid tenant id", ex.getMessage());
			return;
		}
		if (tenant == null) {
			chain.doFilter(request, response);
			return;
		}
		if (this.accessPolicy != null && SecurityTenantResolvers.refused(this.accessPolicy, tenant)) {
			refuse(response, HttpServletResponse.SC_FORBIDDEN, "TenantAccessDenied", "Tenant access denied",
					"The authenticated user may not act for tenant '" + tenant + "'");
			return;
		}
		for (TenantResolver resolver : this.resolvers) {
			resolver.resolved(request, tenant);
		}
		if (tenant.equals(TenantContext.current())) {
			chain.doFilter(request, response);
			return;
		}
		try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
			chain.doFilter(request, response);
		}
	}

	/**
	 * @param request the request
	 * @return the tenant the resolvers agree on, valid, or {@code null} if none names one
	 * @throws TenantResolutionException if a resolver refuses the request, two disagree, or another tenant is bound
	 * @throws InvalidTenantIdException if a resolver names an invalid tenant id
	 */
	private @Nullable String resolve(HttpServletRequest request) {
		String tenant = null;
		TenantResolver source = null;
		TenantResolver silent = null;
		for (TenantResolver resolver : this.resolvers) {
			String candidate = resolver.resolve(request);
			if (candidate == null) {
				if (silent == null && resolver.decides(request)) {
					silent = resolver;
				}
				continue;
			}
			TenantIds.requireValid(candidate);
			if (tenant == null) {
				tenant = candidate;
				source = resolver;
			}
			else if (!tenant.equals(candidate)) {
				// Picking either would be a guess, and serving one tenant's data to a request naming another is worse.
				throw new TenantResolutionException("TenantMismatch", "Tenant mismatch", "The request names tenant '"
						+ tenant + "' (" + source + ") and tenant '" + candidate + "' (" + resolver
						+ "); name one tenant", candidate);
			}
		}
		if (tenant != null && silent != null) {
			// Fail closed: the resolver that decides this request names no tenant, so no weaker source may.
			throw new TenantResolutionException("TenantNotGranted", "Tenant not granted", "The request names tenant '"
					+ tenant + "' (" + source + ") but the authenticated user's " + silent
					+ " names none; the request is served only for a tenant its credentials name", tenant);
		}
		String bound = TenantContext.current();
		if (tenant != null && bound != null && !bound.equals(tenant)) {
			throw new TenantResolutionException("TenantMismatch", "Tenant mismatch", "The request names tenant '"
					+ tenant + "' (" + source + ") but tenant '" + bound
					+ "' is already bound for it by an earlier filter; name one tenant", tenant);
		}
		return tenant;
	}

	private void badRequest(HttpServletResponse response, String type, String title, String message)
			throws IOException {
		refuse(response, HttpServletResponse.SC_BAD_REQUEST, type, title, message);
	}

	private void refuse(HttpServletResponse response, int status, String type, String title, String message)
			throws IOException {
		response.setStatus(status);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		if (this.problemDetails) {
			response.setContentType("application/problem+json");
			response.getWriter()
				.write("{\"type\":\"urn:shard-tenancy:" + type + "\",\"title\":" + jsonString(title)
						+ ",\"status\":" + status + ",\"detail\":" + jsonString(message) + "}");
		}
		else {
			response.setContentType("text/plain;charset=UTF-8");
			response.getWriter().write(message);
		}
		response.flushBuffer();
	}

	/** A JSON string literal (RFC 8259, section 7: https://www.rfc-editor.org/rfc/rfc8259#section-7). */
	private static String jsonString(String value) {
		StringBuilder json = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		return json.append('"').toString();
	}

}
