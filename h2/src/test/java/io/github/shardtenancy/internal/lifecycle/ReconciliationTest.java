package io.github.shardtenancy.internal.lifecycle;

import java.sql.Connection;
import java.util.UUID;

import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.ReconciliationReport.MisplacedRows;
import io.github.shardtenancy.ReconciliationReport.MissingRows;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import io.github.shardtenancy.internal.topology.Topology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@DisplayName("Reconciliation of the directory with the shards")
class ReconciliationTest {

	@Test
	void findsARowPlantedOnANonOwnerShardAndATenantWhoseRowsAreMissing() throws Exception {
		try (LifecycleFixture f = LifecycleFixture.create("reconcile", 3)) {
			f.lifecycle.create("acme", PlacementRequest.onShard("shard-1"));
			f.lifecycle.create("globex", PlacementRequest.onShard("shard-2"));
			f.lifecycle.create("initech", PlacementRequest.onShard("shard-3"));
			f.insertNote("acme", "a");
			f.insertNote("globex", "g");
			f.insertNote("initech", "i");
			Reconciler reconciler = new Reconciler(f.core.directory(), f.core.topology(), ShardTenancyFixture.TABLES);
			assertThat(reconciler.lastReport()).isEmpty();
			assertThat(reconciler.run().isClean()).as("consistent to begin with").isTrue();

			plant(f.core.topology().shard("shard-2"), "acme"); // a row of acme on a shard that does not own it
			plant(f.core.topology().shard("shard-3"), "ghost"); // a row of a tenant the directory does not know
			asMover(f.core.topology().shard("shard-2"), "globex", "DELETE FROM note WHERE tenant_id = 'globex'");

			ReconciliationReport report = reconciler.run();

			assertThat(report.isClean()).isFalse();
			assertThat(report.shardsChecked()).containsExactly("shard-1", "shard-2", "shard-3");
			assertThat(report.tenantsChecked()).isEqualTo(3);
			assertThat(report.misplaced()).containsExactly(
					new MisplacedRows("shard-2", "acme", "note", 1, "shard-1",
							io.github.shardtenancy.TenantState.ACTIVE),
					new MisplacedRows("shard-3", "ghost", "note", 1, null, null));
			assertThat(report.missing()).extracting(MissingRows::tenantId, MissingRows::ownerShardId)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("globex", "shard-2"));
			assertThat(report.unreachable()).isEmpty();
			assertThat(reconciler.lastReport()).containsSame(report);
		}
	}

	/** Writes a row as the mover does (the fence lets a mover connection through), bypassing routing. */
	private static void plant(Topology.Shard shard, String tenant) throws Exception {
		asMover(shard, tenant, "INSERT INTO note (id, tenant_id, body) VALUES ('" + UUID.randomUUID() + "', '"
				+ tenant + "', 'planted')");
	}

	private static void asMover(Topology.Shard shard, String tenant, String sql) throws Exception {
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(false);
			shard.dialect().beginMover(c, tenant);
			c.createStatement().execute(sql);
			c.commit();
			shard.dialect().end(c);
			c.setAutoCommit(true);
		}
	}

}
