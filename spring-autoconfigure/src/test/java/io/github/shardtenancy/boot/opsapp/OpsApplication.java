package io.github.shardtenancy.boot.opsapp;

import java.util.List;

import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
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
	TenantMover tenantMover(Directory directory, Router router, Topology topology)
			throws java.sql.SQLException {
		List<TenantTable> resolved = List.of(new TenantTable("audit_entry", "tenant_id"));
		for (String shardId : topology.shardIds()) {
			Topology.Shard shard = topology.shard(shardId);
			try (java.sql.Connection c = shard.dataSource().getConnection()) {
				for (TenantTable table : resolved) {
					shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
				}
			}
		}
		return new Mover(directory, router, topology, resolved, "ops-tests", Runnable::run);
	}

}
