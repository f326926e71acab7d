package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.orders.AttemptRecorder;
import io.github.shardtenancy.it.boot.orders.OrderService;
import io.github.shardtenancy.it.boot.orders.OrdersApplication;
import io.github.shardtenancy.it.boot.orders.PurchaseOrderRepository;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole Spring Boot stack on the PostgreSQL servers: the auto-configuration (migrations, write checks from the
 * metamodel, Hibernate multi-tenancy), Spring's JPA transactions and the automatic retry advice, with the test
 * application of the H2 integration tests ({@link OrdersApplication}) pointed at PostgreSQL.
 */
@DisplayName("PostgreSQL with Spring Boot: a stale instance's @Transactional write is rejected by the PL/pgSQL fence and retried")
class PostgresBootTest {

	static PostgresCluster cluster;

	static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		context = start("pg-boot", "shard-tenancy.sync.listen=false"); // no NOTIFY push: the fence must teach it
	}

	static ConfigurableApplicationContext start(String actor, String... extra) {
		return PostgresOrdersApp.start(cluster, actor, extra);
	}

	@Test
	@DisplayName("with the defaults, the auto-configured watcher listens for NOTIFY: a tenant another instance creates is routable at once, with no poll and no directory read on the lookup")
	void autoConfiguredWatcherAppliesAnotherInstancesChange() throws Exception {
		try (ConfigurableApplicationContext listening = start("pg-boot-listening")) {
			DirectoryWatcher watcher = listening.getBean(DirectoryWatcher.class);
			assertThat(watcher.awaitListening(java.time.Duration.ofSeconds(30))).isTrue();
			Router router = Internals.router(listening.getBean(ShardTenancy.class));
			String tenant = PostgresCluster.tenant("pushed");

			context.getBean(TenantAdmin.class).create(tenant, "shard-3"); // another instance writes the directory

			await("the pushed entry reaches the router").atMost(java.time.Duration.ofSeconds(30))
				.until(() -> router.cached(tenant).isPresent());
			assertThat(router.cached(tenant)).get().satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-3"));
			long reads = router.stats().directoryReads();
			assertThat(router.route(tenant).shardId()).isEqualTo("shard-3");
			assertThat(router.stats().directoryReads()).isEqualTo(reads);
			assertThat(watcher.status().notifications()).isPositive();
		}
	}

	@AfterAll
	static void stop() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	@DisplayName("staleBootInstanceIsRejectedAndRetriedOnNewOwner: one retry, the order lands on the new shard only; read-only repository calls work")
	void staleBootInstanceIsRejectedAndRetriedOnNewOwner() throws Exception {
		String tenant = PostgresCluster.tenant("boot");
		OrderService orders = context.getBean(OrderService.class);
		PurchaseOrderRepository repository = context.getBean(PurchaseOrderRepository.class);
		AttemptRecorder attempts = context.getBean(AttemptRecorder.class);
		Router router = Internals.router(context.getBean(ShardTenancy.class));
		context.getBean(TenantAdmin.class).create(tenant, "shard-1");
		TenantContext.runAs(tenant, () -> orders.place("before the move"));

		try (AppInstance operator = AppInstance.plain(cluster, "boot-op", RouterSettings.defaults(), 2)) {
			new Mover(operator.directory, operator.router, operator.topology,
					List.of(new TenantTable("purchase_order", "tenant_id")), "boot-op", Runnable::run)
				.moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
		}
		assertThat(router.cached(tenant)).get().satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-1"));
		attempts.reset();
		orders.reset();

		TenantContext.runAs(tenant, () -> orders.place("after the move"));

		assertThat(attempts.retries()).isEqualTo(1);
		// The rejected attempt entered the body: the fence begin travels with its first statement, which the shard
		// rejected before it read or wrote anything; the retry ran the body again on the new owner.
		assertThat(orders.bodyRuns()).isEqualTo(2);
		assertThat(router.cached(tenant)).get().satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-2"));
		Topology topology = Internals.topology(context.getBean(ShardTenancy.class));
		assertThat(countOrders(topology, "shard-2", tenant)).isEqualTo(2);
		assertThat(countOrders(topology, "shard-1", tenant)).isZero();
		long counted = TenantContext.callAs(tenant, repository::count); // a read-only Spring Data transaction
		assertThat(counted).isEqualTo(2);
	}

	private static long countOrders(Topology topology, String shard, String tenant) throws SQLException {
		try (Connection c = topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM purchase_order WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
