package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.util.Map;
import java.util.function.LongSupplier;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.benchmarks.BenchApps.Db;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import io.github.shardtenancy.internal.routing.Router;
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

	/** Sums of the measured rounds of one side: committed transactions, worker CPU, server CPU (ns, -1 if unknown). */
	private static double add(Workload.Result result, long[] into, long serverCpu) {
		into[0] += result.committed();
		into[1] += result.workerCpuNanos();
		into[2] = (into[2] < 0 || serverCpu < 0) ? -1 : into[2] + serverCpu;
		return result.transactionsPerSecond();
	}

	private static double measure(Workload load, OrderService service, Sizes sizes, LongSupplier serverCpu,
			long[] into) throws InterruptedException {
		long before = serverCpu != null ? serverCpu.getAsLong() : -1;
		Workload.Result result = load.measure(service, sizes.round());
		long after = serverCpu != null ? serverCpu.getAsLong() : -1;
		return add(result, into, (before < 0 || after < 0) ? -1 : after - before);
	}

	private static String functionsNote(java.util.function.Supplier<String> serverFunctions) {
		String calls = serverFunctions != null ? serverFunctions.get() : "";
		return calls.isEmpty() ? "" : "PL/pgSQL on the shard per committed transaction (the plain database runs none): "
				+ calls + " (self time is wall-clock, so it includes waiting for a CPU). ";
	}

	private static String serverNote(long[] plain, long[] library) {
		if (plain[2] <= 0 || library[2] <= 0 || plain[0] == 0 || library[0] == 0) {
			return "";
		}
		double plainServer = plain[2] / 1e3 / plain[0];
		double libraryServer = library[2] / 1e3 / library[0];
		double plainTotal = plainServer + plain[1] / 1e3 / plain[0];
		double libraryTotal = libraryServer + library[1] / 1e3 / library[0];
		return fmt("Server processes' CPU per transaction: plain %.0f us, library %.0f us; worker + server: plain %.0f us, "
				+ "library %.0f us (plain/library %.2f, the throughput ratio a CPU-bound machine would give). ",
				plainServer, libraryServer, plainTotal, libraryTotal, plainTotal / libraryTotal);
	}

	/**
	 * @param plainServerCpu CPU used so far by the baseline's database server processes (ns), or {@code null} when the
	 * database runs inside the workers (H2)
	 * @param libraryServerCpu the same for the library's shard
	 * @param serverFunctions the server's PL/pgSQL calls per transaction on the shard, read after the run, or
	 * {@code null}
	 */
	static Figure run(String database, double goal, Db directory, Db shard, Db plainDb, Sizes sizes,
			String roundTripNote, LongSupplier plainServerCpu, LongSupplier libraryServerCpu,
			java.util.function.Supplier<String> serverFunctions) throws InterruptedException {
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
			long[] plainCpu = new long[3];
			long[] libraryCpu = new long[3];
			for (int r = 0; r < sizes.rounds(); r++) {
				// Alternate which side goes first, so that neither always follows the other's after-effects.
				if (r % 2 == 0) {
					plainSum += measure(plainLoad, plainService, sizes, plainServerCpu, plainCpu);
					librarySum += measure(libraryLoad, libraryService, sizes, libraryServerCpu, libraryCpu);
				}
				else {
					librarySum += measure(libraryLoad, libraryService, sizes, libraryServerCpu, libraryCpu);
					plainSum += measure(plainLoad, plainService, sizes, plainServerCpu, plainCpu);
				}
			}
			double plainTps = plainSum / sizes.rounds();
			double libraryTps = librarySum / sizes.rounds();
			double ratio = libraryTps / plainTps;
			double plainMicros = plainCpu[1] / 1e3 / Math.max(1, plainCpu[0]);
			double libraryMicros = libraryCpu[1] / 1e3 / Math.max(1, libraryCpu[0]);
			long misses = Internals.router(library.getBean(ShardTenancy.class)).stats().directoryReads();
			String note = fmt("worker-thread CPU per transaction: plain %.0f us, library %.0f us (plain/library %.2f; "
					+ "less disturbed by other load than tx/s%s). ", plainMicros, libraryMicros,
					plainMicros / libraryMicros, database.startsWith("H2") ? ", and includes H2's own work"
							: "; the server's work is not in it")
					+ serverNote(plainCpu, libraryCpu)
					+ functionsNote(serverFunctions)
					+ fmt("directory reads during the run: %d (all routes were cache hits after the first). ", misses)
					+ (ratio >= goal ? "" : roundTripNote);
			return new Figure(name, fmt("%.0f tx/s", plainTps), fmt("%.0f tx/s", libraryTps), ratio,
					fmt(">= %.2f", goal), Figure.verdict(ratio >= goal), note.trim());
		}
	}

}
