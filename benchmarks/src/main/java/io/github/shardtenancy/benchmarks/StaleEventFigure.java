package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.benchmarks.BenchApps.Db;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import io.github.shardtenancy.benchmarks.app.library.RetryCounter;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Figure 6, the cost of a stale event, counted rather than timed: the application (library auto-configuration on H2,
 * two shards, background sync at one hour so nothing refreshes behind our back) has a tenant cached on shard-1;
 * another process (its own directory pool, router and topology) moves the tenant to shard-2. The application's next
 * transaction is rejected by the source's fence, retried, and commits on shard-2. Counted from
 * {@link Router#stats()} (directory reads) and the service's attempt counter, against the same transaction on a
 * tenant whose route is fresh.
 */
final class StaleEventFigure {

	private StaleEventFigure() {
	}

	static Figure run(String suffix) throws Exception {
		String name = "cost of a stale event (counted, per rejection)";
		Db directory = Db.h2("bench-stale-directory-" + suffix);
		Db shard1 = Db.h2("bench-stale-shard-1-" + suffix);
		Db shard2 = Db.h2("bench-stale-shard-2-" + suffix);
		try (ConfigurableApplicationContext app = BenchApps.library(directory,
				Map.of("shard-1", shard1, "shard-2", shard2), Map.of("shard-tenancy.sync.interval", "1h"))) {
			OrderService service = app.getBean(OrderService.class);
			Router router = Internals.router(app.getBean(ShardTenancy.class));
			RetryCounter retries = app.getBean(RetryCounter.class);
			TenantAdmin admin = app.getBean(TenantAdmin.class);
			String fresh = "stale-fresh";
			String moved = "stale-moved";
			UUID freshOrder = UUID.randomUUID();
			UUID movedOrder = UUID.randomUUID();
			for (String[] t : new String[][] { { fresh, freshOrder.toString() }, { moved, movedOrder.toString() } }) {
				admin.create(t[0], "shard-1");
				TenantContext.runAs(t[0], () -> service.createOrder(UUID.fromString(t[1])));
				TenantContext.runAs(t[0], () -> service.addLine(UUID.fromString(t[1]), 1)); // route cached
			}

			// Baseline: a transaction on a tenant whose cached route is current.
			long[] baseline = count(service, retries, router, fresh, freshOrder);

			// Another process moves the tenant; this application's cache still says shard-1.
			moveElsewhere(directory, shard1, shard2, moved);
			long[] stale = count(service, retries, router, moved, movedOrder);

			long extraReads = stale[1] - baseline[1];
			long extraAttempts = stale[0] - baseline[0];
			boolean met = extraReads == 1 && extraAttempts == 1;
			return new Figure(name, fmt("%d attempt, %d directory reads (fresh route)", baseline[0], baseline[1]),
					fmt("%d attempts, %d directory reads", stale[0], stale[1]), (double) stale[0] / baseline[0],
					"exactly +1 read, +1 attempt", Figure.verdict(met),
					fmt("extra: %d directory read(s), %d attempt(s); ratio = attempts vs the fresh route", extraReads,
							extraAttempts));
		}
	}

	/**
	 * @return transaction attempts (one plus the retry layer's retries, which also counts attempts rejected at
	 * transaction begin, before the body ran) and directory reads one transaction cost
	 */
	private static long[] count(OrderService service, RetryCounter retries, Router router, String tenant,
			UUID order) {
		RouterStats before = router.stats();
		long retriesBefore = retries.retries();
		TenantContext.runAs(tenant, () -> service.addLine(order, 1));
		RouterStats after = router.stats();
		return new long[] { 1 + retries.retries() - retriesBefore,
				after.directoryReads() - before.directoryReads() };
	}

	private static void moveElsewhere(Db directory, Db shard1, Db shard2, String tenant) {
		try (HikariDataSource directoryPool = pool(directory);
				Topology topology = new Topology();
				Router otherRouter = new Router(new Directory(directoryPool),
						RouterSettings.defaults().withSyncInterval(Duration.ofHours(1)))) {
			topology.addShard("shard-1", config(shard1));
			topology.addShard("shard-2", config(shard2));
			Mover mover = new Mover(otherRouter.directory(), otherRouter, topology,
					List.of(new TenantTable("bench_order", "tenant_id"), new TenantTable("bench_order_line", "tenant_id")),
					"other-process", Runnable::run);
			mover.moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
		}
	}

	private static HikariDataSource pool(Db db) {
		return new HikariDataSource(config(db));
	}

	private static HikariConfig config(Db db) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(db.url());
		config.setUsername(db.user());
		config.setPassword(db.password());
		config.setMaximumPoolSize(2);
		return config;
	}

}
