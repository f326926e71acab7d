package io.github.shardtenancy.it.observability;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.boot.PostgresOrdersApp;
import io.github.shardtenancy.it.boot.orders.OrderService;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link FenceRejectionLoggingContract} on the PostgreSQL servers, where the fence's begin travels with the
 * transaction's first query: the rejection surfaces from a statement Hibernate runs, not from borrowing the
 * connection.
 */
@DisplayName("Fence rejections are logged once (PostgreSQL, Boot)")
class PostgresFenceRejectionLoggingTest extends FenceRejectionLoggingContract {

	private static ConfigurableApplicationContext a;

	private static ConfigurableApplicationContext b;

	@BeforeAll
	static void start() {
		PostgresCluster cluster = PostgresCluster.shared();
		// no NOTIFY push: instance A learns of B's move from the fence only
		a = PostgresOrdersApp.start(cluster, "pg-logging-a", "shard-tenancy.sync.listen=false");
		b = PostgresOrdersApp.start(cluster, "pg-logging-b", "shard-tenancy.sync.listen=false");
	}

	@AfterAll
	static void stop() {
		if (b != null) {
			b.close();
		}
		if (a != null) {
			a.close();
		}
	}

	@Override
	String movedByTheOtherInstance(String prefix) {
		String t = PostgresCluster.tenant(prefix);
		a.getBean(TenantAdmin.class).create(t, "shard-1");
		place(t, "before the move");
		b.getBean(TenantAdmin.class).move(t, "shard-2");
		return t;
	}

	@Override
	String staleOnShard1(String prefix) {
		String t = PostgresCluster.tenant(prefix);
		DirectoryEntry entry = a.getBean(TenantAdmin.class).create(t, "shard-1");
		ShardFence.set(a.getBean(ShardTopology.class).dataSource("shard-1"), "shard-1", t, FenceState.OWNED,
				entry.version() + 1_000);
		return t;
	}

	@Override
	void place(String tenant, String customer) {
		TenantContext.runAs(tenant, () -> a.getBean(OrderService.class).place(customer));
	}

	@Override
	long orders(String shard, String tenant, String customer) {
		return new JdbcTemplate(a.getBean(ShardTopology.class).dataSource(shard)).queryForObject(
				"SELECT count(*) FROM purchase_order WHERE tenant_id = ? AND customer = ?", Long.class, tenant, customer);
	}

}
