package io.github.shardtenancy.boot.opsapp;

import java.util.List;

import io.github.shardtenancy.admin.TenantTable;
import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.routing.TenantRouter;
import io.github.shardtenancy.topology.ShardTopology;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.TenantMover;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The operations test application: an audit entity written after commit by an {@code @Async} service, a scheduled
 * job, a web controller (open session in view is on, as Boot's default) and an online mover for the endpoint.
 */
@SpringBootApplication
@EnableAsync
@EnableScheduling
public class OpsApplication {

	/** The mover the endpoint starts moves with; the change capture it needs is installed here. */
	@Bean
	TenantMover tenantMover(Directory directory, TenantRouter router, ShardTopology topology)
			throws java.sql.SQLException {
		List<TenantTable> resolved = List.of(new TenantTable("audit_entry", "tenant_id"));
		for (String shardId : topology.shardIds()) {
			ShardTopology.Shard shard = topology.shard(shardId);
			try (java.sql.Connection c = shard.dataSource().getConnection()) {
				for (TenantTable table : resolved) {
					shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
				}
			}
		}
		return new Mover(directory, router, topology, resolved, "ops-tests", Runnable::run);
	}

}
