package io.github.shardtenancy.boot.web;

import java.util.Collection;

import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;

/**
 * The tenants an authenticated principal may act for, as the application knows them (a table of memberships, a
 * directory group, a cache). With a bean of this type and no {@link TenantAccessPolicy} bean, the filter grants a
 * request its tenant only if the tenant is among those answered ({@link TenantAccessPolicies#lookup(TenantGrants)}).
 *
 * <p>Implementations must be thread-safe; they are called once per authenticated request naming a tenant, so a slow
 * look-up should be cached. A runtime exception propagates out of the filter, with nothing bound.
 */
@FunctionalInterface
public interface TenantGrants {

	/**
	 * @param authentication the authenticated principal, neither anonymous nor {@code null}
	 * @return the tenant ids the principal may act for, compared exactly; {@code null} or empty for none
	 */
	@Nullable Collection<String> tenantsOf(Authentication authentication);

}
