package io.github.shardtenancy.boot.exclusion;

import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantRouter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in applications that exclude Boot's {@code DataSource} or JPA auto-configuration, or switch it off,
 * with every auto-configuration on the test class path (as {@code @SpringBootApplication} imports them) and a Spring
 * Data JPA repository in the application's package.
 */
class ExclusionTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	/**
	 * With the defaults the starter's environment post-processor gives a {@code SpringApplication} (which a context
	 * runner does not run; ShardTenancyEnvironmentPostProcessorTests covers it): Boot's own Liquibase and Flyway runs
	 * off, both being on the test class path.
	 */
	private final ApplicationContextRunner runner = new ApplicationContextRunner().withPropertyValues(
			"shard-tenancy.directory.url=" + h2("directory"), "shard-tenancy.shards.shard-1.url=" + h2("shard-1"),
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.liquibase.enabled=false", "spring.flyway.enabled=false");

	@Test
	@DisplayName("excluding DataSourceAutoConfiguration and HibernateJpaAutoConfiguration: the starter backs off, no DataSource, the context starts")
	void excludingDataSourceAndJpaBacksOff() {
		this.runner.withUserConfiguration(ExcludingDataSourceAndJpa.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(ShardTenancy.class)
				.doesNotHaveBean(TenantRouter.class)
				.doesNotHaveBean(DataSource.class)
				.doesNotHaveBean(ItemLookup.class);
		});
	}

	@Test
	@DisplayName("excluding DataSourceAutoConfiguration alone through spring.autoconfigure.exclude: the starter backs off")
	void excludingDataSourceByPropertyBacksOff() {
		this.runner.withUserConfiguration(Application.class)
			.withPropertyValues("spring.autoconfigure.exclude=" + DataSourceAutoConfiguration.class.getName())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ShardTenancy.class).doesNotHaveBean(DataSource.class);
			});
	}

	@Test
	@DisplayName("excluding HibernateJpaAutoConfiguration and the Spring Data JPA repositories: the routing DataSource stays, JDBC works")
	void excludingJpaKeepsTheRoutingDataSource() {
		this.runner.withUserConfiguration(Application.class)
			.withPropertyValues("spring.autoconfigure.exclude=" + HibernateJpaAutoConfiguration.class.getName() + ","
					+ "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ShardTenancy.class);
				assertThat(context.getBean(DataSource.class)).isSameAs(context.getBean(ShardTenancy.class).dataSource());
			});
	}

	@Test
	@DisplayName("shard-tenancy.enabled=false: nothing of the starter, Boot's own DataSource and JPA as without it")
	void disabledLeavesBootAlone() {
		this.runner.withUserConfiguration(Application.class)
			.withPropertyValues("shard-tenancy.enabled=false", "spring.jpa.hibernate.ddl-auto=create-drop")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ShardTenancy.class).doesNotHaveBean(TenantRouter.class);
				assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
				assertThat(context.getBean(ItemLookup.class).count()).isZero();
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration(exclude = { DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class })
	static class ExcludingDataSourceAndJpa {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
