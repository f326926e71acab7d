package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.ShardTenancyProperties.WebAccessPolicy;
import io.github.shardtenancy.boot.ShardTenancyProperties.WebResolver;
import io.github.shardtenancy.boot.web.ShardTenancyProblemDetails;
import io.github.shardtenancy.boot.web.TenantAccessPolicy;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.boot.web.TenantResolutionFilter;
import io.github.shardtenancy.boot.web.TenantResolver;
import io.github.shardtenancy.boot.web.TenantResolvers;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * In a servlet web application with Spring MVC: the tenant a request names, found by the resolvers of
 * {@code shard-tenancy.web.resolvers} or the application's {@link TenantResolver} beans
 * ({@code shard-tenancy.web.enabled}), and the library's typed errors answered with RFC 9457 problem details
 * ({@code shard-tenancy.web.problem-details.enabled}), each switched off on its own. With Spring Security on the class
 * path, the filter asks the {@link TenantAccessPolicy} ({@code shard-tenancy.web.access.policy}) whether the
 * authenticated principal may act for the resolved tenant, and the start fails without one while a resolver reads a
 * source the client chooses.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
class ShardTenancyWebConfiguration {

	static final String RESOLVERS = "shard-tenancy.web.resolvers";

	static final String ACCESS_POLICY = "shard-tenancy.web.access.policy";

	/** The class whose presence means Spring Security is on the class path. */
	static final String SECURITY_CONTEXT = "org.springframework.security.core.context.SecurityContextHolder";

	/** Spring Boot's property for the order of Spring Security's filter chain, and its default. */
	static final String SECURITY_FILTER_ORDER = "spring.security.filter.order";

	static final int DEFAULT_SECURITY_FILTER_ORDER = -100;

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web", name = "enabled", matchIfMissing = true)
	TenantResolutionFilter tenantResolutionFilter(ShardTenancyProperties properties,
			ObjectProvider<TenantResolver> applicationResolvers, ObjectProvider<TenantAccessPolicy> accessPolicies,
			Environment environment, ResourceLoader resourceLoader) {
		ShardTenancyProperties.Web web = properties.getWeb();
		// the context's class loader, as @ConditionalOnClass sees it
		ClassLoader loader = Objects.requireNonNullElse(resourceLoader.getClassLoader(), getClass().getClassLoader());
		List<TenantResolver> resolvers = applicationResolvers.orderedStream().toList();
		boolean configured = resolvers.isEmpty();
		if (configured) {
			resolvers = configuredResolvers(web, loader);
		}
		TenantAccessPolicy policy = accessPolicy(web, resolvers, accessPolicies, loader);
		if (configured && policy == null && List.of(WebResolver.HEADER).equals(web.getResolvers())) {
			// the default: the header filter, as before there were other resolvers
			return new TenantHeaderFilter(required("header-name", web.getHeaderName()),
					web.getProblemDetails().isEnabled());
		}
		int order = TenantResolutionFilter.ORDER;
		if (policy != null || resolvers.stream().anyMatch(TenantResolver::requiresAuthentication)) {
			// after Spring Security's FilterChainProxy, which fills the SecurityContextHolder for the filters after it
			order = environment.getProperty(SECURITY_FILTER_ORDER, Integer.class, DEFAULT_SECURITY_FILTER_ORDER) + 5;
		}
		return new TenantResolutionFilter(resolvers, web.getProblemDetails().isEnabled(), order, policy);
	}

