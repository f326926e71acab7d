package io.github.shardtenancy.sample.nightly;

import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.boot.task.TransactionalTenantTasks;
import io.github.shardtenancy.sample.orders.OrderService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A nightly job for every tenant: calls the application's own {@link OrderService#countOrders()} for each tenant in its
 * own transaction, through {@link TransactionalTenantTasks#mapEachTenant} (the tenant bound, a transaction of the
 * application's transaction manager, the library's retry). The run is named after the day, so a second trigger on the
 * same day (a restart, a retry after a crash) runs only the tenants not done yet. On when {@code sample.nightly.enabled=true}; scheduled by
 * {@code sample.nightly.cron} (default 02:00 every day).
 */
@Component
@ConditionalOnBooleanProperty("sample.nightly.enabled")
public class NightlyOrderCount {

	private static final Logger log = LoggerFactory.getLogger(NightlyOrderCount.class);

	private final TransactionalTenantTasks tasks;

	private final OrderService orders;

	private final Clock clock;

	private final int perShard;

	private final List<Map<String, TenantTaskResult<Long>>> runs = new CopyOnWriteArrayList<>();

	/**
	 * @param tasks runs the work per tenant
	 * @param orders counts a tenant's orders
	 * @param perShard the most tenants counted at once per shard ({@code sample.nightly.per-shard}, default 2)
	 */
	public NightlyOrderCount(TransactionalTenantTasks tasks, OrderService orders,
			@Value("${sample.nightly.per-shard:2}") int perShard) {
		this.tasks = tasks;
		this.orders = orders;
		this.clock = Clock.systemUTC();
		this.perShard = perShard;
	}

	/** Runs (or resumes) today's run and waits for it; one tenant's failure is logged, the others go on. */
	@Scheduled(cron = "${sample.nightly.cron:0 0 2 * * *}")
	public void run() {
		String name = "nightly-order-count-" + LocalDate.now(this.clock);
		Map<String, TenantTaskResult<Long>> results = this.tasks
			.mapEachTenant(TenantTaskOptions.named(name).perShard(this.perShard), (tenant) -> this.orders.countOrders())
			.await();
		this.runs.add(results);
		results.values()
			.stream()
			.filter((result) -> result.status() == TenantTaskResult.Status.FAILED)
			.forEach((result) -> log.warn("{}: tenant {} failed: {}", name, result.tenantId(), result.error()));
		log.info("{}: {} tenants, {} counted now", name, results.size(), results.values()
			.stream()
			.filter((result) -> result.status() == TenantTaskResult.Status.DONE)
			.count());
	}

	/** @return the outcomes of every run so far, oldest first */
	public List<Map<String, TenantTaskResult<Long>>> runs() {
		return List.copyOf(this.runs);
	}

}
