package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.it.boot.orders.AttemptRecorder;
import io.github.shardtenancy.it.boot.orders.OrderService;
import io.github.shardtenancy.it.boot.orders.OrdersApplication;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Boot application of the integration tests ({@link OrdersApplication}) on PostgreSQL with Flyway instead of
 * Liquibase: fresh databases on the cluster's servers (a directory and three shards), migrated by the library's Flyway
 * migrations and the application's {@code db/it-flyway/orders}.
 */
@DisplayName("PostgreSQL with Spring Boot and Flyway: migrated before routing, the PL/pgSQL fence rejects a stale route, runtime shards migrated or blocked")
class PostgresFlywayBootTest {

	private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);

	static PostgresCluster cluster;

	static ConfigurableApplicationContext context;

	static final List<String[]> created = new ArrayList<>();

	@BeforeAll
	static void start() throws SQLException {
		cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(List.of("shard-tenancy.migrations.tool=flyway",
				"shard-tenancy.flyway.shard-locations=classpath:db/it-flyway/orders", "shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false", "shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.move.clean-delay=0s", "shard-tenancy.actor=pg-flyway", "spring.jmx.enabled=false"));
		properties.addAll(server("shard-tenancy.directory", cluster.directory(), "fw_directory"));
		for (String shard : PostgresCluster.SHARD_IDS) {
			properties.addAll(server("shard-tenancy.shards." + shard, cluster.shard(shard), "fw_shard"));
		}
		context = new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	/** Creates a database of its own on the server and returns the properties pointing at it. */
	private static List<String> server(String prefix, PostgresServer server, String name) throws SQLException {
		String url = createDatabase(server, name);
		return List.of(prefix + ".url=" + url, prefix + ".username=" + server.user(),
				prefix + ".password=" + server.password());
	}

	private static String createDatabase(PostgresServer server, String name) throws SQLException {
		String database = name + "_" + SUFFIX;
		try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE " + database);
		}
		created.add(new String[] { server.jdbcUrl(), server.user(), server.password(), database });
		return server.jdbcUrl().replace("/postgres", "/" + database);
	}

	@AfterAll
	static void stop() throws SQLException {
		if (context != null) {
			context.close();
		}
		for (String[] database : created) {
			try (Connection c = java.sql.DriverManager.getConnection(database[0], database[1], database[2]);
					Statement s = c.createStatement()) {
				s.execute("DROP DATABASE IF EXISTS " + database[3] + " WITH (FORCE)");
			}
		}
	}

	private static List<String> tables(DataSource dataSource) throws SQLException {
		List<String> tables = new ArrayList<>();
		try (Connection c = dataSource.getConnection();
				ResultSet rs = c.getMetaData().getTables(null, "public", "%", new String[] { "TABLE" })) {
			while (rs.next()) {
				tables.add(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
			}
		}
		return tables;
	}

	private static HikariConfig pool(String url, PostgresServer server) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(server.user());
		config.setPassword(server.password());
		config.setMaximumPoolSize(4);
		return config;
	}

	private static long count(DataSource dataSource, String sql) throws SQLException {
		try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
	}

	@Test
	@DisplayName("the directory and every shard carry Flyway's histories, the fence's functions, triggers and DDL refusal, and no Liquibase table")
	void migratedByFlyway() throws SQLException {
		ShardTenancy tenancy = context.getBean(ShardTenancy.class);
		assertThat(tables(tenancy.directoryDataSource())).contains("shard_tenancy_schema_history",
				"shard_directory_entry", "shard_registry").doesNotContain("databasechangelog");
		assertThat(count(tenancy.directoryDataSource(),
				"SELECT count(*) FROM pg_trigger WHERE tgname = 'shard_directory_notify'")).isEqualTo(1);
		for (String shardId : PostgresCluster.SHARD_IDS) {
			DataSource shard = tenancy.topology().dataSource(shardId);
			assertThat(tables(shard)).as(shardId)
				.contains("shard_tenancy_schema_history", "flyway_schema_history", "shard_fence", "purchase_order")
				.doesNotContain("databasechangelog");
			assertThat(count(shard, "SELECT count(*) FROM pg_trigger WHERE tgname = 'shard_fence_write_check' "
					+ "AND tgrelid = 'purchase_order'::regclass")).as("the write check on the application's table")
				.isEqualTo(1);
			assertThat(count(shard, "SELECT count(*) FROM pg_event_trigger WHERE evtname = 'shard_fence_ddl_check'"))
				.isEqualTo(1);
		}
	}

	@Test
	@DisplayName("a stale instance's @Transactional write is rejected by the Flyway-installed fence and retried on the new owner")
	void staleRouteIsRejectedAndRetried() throws SQLException {
		String tenant = PostgresCluster.tenant("fw-boot");
		ShardTenancy tenancy = context.getBean(ShardTenancy.class);
		OrderService orders = context.getBean(OrderService.class);
		AttemptRecorder attempts = context.getBean(AttemptRecorder.class);
		Router router = Internals.router(tenancy);
		context.getBean(TenantAdmin.class).create(tenant, "shard-1");
		TenantContext.runAs(tenant, () -> orders.place("before the move"));
		Router otherInstance = new Router(Internals.directory(tenancy), RouterSettings.defaults());
		new Mover(Internals.directory(tenancy), otherInstance, Internals.topology(tenancy),
				List.of(new TenantTable("purchase_order", "tenant_id")), "fw-op", Runnable::run)
			.moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
		assertThat(router.cached(tenant)).get().satisfies((e) -> assertThat(e.shardId()).isEqualTo("shard-1"));
		attempts.reset();
		orders.reset();

		TenantContext.runAs(tenant, () -> orders.place("after the move"));

		assertThat(attempts.retries()).isEqualTo(1);
		assertThat(router.cached(tenant)).get().satisfies((e) -> assertThat(e.shardId()).isEqualTo("shard-2"));
		ShardTopology topology = tenancy.topology();
		assertThat(count(topology.dataSource("shard-2"),
				"SELECT count(*) FROM purchase_order WHERE tenant_id = '" + tenant + "'")).isEqualTo(2);
		assertThat(count(topology.dataSource("shard-1"),
				"SELECT count(*) FROM purchase_order WHERE tenant_id = '" + tenant + "'")).isZero();
	}

	@Test
	@DisplayName("a shard registered at runtime is migrated by Flyway before it is recorded; one whose application migration fails is not recorded, and the others keep routing")
	void runtimeShards() throws SQLException {
		TenantAdmin admin = context.getBean(TenantAdmin.class);
		PostgresServer server = cluster.shard("shard-3");
		String url = createDatabase(server, "fw_extra");
		admin.registerShard("shard-4", "eu", pool(url, server));
		DataSource shard4 = context.getBean(ShardTopology.class).dataSource("shard-4");
		assertThat(tables(shard4)).contains("shard_tenancy_schema_history", "flyway_schema_history", "shard_fence",
				"purchase_order");
		assertThat(count(shard4, "SELECT count(*) FROM pg_trigger WHERE tgname = 'shard_fence_write_check' "
				+ "AND tgrelid = 'purchase_order'::regclass")).isEqualTo(1);
		String onShard4 = PostgresCluster.tenant("fw-rt");
		admin.create(onShard4, "shard-4");
		TenantContext.runAs(onShard4, () -> context.getBean(OrderService.class).place("on the new shard"));
		assertThat(count(shard4, "SELECT count(*) FROM purchase_order WHERE tenant_id = '" + onShard4 + "'"))
			.isEqualTo(1);

		String badUrl = createDatabase(server, "fw_bad");
		try (Connection c = java.sql.DriverManager.getConnection(badUrl, server.user(), server.password());
				PreparedStatement ps = c.prepareStatement("CREATE TABLE purchase_order (something int)")) {
			ps.execute(); // the application's V1 cannot create its table over this one
		}
		assertThatThrownBy(() -> admin.registerShard("shard-bad", "eu", pool(badUrl, server)))
			.hasStackTraceContaining("Flyway migration (the application's migrations) failed on shard 'shard-bad'");
		assertThat(admin.shards()).extracting(ShardRecord::shardId).doesNotContain("shard-bad").contains("shard-4");
		assertThat(context.getBean(ShardTopology.class).shardIds()).doesNotContain("shard-bad");
		String elsewhere = PostgresCluster.tenant("fw-ok");
		admin.create(elsewhere, "shard-1");
		TenantContext.runAs(elsewhere, () -> context.getBean(OrderService.class).place("still routing"));
	}

}
