package io.github.shardtenancy.boot.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Finds the tenant an HTTP request names, for {@link TenantResolutionFilter}. The built-in resolvers are made by
 * {@link TenantResolvers}: a header, a path segment, a sub-domain, a session attribute, the authenticated principal and
 * a JWT or OAuth 2 claim.
 *
 * <p>The filter asks every resolver it has, in order; each answers the tenant it finds, or {@code null} when the
 * request does not name one its way. The filter checks each answer against the tenant id rule
 * ({@link io.github.shardtenancy.TenantIds}), and answers HTTP 400 when two resolvers name different tenants. An
 * application defines {@code TenantResolver} beans to replace the configured ones
 * ({@code shard-tenancy.web.resolvers}); their {@link org.springframework.core.annotation.Order} sets their order.
 *
 * <p>Implementations must be thread-safe: one instance serves every request.
 */
@FunctionalInterface
public interface TenantResolver {

	/**
	 * Reads the tenant named by a request.
	 * @param request the request, never {@code null}
	 * @return the tenant id as the request names it (checked by the filter), or {@code null} if the request names none
	 * this way
	 * @throws TenantResolutionException if the request names a tenant in a way that cannot be read (answered 400)
	 */
	@Nullable String resolve(HttpServletRequest request);

	/**
	 * Whether this resolver alone decides the request's tenant, even when it names none: when it answers {@code null}
	 * for a request it decides, the filter refuses the request if another resolver names a tenant (HTTP 400,
	 * {@code TenantNotGranted}), so that a weaker source such as a header cannot name the tenant of a request whose
	 * credentials do not. The claim resolver decides every authenticated request: an authenticated user whose
	 * credentials carry no tenant claim (a token for another audience, a service account, HTTP basic) is not served as
	 * the tenant a header names. {@code false} by default.
	 * @param request the request, never {@code null}
	 * @return {@code true} if no other resolver may name a tenant for this request when this one names none
	 */
	default boolean decides(HttpServletRequest request) {
		return false;
	}

	/**
	 * Called by the filter once the request's tenant is decided, before the rest of the filter chain runs; the session
	 * resolver stores the tenant in the HTTP session here, so that the requests that follow (a form post, a redirect)
	 * keep it. Does nothing by default.
	 * @param request the request, never {@code null}
	 * @param tenantId the request's tenant, valid, never {@code null}
	 */
	default void resolved(HttpServletRequest request, String tenantId) {
	}

	/**
	 * Whether this resolver reads the authenticated user, so the filter must run after Spring Security's filter chain
	 * (which then runs without a tenant bound). {@code false} by default: the filter runs before Spring Security, and
	 * authentication can read tenant data.
	 * @return {@code true} if {@link #resolve} needs Spring Security's {@code SecurityContextHolder} filled
	 */
	default boolean requiresAuthentication() {
		return false;
	}

}
