package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.util.Map;

import io.github.shardtenancy.admin.TenantAdmin;
import io.github.shardtenancy.benchmarks.BenchApps.Db;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import io.github.shardtenancy.routing.TenantRouter;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Figure 1, routing overhead: tenant-scoped JPA transactions per second (read an order, modify it, insert an order
 * line, commit) through the library's Boot auto-configuration versus the same code as plain Spring Data JPA on one
 * HikariCP pool, on the same database server, 4 threads. The two sides alternate round by round after a warm-up of
 * each, so drift of a shared machine hits both; the ratio is of the summed rounds.
 */
final class RoutingOverheadFigure {

	private RoutingOverheadFigure() {
	}

	private static double add(Workload.Result result, long[] into) {
		into[0] += result.committed();
		into[1] += result.workerCpuNanos();
		return result.transactionsPerSecond();
	}

	static Figure run(String database, double goal, Db directory, Db shard, Db plainDb, Sizes sizes,
			String roundTripNote) throws InterruptedException {
		String name = "routing overhead, " + database + " (tx/s, " + sizes.threads() + " threads)";
		try (ConfigurableApplicationContext plain = BenchApps.plain(plainDb);
				ConfigurableApplicationContext library = BenchApps.library(directory, Map.of("shard-1", shard),
						Map.of())) {
			OrderService plainService = plain.getBean(OrderService.class);
			OrderService libraryService = library.getBean(OrderService.class);
			TenantAdmin admin = library.getBean(TenantAdmin.class);
			Workload plainLoad = Workload.create(plainService, "p", sizes.threads(), sizes.tenantsPerThread(),
					(tenant) -> {
					});
			Workload libraryLoad = Workload.create(libraryService, "l", sizes.threads(), sizes.tenantsPerThread(),
					(tenant) -> admin.create(tenant, "shard-1"));
			plainLoad.run(plainService, sizes.warmup());
			libraryLoad.run(libraryService, sizes.warmup());
			double plainSum = 0;
			double librarySum = 0;
			long[] plainCpu = new long[2];
			long[] libraryCpu = new long[2];
			for (int r = 0; r < sizes.rounds(); r++) {
				plainSum += add(plainLoad.measure(plainService, sizes.round()), plainCpu);
				librarySum += add(libraryLoad.measure(libraryService, sizes.round()), libraryCpu);
			}
			double plainTps = plainSum / sizes.rounds();
			double libraryTps = librarySum / sizes.rounds();
			double ratio = libraryTps / plainTps;
			double plainMicros = plainCpu[1] / 1e3 / Math.max(1, plainCpu[0]);
			double libraryMicros = libraryCpu[1] / 1e3 / Math.max(1, libraryCpu[0]);
			long misses = library.getBean(TenantRouter.class).stats().directoryReads();
			String note = fmt("worker-thread CPU per transaction: plain %.0f us, library %.0f us (plain/library %.2f; "
					+ "less disturbed by other load than tx/s%s). ", plainMicros, libraryMicros,
					plainMicros / libraryMicros, database.startsWith("H2") ? ", and includes H2's own work"
							: "; the server's work is not in it")
					+ fmt("directory reads during the run: %d (all routes were cache hits after the first). ", misses)
					+ (ratio >= goal ? "" : roundTripNote);
			return new Figure(name, fmt("%.0f tx/s", plainTps), fmt("%.0f tx/s", libraryTps), ratio,
					fmt(">= %.2f", goal), Figure.verdict(ratio >= goal), note.trim());
		}
	}

}
