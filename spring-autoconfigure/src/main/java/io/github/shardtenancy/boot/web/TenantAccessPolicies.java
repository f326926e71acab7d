package io.github.shardtenancy.boot.web;

import java.util.Collection;
import java.util.Objects;

/**
 * The built-in {@link TenantAccessPolicy}s, as {@code shard-tenancy.web.access.policy} names them. Every policy made
 * here is immutable and thread-safe. Needs {@code spring-security-core}.
 */
public final class TenantAccessPolicies {

	/** The authority prefix of {@link #claim(String, String)} by default: {@code TENANT_}. */
	public static final String DEFAULT_AUTHORITY_PREFIX = "TENANT_";

	private TenantAccessPolicies() {
	}

	/**
	 * The tenants listed by a claim of the principal, or by its authorities.
	 * <ul>
	 * <li>A principal with claims (a JWT of Spring Security's resource server, an OpenID Connect or OAuth 2 principal,
	 * with {@code spring-security-oauth2-core}) may act for the tenants its claim lists: a JSON array of ids, or a
	 * string of ids separated by spaces or commas (as OAuth 2 writes scopes). Such a principal without the claim is
	 * refused for every tenant: its authorities are not consulted, so that a token for another audience is never
	 * widened by a header.</li>
	 * <li>Any other principal (HTTP basic, form login, a {@code UserDetails}) may act for tenant {@code <id>} when one
	 * of its granted authorities is {@code <authorityPrefix><id>}, e.g. {@code TENANT_acme}, as Spring Security
	 * names roles {@code ROLE_<name>}.</li>
	 * </ul>
	 * @param claim the claim, e.g. {@code tenants}; never {@code null}
	 * @param authorityPrefix the prefix of the authorities granting a tenant, e.g. {@link #DEFAULT_AUTHORITY_PREFIX};
	 * never {@code null}
	 * @return the policy
	 * @throws IllegalArgumentException if the claim or the prefix is blank
	 */
	public static TenantAccessPolicy claim(String claim, String authorityPrefix) {
		return new ClaimTenantAccessPolicy(TenantResolvers.requireText(claim, "claim"),
				TenantResolvers.requireText(authorityPrefix, "authorityPrefix"));
	}

	/**
	 * The tenants the application's {@link TenantGrants} answers for the principal.
	 * @param grants the look-up; never {@code null}
	 * @return the policy
	 */
	public static TenantAccessPolicy lookup(TenantGrants grants) {
		Objects.requireNonNull(grants, "grants");
		return new TenantAccessPolicy() {

			@Override
			public boolean permits(org.springframework.security.core.Authentication authentication, String tenantId) {
				Collection<String> tenants = grants.tenantsOf(authentication);
				return tenants != null && tenants.contains(tenantId);
			}

			@Override
			public String toString() {
				return "tenants looked up by " + grants;
			}

		};
	}

}
