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
 * The resolvers reading Spring Security's authenticated user; loaded only when {@link TenantResolvers#principal()} or
 * {@link TenantResolvers#claim(String)} is called, so that Spring Security stays optional.
 */
final class SecurityTenantResolvers {

	private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

	private SecurityTenantResolvers() {
	}

	static @Nullable Authentication authenticated() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		return TRUST.isAuthenticated(authentication) ? authentication : null;
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
			Object value = claimOf(authentication.getPrincipal());
			if (value == null) {
				value = claimOf(authentication.getCredentials());
			}
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

		private @Nullable Object claimOf(@Nullable Object holder) {
			if (holder instanceof ClaimAccessor claims) {
				return claims.getClaims().get(this.claim);
			}
			if (holder instanceof OAuth2AuthenticatedPrincipal principal) {
				return principal.getAttributes().get(this.claim);
			}
			return null;
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
