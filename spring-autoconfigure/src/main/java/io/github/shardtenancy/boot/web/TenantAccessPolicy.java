package io.github.shardtenancy.boot.web;

import org.springframework.security.core.Authentication;

/**
 * Decides whether the principal authenticated by Spring Security may act for the tenant a request resolves to.
 * {@link TenantResolutionFilter} asks it for every authenticated request that names a tenant, after Spring Security's
 * filter chain and before the tenant is bound: a refused request is answered HTTP 403 ({@code TenantAccessDenied}),
 * nothing is bound and the rest of the filter chain does not run. Anonymous and unauthenticated requests are not
 * asked about: Spring Security's own authorisation rules decide whether they reach the application at all.
 *
 * <p>The built-in policies are made by {@link TenantAccessPolicies}: a claim of the JWT or OAuth 2 principal listing
 * its tenants (or {@code TENANT_<id>} authorities), and a look-up through the application's {@link TenantGrants}. An
 * application defines a bean of this type to replace them ({@code shard-tenancy.web.access.policy}).
 *
 * <p>Implementations must be thread-safe: one instance serves every request. A runtime exception thrown by
 * {@link #permits} is not taken for an answer: it propagates out of the filter, with nothing bound and the rest of
 * the chain not called (the servlet container answers it, usually with 500).
 */
@FunctionalInterface
public interface TenantAccessPolicy {

	/**
	 * Whether a principal may act for a tenant.
	 * @param authentication the authenticated principal, neither anonymous nor {@code null}
	 * @param tenantId the tenant the request resolves to, valid by the tenant id rule, never {@code null}
	 * @return {@code true} to bind the tenant and serve the request, {@code false} to refuse it with 403
	 */
	boolean permits(Authentication authentication, String tenantId);

}
