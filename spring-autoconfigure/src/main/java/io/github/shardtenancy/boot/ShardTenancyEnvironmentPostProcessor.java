package io.github.shardtenancy.boot;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Adds, with the lowest precedence, the defaults that Spring Boot needs to work with the tenant-routing
 * {@code DataSource}:
 * <ul>
 * <li>{@code spring.jpa.hibernate.ddl-auto=none}: every shard's schema is managed by Liquibase, shard by shard
 * (Hibernate's schema tools only ever see one shard); and without an explicit value Boot would open a connection of
 * the routing {@code DataSource} at start-up, with no tenant bound, to guess whether the database is embedded.</li>
 * <li>{@code spring.liquibase.enabled=false}: Boot's own Liquibase run would migrate the application's
 * {@code DataSource}, which is the tenant-routing one and has no connection without a tenant; the directory and the
 * shards are migrated by {@code shard-tenancy.liquibase.*} instead. An application that points Boot's Liquibase at a
 * database of its own sets {@code spring.liquibase.enabled=true} explicitly.</li>
 * <li>{@code spring.flyway.enabled=false}: the same for Boot's own Flyway run; the directory and the shards are
 * migrated by {@code shard-tenancy.flyway.*} when Flyway is the migration tool.</li>
 * <li>{@code spring.test.database.replace=none}: in {@code @DataJpaTest} and {@code @JdbcTest}, Boot's
 * {@code @AutoConfigureTestDatabase} would otherwise replace the tenant-routing {@code DataSource} with one embedded
 * database, and every query would miss the shards.</li>
 * </ul>
 * Any value the application sets wins. Nothing is added when {@code shard-tenancy.enabled=false}. Registered in
 * {@code META-INF/spring.factories}; stateless.
 */
class ShardTenancyEnvironmentPostProcessor implements EnvironmentPostProcessor {

	/** The name of the property source holding the defaults. */
	static final String PROPERTY_SOURCE = "shardTenancyDefaults";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("shard-tenancy.enabled", Boolean.class, true)) {
			return;
		}
		if (!environment.getPropertySources().contains(PROPERTY_SOURCE)) {
			environment.getPropertySources()
				.addLast(new MapPropertySource(PROPERTY_SOURCE, Map.of("spring.jpa.hibernate.ddl-auto", "none",
					"spring.liquibase.enabled", "false", "spring.flyway.enabled", "false", "spring.test.database.replace",
					"none")));
		}
	}

}
