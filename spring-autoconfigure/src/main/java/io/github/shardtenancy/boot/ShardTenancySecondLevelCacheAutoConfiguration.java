package io.github.shardtenancy.boot;

import io.github.shardtenancy.SecondLevelCacheEviction;
import io.github.shardtenancy.TenantRouter;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Keeps Hibernate's second-level and query caches coherent with tenant moves: a {@link SecondLevelCacheEviction} of
 * the application's {@link EntityManagerFactory}, registered with the {@link TenantRouter} when the session factory
 * caches anything ({@code hibernate.cache.use_second_level_cache}, on by default once a region factory is set or found
 * on the class path, or {@code hibernate.cache.use_query_cache}); unregistered when the context closes. Backs off when
 * the application defines its own {@link SecondLevelCacheEviction} (which it then registers itself).
 */
@AutoConfiguration(after = ShardTenancyAutoConfiguration.class,
		afterName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnProperty(prefix = "shard-tenancy", name = "enabled", matchIfMissing = true)
@ConditionalOnClass({ SessionFactory.class, EntityManagerFactory.class })
@ConditionalOnBean(TenantRouter.class)
@ConditionalOnSingleCandidate(EntityManagerFactory.class)
public final class ShardTenancySecondLevelCacheAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	SecondLevelCacheEviction shardTenancySecondLevelCacheEviction(EntityManagerFactory entityManagerFactory,
			TenantRouter router) {
		SecondLevelCacheEviction eviction = new SecondLevelCacheEviction(
				entityManagerFactory.unwrap(SessionFactory.class));
		eviction.register(router);
		return eviction;
	}

}
