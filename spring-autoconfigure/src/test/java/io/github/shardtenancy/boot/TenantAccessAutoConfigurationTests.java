package io.github.shardtenancy.boot;

import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.web.TenantAccessPolicy;
import io.github.shardtenancy.boot.web.TenantGrants;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.boot.web.TenantResolutionFilter;
import io.github.shardtenancy.boot.web.TenantResolver;
import io.github.shardtenancy.boot.web.TenantResolvers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.context.SecurityContextHolder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up requirement of {@code shard-tenancy.web.access.policy} with Spring Security on the class path (this
 * module's test class path has it), in real web application contexts on H2: a resolver the client chooses without a
 * policy fails the start with the property named and a failure analysis; {@code none} starts without a check;
 * {@code claim}, a {@link TenantGrants} bean and the application's {@link TenantAccessPolicy} bean give the filter its
 * policy, the application's winning; resolvers reading only the authenticated user need none.
 */
class TenantAccessAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:access-" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final WebApplicationContextRunner web = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h");

	@Test
	@DisplayName("the default header resolver without a policy: the start fails naming the property, explained")
	void noPolicyFailsTheStart() {
		this.web.run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("read from header X-Tenant-Id")
				.hasMessageContaining("shard-tenancy.web.access.policy=claim")
				.hasMessageContaining("none to switch the check off");
			FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
			assertThat(analysis.getDescription()).contains("(shard-tenancy.web.access.policy)")
				.contains("which the client chooses");
			assertThat(analysis.getAction()).contains("shard-tenancy.web.access.policy=claim")
				.contains("TenantGrants")
				.contains("TenantAccessPolicy")
				.contains("shard-tenancy.web.access.policy=none");
		});
	}

	@Test
	@DisplayName("path, subdomain, session, or a header next to jwt-claim, without a policy: the start fails")
	void everyClientChosenResolverNeedsAPolicy() {
		for (String resolvers : List.of("path", "subdomain", "session", "jwt-claim,header", "principal,session")) {
			this.web.withPropertyValues("shard-tenancy.web.resolvers=" + resolvers,
					"shard-tenancy.web.base-domain=example.com")
				.run((context) -> assertThat(context).getFailure()
					.as(resolvers)
					.rootCause()
					.isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("shard-tenancy.web.access.policy"));
		}
	}

	@Test
	@DisplayName("none starts: the header filter before Spring Security, no policy asked")
	void noneStarts() {
		this.web.withPropertyValues("shard-tenancy.web.access.policy=none").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(TenantAccessPolicy.class);
			TenantResolutionFilter filter = context.getBean(TenantResolutionFilter.class);
			assertThat(filter).isInstanceOf(TenantHeaderFilter.class);
			assertThat(filter.accessPolicy()).isNull();
			assertThat(filter.getOrder()).isEqualTo(TenantResolutionFilter.ORDER);
		});
	}

	@Test
	@DisplayName("resolvers reading only the authenticated user (principal, jwt-claim) start without a policy")
	void credentialsOnlyNeedNoPolicy() {
		for (String resolvers : List.of("principal", "jwt-claim", "principal,jwt-claim")) {
			this.web.withPropertyValues("shard-tenancy.web.resolvers=" + resolvers)
				.run((context) -> assertThat(context.getBean(TenantResolutionFilter.class).accessPolicy()).isNull());
		}
	}

	@Test
	@DisplayName("claim: the claim policy, the filter after Spring Security's chain")
	void claimPolicy() {
		this.web.withPropertyValues("shard-tenancy.web.access.policy=claim", "shard-tenancy.web.access.claim=orgs")
			.run((context) -> {
				TenantResolutionFilter filter = context.getBean(TenantResolutionFilter.class);
				assertThat(filter).isNotInstanceOf(TenantHeaderFilter.class);
				assertThat(filter.accessPolicy()).hasToString("claim orgs or authorities TENANT_<tenant>");
				assertThat(filter.getOrder()).isEqualTo(TenantResolutionFilter.AFTER_SECURITY_ORDER);
				assertThat(filter.resolvers()).extracting(Object::toString).containsExactly("header X-Tenant-Id");
			});
	}

	@Test
	@DisplayName("a blank claim with policy claim fails the start naming the property")
	void blankClaim() {
		this.web.withPropertyValues("shard-tenancy.web.access.policy=claim", "shard-tenancy.web.access.claim= ")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.web.access.claim"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Grants {

		@Bean
		TenantGrants tenantGrants() {
			return (authentication) -> List.of(authentication.getName());
		}

	}

	@Test
	@DisplayName("a TenantGrants bean: the look-up policy without any property; lookup without one fails")
	void lookupPolicy() {
		this.web.withUserConfiguration(Grants.class)
			.run((context) -> assertThat(context.getBean(TenantResolutionFilter.class).accessPolicy())
				.isSameAs(context.getBean(TenantAccessPolicy.class))
				.asString()
				.startsWith("tenants looked up by"));
		this.web.withPropertyValues("shard-tenancy.web.access.policy=lookup")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.web.access.policy=lookup, but the application defines no "
						+ "TenantGrants bean"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnPolicy {

		static final TenantAccessPolicy POLICY = (authentication, tenant) -> true;

		@Bean
		TenantAccessPolicy ownPolicy() {
			return POLICY;
		}

	}

	@Test
	@DisplayName("the application's TenantAccessPolicy bean wins over claim, lookup and none; the built-ins back off")
	void applicationPolicyWins() {
		for (String policy : List.of("claim", "lookup", "none")) {
			this.web.withUserConfiguration(Grants.class, OwnPolicy.class)
				.withPropertyValues("shard-tenancy.web.access.policy=" + policy)
				.run((context) -> {
					assertThat(context).hasSingleBean(TenantAccessPolicy.class);
					assertThat(context.getBean(TenantResolutionFilter.class).accessPolicy()).as(policy)
						.isSameAs(OwnPolicy.POLICY);
				});
		}
	}

	@Test
	@DisplayName("without Spring Security on the class path there is no check and no policy")
	void withoutSpringSecurity() {
		ShardTenancyProperties.Web settings = new Binder(new MapConfigurationPropertySource())
			.bindOrCreate("shard-tenancy", ShardTenancyProperties.class)
			.getWeb();
		List<TenantResolver> resolvers = List.of(TenantResolvers.header("X-Tenant-Id"));
		assertThat(ShardTenancyWebConfiguration.accessPolicy(settings, resolvers,
				new DefaultListableBeanFactory().getBeanProvider(TenantAccessPolicy.class),
				new FilteredClassLoader(SecurityContextHolder.class)))
			.isNull();
		this.web.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TenantAccessPolicy.class));
	}

}
