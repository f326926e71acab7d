package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.boot.refapp.PetRepository;
import io.github.shardtenancy.boot.refapp.ReferenceApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link TenantTasks} bean in a Boot application on two H2 shards: a named run writes one row per tenant with
 * {@code JdbcTemplate} on the connection it is given, the rows are seen through the tenant's Spring Data repository,
 * and a scatter-gather query finds every tenant's row over both shards.
 */
@SpringBootTest(classes = ReferenceApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:tasks-boot-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:tasks-boot-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:tasks-boot-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/testing/pets.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.actor=tasks-tests" })
class TenantTasksTests {

	@Autowired
	private TenantTasks tasks;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ReferenceTables referenceTables;

	@Autowired
	private PetRepository pets;

	@Test
	@DisplayName("a named run through the bean: one row per tenant, seen by the repository and by scatter-gather")
	void runThroughTheBean() throws Exception {
		this.referenceTables.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1,
				"cat")));
		List<String> tenants = List.of("boot-a", "boot-b", "boot-c", "boot-d");
		for (int i = 0; i < tenants.size(); i++) {
			this.admin.create(tenants.get(i), "shard-" + (1 + i % 2));
		}
		Map<String, TenantTaskResult<Integer>> results = this.tasks
			.start(TenantTaskOptions.named("boot-run").tenants(tenants).perShard(2),
					(tenant, connection) -> new JdbcTemplate(new SingleConnectionDataSource(connection, true)).update(
							"INSERT INTO pet (id, tenant_id, name, type_id) VALUES (?, ?, ?, 1)", UUID.randomUUID(),
							tenant, "pet of " + tenant))
			.await();

		assertThat(results.values()).allMatch((r) -> r.status() == TenantTaskResult.Status.DONE && r.value() == 1);
		for (String tenant : tenants) {
			assertThat(TenantContext.callAs(tenant, () -> this.pets.count())).as(tenant).isEqualTo(1);
		}
		ShardQueryResult<String> all = this.tasks.queryAllShards("SELECT tenant_id FROM pet", List.of(),
				(shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(all.complete()).isTrue();
		assertThat(all.rows()).containsExactlyInAnyOrderElementsOf(tenants);
	}

}
