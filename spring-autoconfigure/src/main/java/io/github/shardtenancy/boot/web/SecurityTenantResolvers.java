package io.github.shardtenancy.boot.web;

import java.util.Collection;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.ClaimAccessor;
import org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;

/**
 * The resolvers reading Spring Security's authenticated user, and the access check of {@link TenantAccessPolicy};
 * loaded only when {@link TenantResolvers#principal()} or {@link TenantResolvers#claim(String)} is called or a filter
 * has a policy, so that Spring Security stays optional. The claim methods need {@code spring-security-oauth2-core}.
 */
final class SecurityTenantResolvers {

	private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

	private SecurityTenantResolvers() {
	}

	static @Nullable Authentication authenticated() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		return TRUST.isAuthenticated(authentication) ? authentication : null;
	}

	/**
	 * @param policy the policy
	 * @param tenantId the request's tenant
	 * @return whether the policy refuses the request its tenant: an authenticated principal the policy
	 * does not permit; never for an anonymous or unauthenticated request
	 */
	static boolean refused(TenantAccessPolicy policy, String tenantId) {
		Authentication authentication = authenticated();
		return authentication != null && !policy.permits(authentication, tenantId);
	}

	/**
	 * @param authentication the authenticated principal
	 * @param claim the claim
	 * @return the claim of the principal, or of its credentials (a JWT), or {@code null} if neither has claims or the
	 * claim; needs {@code spring-security-oauth2-core}
	 */
	static @Nullable Object claimOf(Authentication authentication, String claim) {
		Object value = claimOf(authentication.getPrincipal(), claim);
		return (value != null) ? value : claimOf(authentication.getCredentials(), claim);
	}

	private static @Nullable Object claimOf(@Nullable Object holder, String claim) {
		if (holder instanceof ClaimAccessor claims) {
			return claims.getClaims().get(claim);
		}
		if (holder instanceof OAuth2AuthenticatedPrincipal principal) {
			return principal.getAttributes().get(claim);
		}
		return null;
	}

	/**
	 * @param authentication the authenticated principal
	 * @return whether the principal or its credentials carry claims (a JWT, an OpenID Connect or OAuth 2 principal)
	 */
	static boolean hasClaims(Authentication authentication) {
		return isClaimHolder(authentication.getPrincipal()) || isClaimHolder(authentication.getCredentials());
	}

	private static boolean isClaimHolder(@Nullable Object holder) {
		return holder instanceof ClaimAccessor || holder instanceof OAuth2AuthenticatedPrincipal;
	}

	static final class Principal implements TenantResolver {

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			Authentication authentication = authenticated();
			return (authentication != null) ? authentication.getName() : null;
		}

		@Override
		public boolean requiresAuthentication() {
			return true;
		}

		@Override
		public String toString() {
			return "authenticated principal";
		}

	}

	static final class Claim implements TenantResolver {

		private final String claim;

		Claim(String claim) {
			this.claim = claim;
		}

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			Authentication authentication = authenticated();
			if (authentication == null) {
				return null;
			}
			Object value = claimOf(authentication, this.claim);
			if (value instanceof Collection<?> values) {
				if (values.size() != 1) {
					throw new TenantResolutionException("AmbiguousTenantClaim", "Ambiguous tenant claim",
							"Claim " + this.claim + " of the authenticated principal holds " + values.size()
									+ " values; a request's token must name exactly one tenant",
							null);
				}
				value = values.iterator().next();
			}
			if (value == null) {
				return null;
			}
			if (value instanceof String || value instanceof Number) {
				return value.toString();
			}
			throw new TenantResolutionException("InvalidTenantClaim", "Invalid tenant claim", "Claim " + this.claim
					+ " of the authenticated principal is a " + value.getClass().getSimpleName()
					+ ", not a tenant id", null);
		}

		@Override
		public boolean requiresAuthentication() {
			return true;
		}

		@Override
		public boolean decides(HttpServletRequest request) {
			return authenticated() != null;
		}

		@Override
		public String toString() {
			return "claim " + this.claim;
		}

	}

}
