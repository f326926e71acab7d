package io.github.shardtenancy.it.boot.l2cache;

import java.net.URI;
import java.util.UUID;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * The second-level cache tests' application: wallets in Hibernate's second-level cache and query cache (JCache with
 * Caffeine). Each context gets a JCache {@link CacheManager} of its own (a URI of its own), so that two contexts in
 * one JVM have two caches, like two JVMs.
 */
@SpringBootApplication
public class WalletApplication {

	@Bean(destroyMethod = "close")
	CacheManager walletCacheManager(@Value("${shard-tenancy.actor}") String actor) {
		CachingProvider provider = Caching.getCachingProvider(CaffeineCachingProvider.class.getName());
		return provider.getCacheManager(URI.create("urn:shard-tenancy-it:l2:" + actor + ":" + UUID.randomUUID()),
				provider.getDefaultClassLoader());
	}

	@Bean
	HibernatePropertiesCustomizer walletCacheManagerCustomizer(CacheManager walletCacheManager) {
		return (properties) -> properties.put("hibernate.javax.cache.cache_manager", walletCacheManager);
	}

}
