package io.github.shardtenancy.boot.web;

import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The built-in {@link TenantResolver}s, as {@code shard-tenancy.web.resolvers} names them. Every resolver made here is
 * immutable and thread-safe, and its {@code toString()} says where it looks (used in error messages).
 */
public final class TenantResolvers {

	/** The path variable naming the tenant in a {@link #path(String)} pattern. */
	public static final String TENANT_VARIABLE = "tenant";

	private TenantResolvers() {
	}

	/**
	 * The tenant named in a request header. A header sent more than once is refused: proxies disagree on which value
	 * wins, so routing by either would be a guess.
	 * @param headerName the header, e.g. {@code X-Tenant-Id}; never {@code null}
	 * @return the resolver
	 * @throws IllegalArgumentException if the name is blank
	 */
	public static TenantResolver header(String headerName) {
		return new Header(requireText(headerName, "headerName"));
	}

	/**
	 * The tenant in the request's path (after the context path), matched with a Spring {@link PathPattern} holding the
	 * variable {@code {tenant}}, e.g. {@code /t/{tenant}/**}; the variable is URL-decoded. A path the pattern does not
	 * match names no tenant.
	 * @param pattern the pattern; never {@code null}
	 * @return the resolver
	 * @throws IllegalArgumentException if the pattern does not parse or has no {@code {tenant}} variable
	 * @see <a href="https://docs.spring.io/spring-framework/docs/current/javadoc-api/org/springframework/web/util/pattern/PathPattern.html">PathPattern</a>
	 */
	public static TenantResolver path(String pattern) {
		return new Path(requireText(pattern, "pattern"));
	}

	/**
	 * The tenant as the first label of the request's host name below a base domain: with base domain
	 * {@code example.com}, {@code acme.example.com} names {@code acme}. The host is
	 * {@link HttpServletRequest#getServerName()}, lower-cased (behind a proxy, let Spring Boot honour
	 * {@code X-Forwarded-Host} with {@code server.forward-headers-strategy}). The base domain itself, other domains and
	 * hosts with more than one label below the base domain name no tenant.
	 * @param baseDomain the base domain, e.g. {@code example.com}; never {@code null}
	 * @return the resolver
	 * @throws IllegalArgumentException if the base domain is blank
	 */
	public static TenantResolver subdomain(String baseDomain) {
		return new Subdomain(requireText(baseDomain, "baseDomain"));
	}

	/**
	 * The tenant stored in the HTTP session under an attribute, and the store: once a request's tenant is decided (by
	 * any resolver), it is put in the session (creating one), so that a form post and a redirect keep it. A session
	 * therefore stays with one tenant: a later request naming another one is refused as a disagreement (start a new
	 * session, e.g. log out, to change tenant). The application may also set the attribute itself, e.g. at login.
	 * @param attributeName the session attribute; never {@code null}
	 * @return the resolver
	 * @throws IllegalArgumentException if the name is blank
	 */
	public static TenantResolver session(String attributeName) {
		return new Session(requireText(attributeName, "attributeName"));
	}

	/**
	 * The name of the principal authenticated by Spring Security ({@code Authentication.getName()}); an anonymous or
	 * unauthenticated request names no tenant. Needs {@code spring-security-core}; runs after Spring Security's filter
	 * chain.
	 * @return the resolver
	 */
	public static TenantResolver principal() {
		return new SecurityTenantResolvers.Principal();
	}

	/**
	 * A claim of the authenticated principal's JWT (Spring Security's resource server), OpenID Connect ID token or
	 * OAuth 2 token attributes. A string claim names the tenant, as does a number or a list of exactly one; a list of
	 * several is refused. A request without such a principal, or without the claim, names no tenant. Needs
	 * {@code spring-security-oauth2-core}; runs after Spring Security's filter chain.
	 * @param claim the claim, e.g. {@code tenant}; never {@code null}
	 * @return the resolver
	 * @throws IllegalArgumentException if the claim is blank
	 */
	public static TenantResolver claim(String claim) {
		return new SecurityTenantResolvers.Claim(requireText(claim, "claim"));
	}

	static String requireText(@Nullable String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(
					name + " must not be blank, was " + ((value != null) ? "'" + value + "'" : "null"));
		}
		return value;
	}

	private record Header(String headerName) implements TenantResolver {

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			String tenant = request.getHeader(this.headerName);
			if (tenant == null) {
				return null;
			}
			Enumeration<String> values = request.getHeaders(this.headerName);
			values.nextElement();
			if (values.hasMoreElements()) {
				throw new TenantResolutionException("RepeatedTenantHeader", "Repeated tenant header",
						"Header " + this.headerName + " appears more than once; send exactly one tenant", null);
			}
			return tenant;
		}

		@Override
		public String toString() {
			return "header " + this.headerName;
		}

	}

	private static final class Path implements TenantResolver {

		private final PathPattern pattern;

		Path(String pattern) {
			try {
				this.pattern = PathPatternParser.defaultInstance.parse(pattern);
			}
			catch (RuntimeException ex) {
				throw new IllegalArgumentException("Path pattern '" + pattern + "' does not parse: " + ex.getMessage(),
						ex);
			}
			if (!pattern.contains("{" + TENANT_VARIABLE + "}")) {
				throw new IllegalArgumentException("Path pattern '" + pattern + "' has no {" + TENANT_VARIABLE
						+ "} variable; write it like /t/{" + TENANT_VARIABLE + "}/**");
			}
		}

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			String path = request.getRequestURI();
			String contextPath = request.getContextPath();
			if (contextPath != null && !contextPath.isEmpty() && path.startsWith(contextPath)) {
				path = path.substring(contextPath.length());
			}
			PathPattern.PathMatchInfo match = this.pattern.matchAndExtract(PathContainer.parsePath(path));
			if (match == null) {
				return null;
			}
			Map<String, String> variables = match.getUriVariables();
			return variables.get(TENANT_VARIABLE);
		}

		@Override
		public String toString() {
			return "path " + this.pattern.getPatternString();
		}

	}

	private static final class Subdomain implements TenantResolver {

		private final String suffix;

		Subdomain(String baseDomain) {
			String domain = baseDomain.strip().toLowerCase(Locale.ROOT);
			this.suffix = domain.startsWith(".") ? domain : "." + domain;
		}

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			String host = request.getServerName();
			if (host == null) {
				return null;
			}
			host = host.toLowerCase(Locale.ROOT);
			if (host.endsWith(".")) {
				host = host.substring(0, host.length() - 1);
			}
			if (!host.endsWith(this.suffix) || host.length() == this.suffix.length()) {
				return null;
			}
			String label = host.substring(0, host.length() - this.suffix.length());
			return (label.indexOf('.') < 0) ? label : null;
		}

		@Override
		public String toString() {
			return "sub-domain of " + this.suffix.substring(1);
		}

	}

	private record Session(String attributeName) implements TenantResolver {

		@Override
		public @Nullable String resolve(HttpServletRequest request) {
			HttpSession session = request.getSession(false);
			if (session == null) {
				return null;
			}
			Object tenant = session.getAttribute(this.attributeName);
			return (tenant != null) ? tenant.toString() : null;
		}

		@Override
		public void resolved(HttpServletRequest request, String tenantId) {
			HttpSession session = request.getSession(true);
			if (!Objects.equals(session.getAttribute(this.attributeName), tenantId)) {
				session.setAttribute(this.attributeName, tenantId);
			}
		}

		@Override
		public String toString() {
			return "session attribute " + this.attributeName;
		}

	}

}
