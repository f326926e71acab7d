package io.github.shardtenancy.boot;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.ShardTenancyProperties.WebResolver;
import io.github.shardtenancy.boot.web.TenantResolver;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code shard-tenancy.web.resolvers} and the per-resolver settings, bound by Spring Boot's own {@link Binder} as at
 * start-up: the values Boot accepts, and the start-up failures naming the property, its value and the remedy.
 */
class ShardTenancyWebResolversTests {

	private static ShardTenancyProperties.Web bind(String... pairs) {
		java.util.Map<String, String> map = new java.util.LinkedHashMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			map.put(pairs[i], pairs[i + 1]);
		}
		return new Binder(new MapConfigurationPropertySource(map))
			.bindOrCreate("shard-tenancy", ShardTenancyProperties.class)
			.getWeb();
	}

	private static List<String> configured(ShardTenancyProperties.Web web) {
		return ShardTenancyWebConfiguration.configuredResolvers(web, ShardTenancyWebResolversTests.class.getClassLoader())
			.stream()
			.map(TenantResolver::toString)
			.toList();
	}

	@Test
	@DisplayName("by default: the X-Tenant-Id header only")
	void defaults() {
		assertThat(bind().getResolvers()).containsExactly(WebResolver.HEADER);
		assertThat(configured(bind())).containsExactly("header X-Tenant-Id");
	}

	@Test
	@DisplayName("every resolver by its property value, in the listed order, with its setting")
	void everyResolver() {
		ShardTenancyProperties.Web web = bind("shard-tenancy.web.resolvers",
				"jwt-claim,principal,session,sub-domain,path,header", "shard-tenancy.web.header-name", "X-Org",
				"shard-tenancy.web.path-pattern", "/orgs/{tenant}/**", "shard-tenancy.web.base-domain", "example.com",
				"shard-tenancy.web.session-attribute", "org", "shard-tenancy.web.jwt-claim", "org_id");
		assertThat(configured(web)).containsExactly("claim org_id", "authenticated principal",
				"session attribute org", "sub-domain of example.com", "path /orgs/{tenant}/**", "header X-Org");
	}

	@Test
	@DisplayName("subdomain without a base domain fails the start, naming shard-tenancy.web.base-domain")
	void subdomainNeedsBaseDomain() {
		assertThatThrownBy(() -> configured(bind("shard-tenancy.web.resolvers", "header,subdomain")))
			.isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("shard-tenancy.web.base-domain is not set")
			.hasMessageContaining("set it, or leave that resolver out");
	}

	@Test
	@DisplayName("a path pattern without {tenant} fails the start, naming the property and its value")
	void pathPatternNeedsTenant() {
		assertThatThrownBy(() -> configured(
				bind("shard-tenancy.web.resolvers", "path", "shard-tenancy.web.path-pattern", "/t/{id}/**")))
			.isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("shard-tenancy.web.path-pattern=/t/{id}/**")
			.hasMessageContaining("/t/{tenant}/**");
	}

	@Test
	@DisplayName("an empty list or a repeated resolver fails the start")
	void emptyOrRepeated() {
		assertThatThrownBy(() -> configured(bind("shard-tenancy.web.resolvers", "")))
			.isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("No tenant resolver is configured");
		assertThatThrownBy(() -> configured(bind("shard-tenancy.web.resolvers", "path,header,path")))
			.isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("names path twice");
	}

	@Test
	@DisplayName("principal or jwt-claim without Spring Security on the class path fails the start, naming the artifact")
	void securityResolversNeedSpringSecurity() throws Exception {
		// a class loader that sees neither Spring Security nor anything else
		try (URLClassLoader bare = new URLClassLoader(new URL[0], null)) {
			ShardTenancyProperties.Web web = bind("shard-tenancy.web.resolvers", "jwt-claim");
			assertThatThrownBy(() -> ShardTenancyWebConfiguration.configuredResolvers(web, bare))
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.web.resolvers names jwt-claim")
				.hasMessageContaining("add spring-security-core");
		}
	}

}