	/**
	 * @param web the settings
	 * @param resolvers the filter's resolvers
	 * @param accessPolicies the application's policy or the built-in one {@link ShardTenancyWebAccessConfiguration}
	 * made
	 * @param loader the class loader to look for Spring Security in
	 * @return the policy the filter asks, or {@code null} for none: Spring Security is not on the class path, the
	 * check is switched off ({@code none}), or every resolver reads the authenticated user
	 * @throws ShardTenancyConfigurationException if Spring Security is on the class path, a resolver reads a source
	 * the client chooses and no policy is configured, or {@code lookup} is configured without a {@code TenantGrants}
	 * bean
	 */
	static @Nullable TenantAccessPolicy accessPolicy(ShardTenancyProperties.Web web, List<TenantResolver> resolvers,
			ObjectProvider<TenantAccessPolicy> accessPolicies, ClassLoader loader) {
		if (!ClassUtils.isPresent(SECURITY_CONTEXT, loader)) {
			return null;
		}
		TenantAccessPolicy policy = accessPolicies.getIfAvailable();
		WebAccessPolicy setting = web.getAccess().getPolicy();
		if (policy != null || setting == WebAccessPolicy.NONE) {
			// the application's own policy wins; none switches the built-in ones and the start check off
			return policy;
		}
		if (setting == WebAccessPolicy.LOOKUP) {
			throw new ShardTenancyConfigurationException(ACCESS_POLICY, ACCESS_POLICY + "=lookup, but the "
					+ "application defines no TenantGrants bean: define one, or set " + ACCESS_POLICY
					+ " to claim or none");
		}
		List<String> chosen = resolvers.stream()
			.filter((resolver) -> !resolver.requiresAuthentication())
			.map(Object::toString)
			.toList();
		if (chosen.isEmpty()) {
			// the tenant comes from the authenticated user's credentials only
			return null;
		}
		throw new ShardTenancyConfigurationException(ACCESS_POLICY, "Spring Security is on the class path and the "
				+ "tenant of a request is read from " + String.join(", ", chosen) + ", which the client chooses, but "
				+ "no policy decides whether the authenticated user may act for that tenant: set " + ACCESS_POLICY
				+ "=claim (claim shard-tenancy.web.access.claim, or TENANT_<id> authorities, list the user's "
				+ "tenants), lookup (with a TenantGrants bean), or none to switch the check off, or define a "
				+ "TenantAccessPolicy bean");
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web.problem-details", name = "enabled", matchIfMissing = true)
	ShardTenancyProblemDetails shardTenancyProblemDetails(ShardTenancyProperties properties) {
		ShardTenancyProperties.Web web = properties.getWeb();
		boolean header = web.isEnabled() && web.getResolvers() != null
				&& web.getResolvers().contains(WebResolver.HEADER);
		return new ShardTenancyProblemDetails(web.getProblemDetails().getRetryAfter(),
				header ? web.getHeaderName() : null);
	}

	/**
	 * @param web the settings
	 * @param loader the class loader to look for Spring Security in
	 * @return the resolvers {@code shard-tenancy.web.resolvers} names, in its order
	 * @throws ShardTenancyConfigurationException if the list is empty or repeats a resolver, a resolver's setting is
	 * missing or wrong, or a Spring Security resolver is named without Spring Security on the class path
	 */
	static List<TenantResolver> configuredResolvers(ShardTenancyProperties.Web web, ClassLoader loader) {
		List<WebResolver> names = web.getResolvers();
		if (names == null || names.isEmpty()) {
			throw new ShardTenancyConfigurationException(RESOLVERS, "No tenant resolver is configured: name at least "
					+ "one of header, path, subdomain, session, principal, jwt-claim, define a TenantResolver bean, "
					+ "or switch the filter off with shard-tenancy.web.enabled=false");
		}
		List<TenantResolver> resolvers = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			WebResolver name = names.get(i);
			if (names.subList(0, i).contains(name)) {
				throw new ShardTenancyConfigurationException(RESOLVERS, RESOLVERS + "=" + names + " names "
						+ value(name) + " twice: name each resolver once");
			}
			resolvers.add(resolver(name, web, loader));
		}
		return resolvers;
	}

	private static TenantResolver resolver(WebResolver name, ShardTenancyProperties.Web web, ClassLoader loader) {
		return switch (name) {
			case HEADER -> TenantResolvers.header(required("header-name", web.getHeaderName()));
			case PATH -> {
				String pattern = required("path-pattern", web.getPathPattern());
				try {
					yield TenantResolvers.path(pattern);
				}
				catch (IllegalArgumentException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.web.path-pattern", ex.getMessage()
							+ " (shard-tenancy.web.path-pattern=" + pattern + ")");
				}
			}
			case SUBDOMAIN -> TenantResolvers.subdomain(required("base-domain", web.getBaseDomain()));
			case SESSION -> TenantResolvers.session(required("session-attribute", web.getSessionAttribute()));
			case PRINCIPAL -> {
				requireClass(name, "org.springframework.security.core.context.SecurityContextHolder",
						"spring-security-core (e.g. spring-boot-starter-security)", loader);
				yield TenantResolvers.principal();
			}
			case JWT_CLAIM -> {
				requireClass(name, "org.springframework.security.core.context.SecurityContextHolder",
						"spring-security-core (e.g. spring-boot-starter-security)", loader);
				requireClass(name, "org.springframework.security.oauth2.core.ClaimAccessor",
						"spring-security-oauth2-core (e.g. spring-boot-starter-security-oauth2-resource-server)",
						loader);
				yield TenantResolvers.claim(required("jwt-claim", web.getJwtClaim()));
			}
		};
	}

	private static String required(String setting, String value) {
		if (value == null || value.isBlank()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.web." + setting,
					"shard-tenancy.web." + setting + " is " + ((value == null) ? "not set" : "blank")
							+ ", but the resolver that needs it is named in " + RESOLVERS + ": set it, or leave "
							+ "that resolver out");
		}
		return value;
	}

	private static void requireClass(WebResolver name, String className, String artifact, ClassLoader loader) {
		if (!ClassUtils.isPresent(className, loader)) {
			throw new ShardTenancyConfigurationException(RESOLVERS, RESOLVERS + " names " + value(name) + ", which "
					+ "reads the user authenticated by Spring Security, but " + className + " is not on the class "
					+ "path: add " + artifact + ", or leave " + value(name) + " out");
		}
	}

	private static String value(WebResolver name) {
		return name.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

}
