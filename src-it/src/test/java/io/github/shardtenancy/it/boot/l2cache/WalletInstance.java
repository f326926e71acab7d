package io.github.shardtenancy.it.boot.l2cache;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.SecondLevelCacheEviction;
import io.github.shardtenancy.internal.routing.Router;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One instance of {@link WalletApplication}: a Spring Boot context with its own router and its own second-level
 * cache, on databases other instances share. Its router hears of other instances' moves only from fence rejections
 * or an explicit {@link Router#refresh()} (the background sync is slowed down to an hour).
 */
final class WalletInstance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private WalletInstance(List<String> properties) {
		this.context = new SpringApplicationBuilder(WalletApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	/**
	 * @param instance the instance's name (the directory actor)
	 * @param databaseProperties the {@code shard-tenancy.directory.*} and {@code shard-tenancy.shards.*} properties
	 * @param extra more {@code key=value} properties
	 * @return a started instance
	 */
	static WalletInstance start(String instance, List<String> databaseProperties, String... extra) {
		List<String> properties = new ArrayList<>(List.of("shard-tenancy.liquibase.shard-changelogs=db/it-l2/wallets.xml",
				"shard-tenancy.sync.interval=1h", "shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.move.clean-delay=0s",
				"shard-tenancy.actor=" + instance, "spring.liquibase.enabled=false", "spring.jmx.enabled=false",
				"spring.jpa.properties.hibernate.cache.region.factory_class=jcache",
				"spring.jpa.properties.hibernate.javax.cache.provider="
						+ "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider",
				"spring.jpa.properties.hibernate.javax.cache.missing_cache_strategy=create",
				"spring.jpa.properties.hibernate.cache.use_second_level_cache=true",
				"spring.jpa.properties.hibernate.cache.use_query_cache=true",
				"spring.jpa.properties.hibernate.generate_statistics=true"));
		properties.addAll(databaseProperties);
		properties.addAll(List.of(extra));
		return new WalletInstance(properties);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	TenantAdmin admin() {
		return bean(TenantAdmin.class);
	}

	Router router() {
		return Internals.router(bean(ShardTenancy.class));
	}

	WalletService wallets() {
		return bean(WalletService.class);
	}

	SecondLevelCacheEviction eviction() {
		return bean(SecondLevelCacheEviction.class);
	}

	Statistics statistics() {
		return bean(EntityManagerFactory.class).unwrap(SessionFactory.class).getStatistics();
	}

	/** Runs work as a tenant. */
	<T> T as(String tenant, Callable<T> work) {
		try {
			return TenantContext.callAs(tenant, work);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** @return the wallet's balance in the shard's row, read on the shard's pool (no routing, no cache) */
	Long balanceRow(String shard, UUID wallet) {
		List<Long> found = new JdbcTemplate(Internals.topology(bean(ShardTenancy.class)).shard(shard).dataSource())
			.queryForList("SELECT balance FROM l2_wallet WHERE id = ?", Long.class, wallet);
		return found.isEmpty() ? null : found.get(0);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
