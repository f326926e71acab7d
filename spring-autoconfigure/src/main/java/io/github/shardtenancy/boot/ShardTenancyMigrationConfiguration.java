package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Migrations of the directory and every shard, before the router starts: with Liquibase (after the check of its
 * version, {@link LiquibaseVersionCheck}) or with Flyway, as {@code shard-tenancy.migrations.tool} resolves
 * ({@link MigrationToolCondition}).
 */
@Configuration(proxyBeanMethods = false)
@Import({ ShardTenancyMigrationConfiguration.LiquibaseMigrations.class,
		ShardTenancyMigrationConfiguration.FlywayMigrations.class,
		ShardTenancyMigrationConfiguration.ToolMissing.class })
class ShardTenancyMigrationConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "liquibase.Liquibase", "io.github.shardtenancy.liquibase.ShardTenancyMigrations" })
	@Conditional(MigrationToolCondition.Liquibase.class)
	@ConditionalOnProperty(prefix = "shard-tenancy.liquibase", name = "enabled", matchIfMissing = true)
	static class LiquibaseMigrations {

		@Bean
		@ConditionalOnMissingBean
		ShardTenancyMigrator shardTenancyMigrator(ShardTenancy tenancy, ShardTenancyProperties properties,
				Environment environment, ShardTenancyConnectionDetails connections) {
			LiquibaseVersionCheck.checkClassPath();
			return new ShardTenancyMigrator(tenancy.directoryDataSource(), tenancy.topology(),
					properties.getLiquibase().getShardChangelogs())
				.shardOwners(new ShardOwnerDataSources(properties, environment, connections));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.flywaydb.core.Flyway", "io.github.shardtenancy.flyway.ShardTenancyFlyway" })
	@Conditional(MigrationToolCondition.Flyway.class)
	@ConditionalOnProperty(prefix = "shard-tenancy.flyway", name = "enabled", matchIfMissing = true)
	static class FlywayMigrations {

		@Bean
		@ConditionalOnMissingBean
		ShardTenancyMigrator shardTenancyMigrator(ShardTenancy tenancy, ShardTenancyProperties properties,
				Environment environment, ShardTenancyConnectionDetails connections) {
			return new ShardTenancyMigrator(tenancy.directoryDataSource(), tenancy.topology(),
					new FlywayShardTenancyMigrations(properties.getFlyway()), "flyway")
				.shardOwners(new ShardOwnerDataSources(properties, environment, connections));
		}

	}

	/**
	 * The tool named in {@code shard-tenancy.migrations.tool} is not on the class path: fail rather than skip. Its bean
	 * stands in for the migrator, which the start asks for before anything is routed.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ToolMissing {

		@Bean
		@Conditional(MissingToolCondition.class)
		ShardTenancyMigrator shardTenancyMigrator(Environment environment) {
			String tool = MigrationToolCondition.resolve(
					environment.getProperty(MigrationToolCondition.PROPERTY, "auto"), getClass().getClassLoader());
			String artifacts = tool.equals("flyway") ? "io.github.shardtenancy:hibernate-shard-tenancy-flyway and "
					+ "org.flywaydb:flyway-core (and org.flywaydb:flyway-database-postgresql on PostgreSQL)"
					: "io.github.shardtenancy:hibernate-shard-tenancy-liquibase and org.liquibase:liquibase-core";
			throw new ShardTenancyConfigurationException(MigrationToolCondition.PROPERTY,
					MigrationToolCondition.PROPERTY + "=" + tool + " but " + tool + " is not on the class path: add "
							+ artifacts + ", or choose the other tool");
		}

	}

	static class MissingToolCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			String configured = context.getEnvironment().getProperty(MigrationToolCondition.PROPERTY, "auto");
			String tool = MigrationToolCondition.resolve(configured, context.getClassLoader());
			if (!context.getEnvironment().getProperty("shard-tenancy." + tool + ".enabled", Boolean.class, true)) {
				return ConditionOutcome.noMatch("shard-tenancy." + tool + ".enabled=false");
			}
			ClassLoader loader = context.getClassLoader();
			boolean present = tool.equals("flyway")
					? ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)
							&& ClassUtils.isPresent("io.github.shardtenancy.flyway.ShardTenancyFlyway", loader)
					: ClassUtils.isPresent("liquibase.Liquibase", loader);
			return present ? ConditionOutcome.noMatch(tool + " is on the class path")
					: ConditionOutcome.match(tool + " is not on the class path");
		}

	}

}
