package io.github.shardtenancy.sample.nightly;

import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.sample.orders.OrderService;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The nightly job enabled and triggered every second on three real H2 shards: after several triggers of the same
 * day's run, every tenant was counted exactly once (one DONE outcome over all runs, one completion mark over all
 * shards, read with a scatter-gather query), by the application's own {@code OrderService} in the run's transaction.
 */
@SpringBootTest(properties = { "sample.nightly.enabled=true", "sample.nightly.cron=* * * * * *",
		"shard-tenancy.directory.url=jdbc:h2:mem:nightly-test-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:nightly-test-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:nightly-test-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:nightly-test-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000" })
@DisplayName("The @Scheduled nightly job: every tenant once, however often it is triggered")
class NightlyOrderCountTest {

	@Autowired
	NightlyOrderCount job;

	@Autowired
	TenantTasks tasks;

	@Autowired
	TenantAdmin admin;

	@Autowired
	OrderService orders;

	@Test
	@DisplayName("triggers of the day's run count every tenant exactly once")
	void everyTenantOnce() throws Exception {
		// Triggers before the sample's tenants are seeded see fewer (or no) tenants; wait for three that see all.
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.job.runs().stream().filter((run) -> run.size() == 20).count() >= 3);
		List<String> tenants = new java.util.ArrayList<>();
		this.admin.snapshot((entry) -> {
			if (entry.state() != TenantState.DELETED) {
				tenants.add(entry.tenantId());
			}
		});
		assertThat(tenants).hasSize(20);

		Map<String, Integer> done = new HashMap<>();
		for (Map<String, TenantTaskResult<Long>> run : this.job.runs()) {
			assertThat(tenants).containsAll(run.keySet());
			run.values()
				.stream()
				.filter((result) -> result.status() == TenantTaskResult.Status.DONE)
				.forEach((result) -> done.merge(result.tenantId(), 1, Integer::sum));
		}
		assertThat(done).hasSize(20).allSatisfy((tenant, count) -> assertThat(count).as(tenant).isEqualTo(1));
		// Each DONE outcome carries what the application's OrderService counted in the tenant's transaction.
		for (Map<String, TenantTaskResult<Long>> run : this.job.runs()) {
			for (TenantTaskResult<Long> result : run.values()) {
				if (result.status() == TenantTaskResult.Status.DONE) {
					assertThat(result.value()).as(result.tenantId())
						.isEqualTo(TenantContext.callAs(result.tenantId(), this.orders::countOrders));
				}
			}
		}

		String today = "nightly-order-count-" + LocalDate.now(ZoneOffset.UTC);
		ShardQueryResult<String> marks = this.tasks.queryAllShards(
				"SELECT tenant_id FROM shard_task_log WHERE run_name = ?", List.of(today),
				(shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(marks.complete()).isTrue();
		assertThat(marks.rows()).containsExactlyInAnyOrderElementsOf(tenants);
	}

}
