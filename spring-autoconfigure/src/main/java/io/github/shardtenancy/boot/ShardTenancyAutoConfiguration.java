package io.github.shardtenancy.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of directory-based tenant sharding: the shard topology and directory from
 * {@code shard-tenancy.*} properties, Liquibase migrations of the directory and of every shard, the router, Hibernate
 * multi-tenancy routed through the shard fence, the tenant-routing {@code DataSource}, the automatic retry of
 * fence rejections, the tenant from an HTTP header and across threads, Micrometer metrics, the Actuator endpoint and
 * readiness health. Every bean backs off when the application defines its own.
 *
 * <p>Runs before Boot's {@code DataSourceAutoConfiguration} (whose pool would otherwise become the only
 * {@code DataSource}), {@code HibernateJpaAutoConfiguration} (which needs the Hibernate properties customizer) and
 * {@code DataSourceHealthContributorAutoConfiguration} (whose {@code db} health would borrow from the tenant-routing
 * {@code DataSource} with no tenant; it backs off to a {@code db} contributor per database).
 * Switched off with {@code shard-tenancy.enabled=false}, and backs off entirely when the application excludes
 * {@code DataSourceAutoConfiguration}. Also part of the {@code @DataJpaTest} and {@code @JdbcTest} slices.
 */
@AutoConfiguration(beforeName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.health.DataSourceHealthContributorAutoConfiguration" })
@ConditionalOnProperty(prefix = "shard-tenancy", name = "enabled", matchIfMissing = true)
@Conditional(OnDataSourceAutoConfigurationIncludedCondition.class)
@EnableConfigurationProperties(ShardTenancyProperties.class)
@Import({ ShardTenancyEmbeddedPostgresConfiguration.class, ShardTenancyCoreConfiguration.class, ShardTenancyMigrationConfiguration.class,
		ShardTenancyJdbcConfiguration.class, ShardTenancyHibernateConfiguration.class,
		ShardTenancyRetryConfiguration.class, ShardTenancyRetryAdviceConfiguration.class,
		ShardTenancyWebConfiguration.class, ShardTenancyWebAccessConfiguration.class,
		ShardTenancyPostgresConfiguration.class,
		ShardTenancyLifecycleConfiguration.class, ShardTenancyMoveConfiguration.class,
		ShardTenancyMetricsConfiguration.class, ShardTenancyActuatorConfiguration.class,
		ShardTenancyTaskConfiguration.class, ShardTenancyOpenInViewConfiguration.class,
		ShardTenancyObservationConfiguration.class, ShardTenancySeedConfiguration.class,
		ShardTenancyLoadConfiguration.class })
public final class ShardTenancyAutoConfiguration {

}
