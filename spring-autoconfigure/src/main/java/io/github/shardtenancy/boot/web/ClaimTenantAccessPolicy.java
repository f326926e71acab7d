package io.github.shardtenancy.boot.web;

import java.util.Collection;

import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.util.ClassUtils;

/**
 * {@link TenantAccessPolicies#claim(String, String)}: the claim of a principal with claims, the authorities of any
 * other. Immutable and thread-safe.
 */
final class ClaimTenantAccessPolicy implements TenantAccessPolicy {

	/** Whether principals can carry claims at all: {@code spring-security-oauth2-core} is on the class path. */
	private static final boolean CLAIMS = ClassUtils.isPresent("org.springframework.security.oauth2.core.ClaimAccessor",
			ClaimTenantAccessPolicy.class.getClassLoader());

	private final String claim;

	private final String authorityPrefix;

	ClaimTenantAccessPolicy(String claim, String authorityPrefix) {
		this.claim = claim;
		this.authorityPrefix = authorityPrefix;
	}

	@Override
	public boolean permits(Authentication authentication, String tenantId) {
		if (CLAIMS && SecurityTenantResolvers.hasClaims(authentication)) {
			// Fail closed: a principal with claims but without this one is granted no tenant, whatever else it has.
			return listed(SecurityTenantResolvers.claimOf(authentication, this.claim), tenantId);
		}
		String authority = this.authorityPrefix + tenantId;
		for (GrantedAuthority granted : authentication.getAuthorities()) {
			if (authority.equals(granted.getAuthority())) {
				return true;
			}
		}
		return false;
	}

	private static boolean listed(@Nullable Object value, String tenantId) {
		if (value instanceof Collection<?> values) {
			for (Object element : values) {
				if (element != null && tenantId.equals(element.toString())) {
					return true;
				}
			}
			return false;
		}
		if (value instanceof String text) {
			for (String element : text.split("[\\s,]+")) {
				if (tenantId.equals(element)) {
					return true;
				}
			}
		}
		return false;
	}

	@Override
	public String toString() {
		return "claim " + this.claim + " or authorities " + this.authorityPrefix + "<tenant>";
	}

}
