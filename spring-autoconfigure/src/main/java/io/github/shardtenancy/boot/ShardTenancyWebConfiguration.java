package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.ShardTenancyProperties.WebResolver;
import io.github.shardtenancy.boot.web.ShardTenancyProblemDetails;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.boot.web.TenantResolutionFilter;
import io.github.shardtenancy.boot.web.TenantResolver;
import io.github.shardtenancy.boot.web.TenantResolvers;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * In a servlet web application with Spring MVC: the tenant a request names, found by the resolvers of
 * {@code shard-tenancy.web.resolvers} or the application's {@link TenantResolver} beans
 * ({@code shard-tenancy.web.enabled}), and the library's typed errors answered with RFC 9457 problem details
 * ({@code shard-tenancy.web.problem-details.enabled}), each switched off on its own.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
class ShardTenancyWebConfiguration {

	static final String RESOLVERS = "shard-tenancy.web.resolvers";

	/** Spring Boot's property for the order of Spring Security's filter chain, and its default. */
	static final String SECURITY_FILTER_ORDER = "spring.security.filter.order";

	static final int DEFAULT_SECURITY_FILTER_ORDER = -100;

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.web", name = "enabled", matchIfMissing = true)
	TenantResolutionFilter tenantResolutionFilter(ShardTenancyProperties properties,
			ObjectProvider<TenantResolver> applicationResolvers, Environment environment) {
		ShardTenancyProperties.Web web = properties.getWeb();
		List<TenantResolver> resolvers = applicationResolvers.orderedStream().toList();
		if (resolvers.isEmpty()) {
			if (List.of(WebResolver.HEADER).equals(web.getResolvers())) {
				// the default: the header filter, as before there were other resolvers
				return new TenantHeaderFilter(required("header-name", web.getHeaderName()),
						web.getProblemDetails().isEnabled());
			}
			resolvers = configuredResolvers(web, getClass().getClassLoader());
		}
		int order = TenantResolutionFilter.ORDER;
		if (resolvers.stream().anyMatch(TenantResolver::requiresAuthentication)) {
			// after Spring Security's FilterChainProxy, which fills the SecurityContextHolder for the filters after it
			order = environment.getProperty(SECURITY_FILTER_ORDER, Integer.class, DEFAULT_SECURITY_FILTER_ORDER) + 5;
		}
		return new TenantResolutionFilter(resolvers, web.getProblemDetails().isEnabled(), order);
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
