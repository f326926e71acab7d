package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.benchmarks.BenchApps.Db;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import io.github.shardtenancy.internal.Internals;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Figure 1, routing overhead: tenant-scoped JPA transactions per second, and CPU per transaction, through the
 * library's Boot auto-configuration versus the same code as plain Spring Data JPA on one HikariCP pool, on the same
 * database server, {@link Sizes#threads()} threads, for each {@link Workload.Kind}.
 *
 * <p>How it measures: after a warm-up of each side, the two sides alternate round by round (which goes first
 * alternates too), so drift of a shared machine hits both. A round pair is dropped when the baseline's throughput in
 * it is below {@value #DISCARD_BELOW} of its best round (another process took the machine). The table shows the
 * medians of the kept rounds, the ratio being the median of the per-round ratios; the notes give their minimum and
 * maximum. CPU per transaction is the worker threads' CPU time plus every other Java thread's during the round
 * (ThreadMXBean) plus, on PostgreSQL, the time on a CPU of the side's server backends ({@code /proc/<pid>/schedstat}
 * of the backends of its databases), divided by the round's committed transactions. On PostgreSQL a counting pass per
 * side after the timed rounds counts, with {@code track_functions} and the driver's log on: round trips, WAL bytes,
 * MultiXacts and PL/pgSQL calls per transaction.
 */
final class RoutingOverheadFigure {

	/** A round pair is kept only if the baseline reached this share of its best round's throughput. */
	static final double DISCARD_BELOW = 0.60;

	/** The shortest run of a counting pass (the server's statistics are reported about once a second). */
	private static final Duration MIN_PASS = Duration.ofMillis(1200);

	/** Goal of CPU per transaction (client and server), library / plain. */
	static final double CPU_GOAL = 1.15;

	private RoutingOverheadFigure() {
	}

	/**
	 * The PostgreSQL server of a comparison and the databases of each side, for server CPU and the counting pass.
	 * @param server the server both sides use
	 * @param plainDatabase the baseline's database
	 * @param shardDatabase the library's shard database (the tenant tables)
	 * @param directoryDatabase the library's directory database
	 */
	record Postgres(BenchPostgres server, String plainDatabase, String shardDatabase, String directoryDatabase) {
	}

	/**
	 * One side's measurement in one round.
	 * @param result what the workers measured
	 * @param serverCpuNanos CPU of the side's server backends during the round (ns), 0 without a server, -1 unknown
	 * @param serverWideCpuNanos CPU of every process of the server during the round (ns), 0 without a server, -1
	 * unknown
	 */
	record Sample(Workload.Result result, long serverCpuNanos, long serverWideCpuNanos) {

		double tps() {
			return this.result.transactionsPerSecond();
		}

		/**
		 * @return client (workers and other Java threads) and server backends' CPU per transaction, us; NaN if the
		 * server's was not readable
		 */
		double cpuMicros() {
			return (this.serverCpuNanos < 0) ? Double.NaN : (this.result.clientCpuPerTransaction()
					+ this.serverCpuNanos / (double) Math.max(1, this.result.committed())) / 1e3;
		}

	}

	/** What a counting pass of one side counted per committed transaction. */
	record Counts(double roundTrips, double walBytes, double multiXacts, String functions) {
	}

	/**
	 * Measures every workload of {@code kinds} on one database, the two applications started once for all.
	 * @param database how the figures name the database, for example "PostgreSQL"
	 * @param kinds the workloads, in order
	 * @param goal the throughput goal (library / plain, at least)
	 * @param postgres the server and databases, or {@code null} when the database runs inside the workers (H2)
	 * @return for each workload a throughput figure and a CPU figure
	 */
	static List<Figure> run(String database, List<Workload.Kind> kinds, double goal, Db directory, Db shard,
			Db plainDb, Sizes sizes, String roundTripNote, Postgres postgres) throws InterruptedException {
		List<Figure> figures = new ArrayList<>();
		try (ConfigurableApplicationContext plain = BenchApps.plain(plainDb);
				ConfigurableApplicationContext library = BenchApps.library(directory, Map.of("shard-1", shard),
						Map.of())) {
			OrderService plainService = plain.getBean(OrderService.class);
			OrderService libraryService = library.getBean(OrderService.class);
			TenantAdmin admin = library.getBean(TenantAdmin.class);
			ShardTenancy tenancy = library.getBean(ShardTenancy.class);
			// The first workload warms the JVM up; the later ones only their own code paths.
			Duration warmup = sizes.warmup();
			for (Workload.Kind kind : kinds) {
				BenchmarkHarness.progress("routing overhead, " + database + ", " + kind.label);
				Workload plainLoad = Workload.create(kind, plainService, "p" + kind.keySuffix, sizes.threads(),
						sizes.tenantsPerThread(), (tenant) -> {
						});
				Workload libraryLoad = Workload.create(kind, libraryService, "l" + kind.keySuffix, sizes.threads(),
						sizes.tenantsPerThread(), (tenant) -> admin.create(tenant, "shard-1"));
				plainLoad.run(plainService, warmup);
				libraryLoad.run(libraryService, warmup);
				warmup = sizes.warmup().dividedBy(2);
				LongSupplier plainServer = (postgres != null) ? postgres.server().backendCpu(postgres.plainDatabase())
						: null;
				LongSupplier libraryServer = (postgres != null) ? postgres.server()
					.backendCpu(postgres.shardDatabase(), postgres.directoryDatabase()) : null;
				Sample[][] rounds = new Sample[sizes.rounds()][2];
				for (int r = 0; r < sizes.rounds(); r++) {
					// Alternate which side goes first, so that neither always follows the other's after-effects.
					if (r % 2 == 0) {
						rounds[r][0] = measure(plainLoad, plainService, sizes.round(), plainServer, postgres);
						rounds[r][1] = measure(libraryLoad, libraryService, sizes.round(), libraryServer, postgres);
					}
					else {
						rounds[r][1] = measure(libraryLoad, libraryService, sizes.round(), libraryServer, postgres);
						rounds[r][0] = measure(plainLoad, plainService, sizes.round(), plainServer, postgres);
					}
				}
				Counts plainCounts = null;
				Counts libraryCounts = null;
				if (postgres != null) {
					plainCounts = count(plainLoad, plainService, sizes.round(), postgres.server(),
							postgres.plainDatabase());
					libraryCounts = count(libraryLoad, libraryService, sizes.round(), postgres.server(),
							postgres.shardDatabase());
				}
				long misses = Internals.router(tenancy).stats().directoryReads();
				figures.addAll(figures(database, kind, goal, sizes, rounds, plainCounts, libraryCounts, misses,
						roundTripNote));
			}
		}
		return figures;
	}

	private static Sample measure(Workload load, OrderService service, Duration round, LongSupplier serverCpu,
			Postgres postgres) throws InterruptedException {
		long before = (serverCpu != null) ? serverCpu.getAsLong() : 0;
		long wideBefore = (postgres != null) ? postgres.server().serverCpu() : 0;
		Workload.Result result = load.measure(service, round);
		long wideAfter = (postgres != null) ? postgres.server().serverCpu() : 0;
		long after = (serverCpu != null) ? serverCpu.getAsLong() : 0;
		return new Sample(result, delta(before, after), delta(wideBefore, wideAfter));
	}

	private static long delta(long before, long after) {
		return (before < 0 || after < 0) ? -1 : after - before;
	}

	/**
	 * The counting pass of one side: a run of the workload with the driver's log counting round trips and
	 * {@code track_functions} on, between two checkpoints that read the WAL position and the next MultiXact id.
	 */
	private static Counts count(Workload load, OrderService service, Duration duration, BenchPostgres server,
			String database) throws InterruptedException {
		server.trackFunctions(true);
		try {
			// Sessions report statistics at most once a second: a run of over a second first, so that every pooled
			// session has applied the setting and reported the timed rounds' counts, then a clean slate, and a run
			// of over a second, so that what is counted comes from sessions counting calls.
			Duration pass = duration.compareTo(MIN_PASS) > 0 ? duration : MIN_PASS;
			load.measure(service, pass);
			server.resetStatistics(database);
			BenchPostgres.ServerCounters before = server.serverCounters();
			Workload.Result result;
			long roundTrips;
			try (RoundTrips.Counter counter = new RoundTrips.Counter(load.threadName() + "-")) {
				result = load.measure(service, pass);
				roundTrips = counter.roundTrips();
			}
			BenchPostgres.ServerCounters after = server.serverCounters();
			double tx = Math.max(1, result.committed());
			return new Counts(roundTrips / tx, (after.walBytes() - before.walBytes()) / tx,
					(after.nextMultiXactId() - before.nextMultiXactId()) / tx,
					server.functionCallsPerTransaction(database));
		}
		finally {
			server.trackFunctions(false);
		}
	}

	static List<Figure> figures(String database, Workload.Kind kind, double goal, Sizes sizes,
			Sample[][] rounds, Counts plainCounts, Counts libraryCounts, long directoryReads, String roundTripNote) {
		double best = Arrays.stream(rounds).mapToDouble((r) -> r[0].tps()).max().orElse(0);
		List<Sample[]> kept = Arrays.stream(rounds).filter((r) -> r[0].tps() >= DISCARD_BELOW * best).toList();
		double[] tpsRatios = per(kept, (r) -> r[1].tps() / r[0].tps());
		double[] cpuRatios = per(kept, (r) -> r[1].cpuMicros() / r[0].cpuMicros());
		double tpsRatio = median(tpsRatios);
		double cpuRatio = median(cpuRatios);
		String workload = (kind == Workload.Kind.WRITE) ? "" : ", " + kind.label;
		String roundsNote = fmt("%d of %d rounds of %d ms per side kept (dropped: baseline below %.0f %% of its best "
				+ "round); ", kept.size(), rounds.length, sizes.round().toMillis(), DISCARD_BELOW * 100);
		String throughputNote = roundsNote
				+ fmt("per-round ratio median %.2f, min %.2f, max %.2f; CPU per transaction library/plain median "
						+ "%.2f, min %.2f, max %.2f (next row). ", tpsRatio, min(tpsRatios), max(tpsRatios), cpuRatio,
						min(cpuRatios), max(cpuRatios))
				+ fmt("Directory reads so far: %d (routes are cache hits after the first). ", directoryReads)
				+ (tpsRatio >= goal ? "" : roundTripNote);
		Figure throughput = new Figure(
				"routing overhead, " + database + workload + " (tx/s, " + sizes.threads() + " threads)",
				fmt("%.0f tx/s", median(per(kept, (r) -> r[0].tps()))),
				fmt("%.0f tx/s", median(per(kept, (r) -> r[1].tps()))), tpsRatio, fmt(">= %.2f", goal),
				Figure.verdict(tpsRatio >= goal), throughputNote.trim());
		boolean server = plainCounts != null;
		String cpuNote = roundsNote + fmt("per-round ratio median %.2f, min %.2f, max %.2f. ", cpuRatio, min(cpuRatios),
				max(cpuRatios)) + "Medians per transaction, plain / library: "
				+ breakdown("worker threads", kept, (s) -> perTransaction(s, s.result().workerCpuNanos()))
				+ breakdown("other Java threads", kept, (s) -> perTransaction(s, s.result().otherThreadsCpuNanos()))
				+ (server ? breakdown("the side's server backends", kept, (s) -> perTransaction(s, s.serverCpuNanos()))
						+ breakdown("every server process (background work included)", kept,
								(s) -> perTransaction(s, s.serverWideCpuNanos()))
						: "(H2 runs inside the worker threads) ")
				+ breakdown("whole JVM process (GC and JIT included)", kept,
						(s) -> perTransaction(s, s.result().processCpuNanos()))
				+ (server ? countsNote(plainCounts, libraryCounts) : "");
		String cpuName = "CPU per transaction, " + database + workload + " (client + server, us)";
		if (Double.isNaN(cpuRatio)) {
			return List.of(throughput, Figure.notMeasured(cpuName, fmt("<= %.2f", CPU_GOAL),
					"the server processes' CPU time was not readable (/proc/<pid>/schedstat)"));
		}
		Figure cpu = new Figure(cpuName,
				fmt("%.0f us", median(per(kept, (r) -> r[0].cpuMicros()))),
				fmt("%.0f us", median(per(kept, (r) -> r[1].cpuMicros()))), cpuRatio, fmt("<= %.2f", CPU_GOAL),
				Figure.verdict(cpuRatio <= CPU_GOAL), cpuNote.trim());
		return List.of(throughput, cpu);
	}

	/** @return the CPU time per committed transaction in us, NaN if it was not measured (negative) */
	private static double perTransaction(Sample s, long nanos) {
		return (nanos < 0) ? Double.NaN : nanos / 1e3 / Math.max(1, s.result().committed());
	}

	private static String breakdown(String what, List<Sample[]> kept, ToDoubleFunction<Sample> micros) {
		return fmt("%s %.0f / %.0f us; ", what, median(per(kept, (r) -> micros.applyAsDouble(r[0]))),
				median(per(kept, (r) -> micros.applyAsDouble(r[1]))));
	}

	private static String countsNote(Counts plain, Counts library) {
		return fmt("Counting pass (after the timed rounds, driver log and track_functions on), per committed "
				+ "transaction, plain / library: round trips (pgjdbc Sync messages) %.2f / %.2f; WAL %.0f / %.0f "
				+ "bytes; MultiXacts %.3f / %.3f; PL/pgSQL calls on the shard: %s.", plain.roundTrips(),
				library.roundTrips(), plain.walBytes(), library.walBytes(), plain.multiXacts(), library.multiXacts(),
				library.functions().isEmpty() ? "none" : library.functions());
	}

	private static double[] per(List<Sample[]> rounds, ToDoubleFunction<Sample[]> value) {
		return rounds.stream().mapToDouble(value).toArray();
	}

	static double median(double[] values) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int mid = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	}

	private static double min(double[] values) {
		return Arrays.stream(values).min().orElse(Double.NaN);
	}

	private static double max(double[] values) {
		return Arrays.stream(values).max().orElse(Double.NaN);
	}

}
