package io.github.shardtenancy.boot;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code shard-tenancy.initial-tenants} on H2: the tenants are created and seeded at start-up, a second start on the
 * same directory (another instance, a restart) leaves them alone, and a bad id fails the start naming the property.
 */
@DisplayName("Initial tenants")
class InitialTenantsTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static ApplicationContextRunner runner(String directory, String shard1, String shard2) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + directory, "shard-tenancy.shards.shard-1.url=" + shard1,
					"shard-tenancy.shards.shard-2.url=" + shard2, "shard-tenancy.sync.interval=1h",
					"shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
					"shard-tenancy.tenant-tables=note:tenant_id",
					"shard-tenancy.seed.locations=classpath:db/seed/notes/01-welcome.sql");
	}

	private static List<String> titles(ApplicationContext context, String tenant) throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
		return TenantContext.callAs(tenant,
				() -> jdbc.queryForList("SELECT title FROM note WHERE tenant_id = ?", String.class, tenant));
	}

	@Test
	@DisplayName("The listed tenants are created and seeded once; a second start on the same directory creates and seeds nothing again")
	void createdOnceAndSeededOnce() {
		ApplicationContextRunner runner = runner(h2("directory"), h2("shard-1"), h2("shard-2"))
			.withPropertyValues("shard-tenancy.initial-tenants=clinic-a,clinic-b");
		runner.run((first) -> {
			assertThat(first).hasNotFailed();
			TenantAdmin admin = first.getBean(TenantAdmin.class);
			for (String tenant : List.of("clinic-a", "clinic-b")) {
				assertThat(admin.find(tenant)).get().extracting((entry) -> entry.state()).isEqualTo(TenantState.ACTIVE);
				assertThat(titles(first, tenant)).containsExactly("Welcome");
			}
			long seedsBefore = admin.events(0).stream().filter((event) -> event.kind().equals("TENANT_SEEDED")).count();
			assertThat(seedsBefore).isEqualTo(2);
			runner.run((second) -> {
				assertThat(second).hasNotFailed();
				TenantAdmin again = second.getBean(TenantAdmin.class);
				assertThat(again.events(0).stream().filter((event) -> event.kind().equals("TENANT_SEEDED")).count())
					.isEqualTo(2);
				assertThat(titles(second, "clinic-a")).containsExactly("Welcome");
				assertThat(titles(second, "clinic-b")).containsExactly("Welcome");
			});
		});
	}

	@Test
	@DisplayName("An invalid tenant id fails the start, naming the property and the remedy")
	void invalidIdFailsTheStart() {
		runner(h2("directory"), h2("shard-1"), h2("shard-2")).withPropertyValues("shard-tenancy.initial-tenants=ok,bad id!")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				Throwable cause = failure;
				while (cause != null && !(cause instanceof ShardTenancyConfigurationException)) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("bad id!")
					.hasMessageContaining("shard-tenancy.initial-tenants");
				assertThat(((ShardTenancyConfigurationException) cause).setting())
					.isEqualTo("shard-tenancy.initial-tenants");
				FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
				assertThat(analysis.getDescription()).contains("shard-tenancy.initial-tenants");
			});
	}

}
