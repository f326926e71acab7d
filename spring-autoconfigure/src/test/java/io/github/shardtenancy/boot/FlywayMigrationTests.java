package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.NoteService;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import io.github.shardtenancy.boot.testapp.TestApplication;
import io.github.shardtenancy.flyway.ShardTenancyFlyway;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.retry.FenceRejection;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Flyway instead of Liquibase: the directory, the fence and the application's shard migrations, on H2. */
@DisplayName("Flyway migrations")
class FlywayMigrationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	static List<String> tables(DataSource dataSource) throws SQLException {
		List<String> tables = new ArrayList<>();
		try (Connection c = dataSource.getConnection();
				ResultSet rs = c.getMetaData().getTables(null, "PUBLIC", "%", new String[] { "TABLE" })) {
			while (rs.next()) {
				tables.add(rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT));
			}
		}
		return tables;
	}

	/** A whole application (Spring Data JPA, the retry, Boot's own Flyway auto-configuration on the class path). */
	@Nested
	@SpringBootTest(classes = TestApplication.class, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:flyway-app-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:flyway-app-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:flyway-app-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
			"shard-tenancy.migrations.tool=flyway", "shard-tenancy.flyway.shard-locations=classpath:db/flyway-note",
			"shard-tenancy.sync.interval=1h", "shard-tenancy.retry.max-delay=50ms", "shard-tenancy.actor=tests" })
	@DisplayName("in an application")
	class InAnApplication {

		@Autowired
		private ApplicationContext context;

		@Autowired
		private ShardTenancy tenancy;

		@Autowired
		private TenantAdmin admin;

		@Autowired
		private TenantRouter router;

		@Autowired
		private ShardTopology topology;

		@Autowired
		private NoteRepository notes;

		@Autowired
		private NoteService noteService;

		@Autowired
		private RecordingRetryListener listener;

		@Test
		@DisplayName("every database is migrated by Flyway (not Liquibase, not Boot's own Flyway) and tenants route")
		void migratesWithFlywayAndRoutes() throws SQLException {
			assertThat(this.context.getBean(ShardTenancyMigrator.class).tool()).isEqualTo("flyway");
			assertThat(this.context.getBeansOfType(Flyway.class)).as("Boot's own Flyway backs off").isEmpty();
			assertThat(tables(this.tenancy.directoryDataSource())).contains("shard_tenancy_schema_history",
					"shard_directory_entry", "shard_move", "shard_registry").doesNotContain("databasechangelog");
			for (String shardId : List.of("shard-1", "shard-2")) {
				assertThat(tables(this.topology.dataSource(shardId))).as(shardId)
					.contains("shard_tenancy_schema_history", "flyway_schema_history", "shard_fence", "note")
					.doesNotContain("databasechangelog");
			}
			this.admin.create("fw-a", "shard-1");
			this.admin.create("fw-b", "shard-2");
			for (String tenant : List.of("fw-a", "fw-b")) {
				try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
					this.notes.save(new io.github.shardtenancy.boot.testapp.Note("hello " + tenant));
					assertThat(this.notes.count()).isEqualTo(1);
				}
			}
		}

		@Test
		@DisplayName("a stale route is rejected by the Flyway-installed fence and retried on the new owner")
		void staleRouteIsRejectedAndRetried() {
			String tenant = "fw-stale";
			this.admin.create(tenant, "shard-1");
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				this.noteService.persistAndFlush("before the move");
				Router otherInstance = new Router(Internals.directory(this.tenancy), RouterSettings.defaults());
				new Mover(Internals.directory(this.tenancy), otherInstance, Internals.topology(this.tenancy),
						List.of(new TenantTable("note", "tenant_id")), "other-instance", Runnable::run)
					.moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
				assertThat(this.router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
				this.listener.reset();
				this.noteService.reset();

				assertThat(this.noteService.count()).isEqualTo(1);

				assertThat(this.listener.failures()).hasSize(1);
				assertThat(FenceRejection.find(this.listener.failures().get(0))).get()
					.extracting(FenceRejection::reason, FenceRejection::shardId)
					.containsExactly("MOVED", "shard-1");
				assertThat(this.router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");
			}
		}

	}

	@Nested
	@DisplayName("in small contexts")
	class InSmallContexts {

		private final String directory = h2("fw-directory");

		private final String shard1 = h2("fw-shard-1");

		private final String shard2 = h2("fw-shard-2");

		private final ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + this.directory,
					"shard-tenancy.shards.shard-1.url=" + this.shard1, "shard-tenancy.shards.shard-2.url=" + this.shard2,
					"shard-tenancy.sync.interval=1h", "shard-tenancy.flyway.shard-locations=classpath:db/flyway-note",
					"shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
					"shard-tenancy.tenant-tables=note:tenant_id", "shard-tenancy.actor=boot@test");

		@Test
		@DisplayName("auto: Liquibase when it is on the class path, Flyway when only Flyway is")
		void autoDetection() {
			this.runner.run((context) -> assertThat(context.getBean(ShardTenancyMigrator.class).tool())
				.isEqualTo("liquibase"));
			this.runner.withClassLoader(new FilteredClassLoader("liquibase."))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("fw-auto-directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("fw-auto-1"),
						"shard-tenancy.shards.shard-2.url=" + h2("fw-auto-2"))
				.run((context) -> assertThat(context.getBean(ShardTenancyMigrator.class).tool()).isEqualTo("flyway"));
		}

		@Test
		@DisplayName("flyway.enabled=false skips the migrations")
		void disabled() {
			ApplicationContextRunner flyway = this.runner.withPropertyValues("shard-tenancy.migrations.tool=flyway");
			flyway.run((context) -> assertThat(context).hasSingleBean(ShardTenancyMigrator.class));
			flyway.withPropertyValues("shard-tenancy.flyway.enabled=false")
				.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ShardTenancyMigrator.class));
		}

		@Test
		@DisplayName("tool=flyway without hibernate-shard-tenancy-flyway fails the start, naming the property")
		void flywayMissing() {
			this.runner.withClassLoader(new FilteredClassLoader(ShardTenancyFlyway.class))
				.withPropertyValues("shard-tenancy.migrations.tool=flyway")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("shard-tenancy.migrations.tool=flyway but flyway is not on the class path"));
		}

		@Test
		@DisplayName("a shard registered at runtime is migrated by Flyway before it is recorded, and then routable")
		void runtimeShardIsMigrated() {
			this.runner.withPropertyValues("shard-tenancy.migrations.tool=flyway").run((context) -> {
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				admin.create("rt-1");
				admin.create("rt-2");
				HikariConfig config = new HikariConfig();
				config.setJdbcUrl(h2("fw-shard-3"));
				admin.registerShard("shard-3", "eu", config);
				DataSource shard3 = context.getBean(ShardTopology.class).dataSource("shard-3");
				assertThat(tables(shard3)).contains("shard_tenancy_schema_history", "flyway_schema_history",
						"shard_fence", "note");
				try (Connection c = shard3.getConnection(); Statement s = c.createStatement();
						ResultSet rs = s.executeQuery("SELECT COUNT(DISTINCT TRIGGER_NAME) FROM "
								+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'SHARD_FENCE_NOTE'")) {
					rs.next();
					assertThat(rs.getInt(1)).as("the fence's write check on the application's table").isEqualTo(1);
				}
				assertThat(admin.create("on-3").shardId()).as("the new, empty shard is the least loaded")
					.isEqualTo("shard-3");
			});
		}

		@Test
		@DisplayName("a shard whose application migration fails at runtime is not recorded; the other shards keep routing")
		void failingRuntimeShardIsBlocked() throws SQLException {
			String url = h2("fw-shard-bad");
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url);
			try (com.zaxxer.hikari.HikariDataSource bad = new com.zaxxer.hikari.HikariDataSource(config);
					Connection c = bad.getConnection(); Statement s = c.createStatement()) {
				// a table the application's V1 cannot create over
				s.execute("CREATE TABLE note (something INT)");
				this.runner.withPropertyValues("shard-tenancy.migrations.tool=flyway").run((context) -> {
					TenantAdmin admin = context.getBean(TenantAdmin.class);
					admin.create("ok-1", "shard-1");
					HikariConfig badConfig = new HikariConfig();
					badConfig.setJdbcUrl(url);
					assertThatThrownBy(() -> admin.registerShard("shard-bad", "eu", badConfig))
						.hasStackTraceContaining("shard 'shard-bad'")
						.hasStackTraceContaining("application's migrations");
					assertThat(admin.shards()).extracting(ShardRecord::shardId).containsExactly("shard-1", "shard-2");
					assertThat(context.getBean(ShardTopology.class).shardIds()).doesNotContain("shard-bad");
					assertThat(admin.create("ok-2").shardId()).isIn("shard-1", "shard-2");
					try (TenantContext.Scope scope = TenantContext.bind("ok-1")) {
						assertThat(context.getBean(TenantRouter.class).route("ok-1").shardId()).isEqualTo("shard-1");
					}
				});
			}
		}

		@Test
		@DisplayName("a failing application migration on a configured shard fails the start, naming the shard")
		void failingConfiguredShardFailsTheStart() throws SQLException {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.shard2);
			try (com.zaxxer.hikari.HikariDataSource shard = new com.zaxxer.hikari.HikariDataSource(config);
					Connection c = shard.getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE note (something INT)");
				this.runner.withPropertyValues("shard-tenancy.migrations.tool=flyway")
					.run((context) -> assertThat(context).getFailure()
						.hasStackTraceContaining("Flyway migration (the application's migrations) failed on shard 'shard-2'"));
			}
		}

		@Test
		@DisplayName("databases Liquibase migrated are refused by Flyway (and the other way round), naming the property")
		void switchingToolsIsRefused() {
			this.runner.run((context) -> assertThat(context).hasNotFailed());
			this.runner.withPropertyValues("shard-tenancy.migrations.tool=flyway")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("installed by Liquibase")
					.hasMessageContaining("shard-tenancy.migrations.tool")
					.satisfies((ex) -> assertThat(((ShardTenancyConfigurationException) ex).setting())
						.isEqualTo("shard-tenancy.migrations.tool")));

			ApplicationContextRunner fresh = this.runner.withPropertyValues(
					"shard-tenancy.directory.url=" + h2("fw-first-directory"),
					"shard-tenancy.shards.shard-1.url=" + h2("fw-first-1"),
					"shard-tenancy.shards.shard-2.url=" + h2("fw-first-2"));
			fresh.withPropertyValues("shard-tenancy.migrations.tool=flyway")
				.run((context) -> assertThat(context).hasNotFailed());
			fresh.withPropertyValues("shard-tenancy.migrations.tool=liquibase")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("installed by Flyway"));
		}

	}

}
