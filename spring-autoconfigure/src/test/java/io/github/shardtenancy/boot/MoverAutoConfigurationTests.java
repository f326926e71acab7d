package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The auto-configured mover: present by default with its settings from {@code shard-tenancy.move.*}, its change
 * capture installed on the tenant tables, able to move a tenant online and (through the admin) stop-the-world, its
 * executor shut down with the context, and backing off to the application's own beans.
 */
@DisplayName("Mover auto-configuration")
class MoverAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"),
				"shard-tenancy.shards.shard-2.url=" + h2("shard-2"), "shard-tenancy.sync.interval=1h");

	/** With the test schema and its tenant table configured. */
	private final ApplicationContextRunner withTables = this.runner.withPropertyValues(
			"shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
			"shard-tenancy.tenant-tables=note:tenant_id");

	@Test
	@DisplayName("a TenantMover and its MoveSettings are present by default, the settings taken from the defaults")
	void presentByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(TenantMover.class).hasSingleBean(MoveSettings.class);
			assertThat(context.getBean(MoveSettings.class)).isEqualTo(MoveSettings.defaults());
		});
	}

	@Test
	@DisplayName("the mover's executor is shut down with the context")
	void executorIsShutDownWithTheContext() {
		java.util.concurrent.ExecutorService[] executor = new java.util.concurrent.ExecutorService[1];
		this.runner.run((context) -> {
			executor[0] = (java.util.concurrent.ExecutorService) Internals.wiring(context.getBean(ShardTenancy.class))
				.moveExecutor();
			assertThat(executor[0].isShutdown()).isFalse();
		});
		assertThat(executor[0].isShutdown()).isTrue();
	}

	@Test
	@DisplayName("shard-tenancy.move.* reaches the MoveSettings bean")
	void propertiesReachTheSettings() {
		this.runner
			.withPropertyValues("shard-tenancy.move.batch-size=250", "shard-tenancy.move.throttle=5ms",
					"shard-tenancy.move.catch-up-lag-threshold=7", "shard-tenancy.move.max-catch-up-rounds=3",
					"shard-tenancy.move.online-clean-delay=1m")
			.run((context) -> assertThat(context.getBean(MoveSettings.class)).isEqualTo(
					new MoveSettings(250, Duration.ofMillis(5), 7, 3, Duration.ofMinutes(1), true)));
	}

	@Test
	@DisplayName("shard-tenancy.move.soak reaches the MoveSettings bean; a negative one fails the start naming it")
	void soakReachesTheSettings() {
		this.runner.withPropertyValues("shard-tenancy.move.soak=10m")
			.run((context) -> assertThat(context.getBean(MoveSettings.class).soak()).isEqualTo(Duration.ofMinutes(10)));
		this.runner.withPropertyValues("shard-tenancy.move.soak=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("shard-tenancy.move.soak");
		});
	}

	@Test
	@DisplayName("an invalid batch size fails the start naming the setting")
	void invalidOptionsFailTheStart() {
		this.runner.withPropertyValues("shard-tenancy.move.batch-size=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.move");
		});
	}

	@Test
	@DisplayName("with configured tenant tables the capture is installed on every shard and the bean moves a tenant")
	void configuredTablesAreCapturedAndMoved() {
		this.withTables.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTenancy tenancy = context.getBean(ShardTenancy.class);
				for (String shardId : tenancy.topology().shardIds()) {
					assertThat(count(tenancy, shardId, "SELECT COUNT(DISTINCT TRIGGER_NAME) FROM INFORMATION_SCHEMA.TRIGGERS "
							+ "WHERE TRIGGER_NAME = 'SHARD_CAPTURE_NOTE' AND ? = ?", "x")).as(shardId).isOne();
				}
				context.getBean(TenantAdmin.class).create("acme", "shard-1");
				insertNote(tenancy, "acme");
				TenantMover mover = context.getBean(TenantMover.class);

				String moveId = mover.moveAndWait("acme", "shard-2", context.getBean(MoveSettings.class)).moveId();

				assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
				assertThat(context.getBean(TenantAdmin.class).find("acme").orElseThrow().shardId()).isEqualTo("shard-2");
				assertThat(count(tenancy, "shard-2", "SELECT COUNT(*) FROM note WHERE tenant_id = ?", "acme")).isOne();
				assertThat(count(tenancy, "shard-1", "SELECT COUNT(*) FROM note WHERE tenant_id = ?", "acme")).isZero();
				assertThat(context.getBean(TenantAdmin.class).history("acme")).extracting(DirectoryHistoryRecord::toState)
					.containsExactly(TenantState.ACTIVE, TenantState.MIGRATING, TenantState.FROZEN, TenantState.ACTIVE);
			});
	}

	@Test
	@DisplayName("the admin moves stop-the-world with the same mover, cleaning after shard-tenancy.move.clean-delay")
	void theAdminMovesStopTheWorld() {
		this.withTables.withPropertyValues("shard-tenancy.move.clean-delay=0s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTenancy tenancy = context.getBean(ShardTenancy.class);
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				admin.create("acme", "shard-1");
				insertNote(tenancy, "acme");

				MoveResult result = admin.move("acme", "shard-2");

				assertThat(result.step()).isEqualTo(MoveStep.DONE);
				assertThat(result.rowsCopied()).containsEntry("note", 1L);
				assertThat(context.getBean(TenantMover.class).status(result.moveId()).settings().capture()).isFalse();
				assertThat(context.getBean(TenantAdmin.class).history("acme")).extracting(DirectoryHistoryRecord::toState)
					.containsExactly(TenantState.ACTIVE, TenantState.FROZEN, TenantState.ACTIVE);
				assertThat(count(tenancy, "shard-1", "SELECT COUNT(*) FROM note WHERE tenant_id = ?", "acme")).isZero();
			});
	}

	@Test
	@DisplayName("without tenant tables the mover is present but refuses to move, rather than move no rows")
	void withoutTablesMovesAreRefused() {
		this.runner.run((context) -> {
			context.getBean(TenantAdmin.class).create("acme", "shard-1");
			assertThatThrownBy(() -> context.getBean(TenantMover.class).move("acme", "shard-2", MoveSettings.defaults()))
				.isInstanceOf(MoveException.class)
				.hasMessageContaining("no tenant tables");
			assertThat(context.getBean(TenantAdmin.class).find("acme").orElseThrow().shardId()).isEqualTo("shard-1");
		});
	}

	@Test
	@DisplayName("backs off to the application's own TenantMover and MoveSettings")
	void backsOffToUserBeans() {
		this.runner.withUserConfiguration(UserMover.class).run((context) -> {
			assertThat(context).hasSingleBean(TenantMover.class).hasSingleBean(MoveSettings.class);
			assertThat(context.getBean(TenantMover.class)).isSameAs(context.getBean("userMover"));
			assertThat(context.getBean(MoveSettings.class).batchSize()).isEqualTo(42);
		});
	}

	@Test
	@DisplayName("shard-tenancy.move.install-capture=false installs no capture trigger")
	void captureInstallationCanBeSwitchedOff() {
		this.withTables.withPropertyValues("shard-tenancy.move.install-capture=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(count(context.getBean(ShardTenancy.class), "shard-1", "SELECT COUNT(DISTINCT TRIGGER_NAME) FROM "
						+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'SHARD_CAPTURE_NOTE' AND ? = ?", "x"))
					.isZero();
			});
	}

	private static long count(ShardTenancy tenancy, String shardId, String sql, String parameter) throws Exception {
		try (Connection c = tenancy.topology().dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, parameter);
			if (ps.getParameterMetaData().getParameterCount() > 1) {
				ps.setString(2, parameter);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static void insertNote(ShardTenancy tenancy, String tenant) throws Exception {
		String shardId = tenancy.router().route(tenant).shardId();
		FenceDialect dialect = tenancy.fenceDialect(shardId);
		try (Connection c = tenancy.topology().dataSource(shardId).getConnection()) {
			dialect.begin(c, tenant, tenancy.router().route(tenant).version());
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO note (id, tenant_id, title) VALUES (?, ?, ?)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, tenant);
				ps.setString(3, "first");
				ps.executeUpdate();
			}
			if (!c.getAutoCommit()) {
				c.commit();
			}
			dialect.end(c);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class UserMover {

		@Bean
		TenantMover userMover(ShardTenancy tenancy) {
			return new Mover(Internals.directory(tenancy), Internals.router(tenancy), Internals.topology(tenancy), List.of(new TenantTable("note", "tenant_id")), "own",
					Runnable::run);
		}

		@Bean
		MoveSettings userMoveSettings() {
			return MoveSettings.defaults().withBatchSize(42);
		}

	}

}
