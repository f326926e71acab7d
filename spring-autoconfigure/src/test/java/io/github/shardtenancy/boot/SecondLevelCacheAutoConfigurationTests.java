package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.SecondLevelCacheEviction;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.routing.Router;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The second-level cache eviction's auto-configuration, in real (small) Spring contexts with Hibernate on real H2
 * in-memory databases, and the second-level cache through JCache with Caffeine.
 */
@DisplayName("Second-level cache eviction auto-configuration")
class SecondLevelCacheAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	// ddl-auto=none as ShardTenancyEnvironmentPostProcessor sets it in an application (a runner does not run it)
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class,
				DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class,
				ShardTenancySecondLevelCacheAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"),
				"shard-tenancy.shards.shard-2.url=" + h2("shard-2"), "shard-tenancy.sync.interval=1h",
				"spring.jmx.enabled=false", "spring.jpa.hibernate.ddl-auto=none");

	private static final String[] CACHING = { "spring.jpa.properties.hibernate.cache.region.factory_class=jcache",
			"spring.jpa.properties.hibernate.javax.cache.provider="
					+ "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider",
			"spring.jpa.properties.hibernate.javax.cache.missing_cache_strategy=create",
			"spring.jpa.properties.hibernate.cache.use_query_cache=true" };

	@Test
	@DisplayName("with the second-level cache on, the eviction is registered with the router, evicts when a tenant "
			+ "moves, and is unregistered when the context closes")
	void registeredWhenCaching() {
		this.runner.withPropertyValues(CACHING).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SecondLevelCacheEviction.class);
			SecondLevelCacheEviction eviction = context.getBean(SecondLevelCacheEviction.class);
			assertThat(SecondLevelCacheEviction
				.isCaching(context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class))).isTrue();
			assertThat(eviction.isRegistered()).isTrue();
			Router router = Internals.router(context.getBean(ShardTenancy.class));
			String tenant = "l2-auto-" + UUID.randomUUID().toString().substring(0, 8);
			DirectoryEntry created = router.directory().create(tenant, "shard-1", "test");
			router.route(tenant);
			assertThat(eviction.evictions()).as("a first read evicts nothing").isZero();

			router.apply(new DirectoryEntry(tenant, "shard-2", TenantState.ACTIVE, null, created.epoch() + 1,
					created.version() + 1));
			assertThat(eviction.evictions()).as("a move evicts").isEqualTo(1);
			router.invalidate(tenant);
			assertThat(eviction.evictions()).as("an invalidation evicts").isEqualTo(2);

			context.close();
			assertThat(eviction.isRegistered()).isFalse();
		});
	}

	@Test
	@DisplayName("with the second-level and query caches off, nothing is registered")
	void notRegisteredWithoutCaching() {
		// hibernate-jcache on the class path is Hibernate's region factory unless the cache is switched off
		this.runner.withPropertyValues("spring.jpa.properties.hibernate.cache.use_second_level_cache=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(SecondLevelCacheEviction.class);
				assertThat(context.getBean(SecondLevelCacheEviction.class).isRegistered()).isFalse();
			});
	}

	@Test
	@DisplayName("an application's own SecondLevelCacheEviction replaces the auto-configured one")
	void backsOffToTheApplicationsBean() {
		this.runner.withPropertyValues(CACHING).withUserConfiguration(OwnEviction.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SecondLevelCacheEviction.class);
			assertThat(context.getBean(SecondLevelCacheEviction.class))
				.isSameAs(context.getBean(OwnEviction.class).eviction);
			assertThat(context.getBean(SecondLevelCacheEviction.class).isRegistered()).isFalse();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEviction {

		SecondLevelCacheEviction eviction;

		@Bean
		SecondLevelCacheEviction ownEviction(EntityManagerFactory entityManagerFactory) {
			this.eviction = new SecondLevelCacheEviction(entityManagerFactory.unwrap(SessionFactory.class));
			return this.eviction;
		}

	}

}
