package io.github.shardtenancy.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.shardtenancy.benchmarks.BenchApps.Db;
import liquibase.Scope;
import liquibase.ui.LoggerUIService;

/**
 * Runs every benchmark figure side by side with its baseline in one run and prints one table (figure, baseline,
 * ours, ratio, goal, met?).
 *
 * <p>Usage: {@code BenchmarkHarness [--full|--smoke] [--out FILE] [--only FIGURES]
 * [--row-level-security|--no-row-level-security] [--profile]}. {@code --full} (the default) takes about 6 minutes;
 * {@code --smoke} takes seconds with tiny sizes and exists only to keep the harness compiling and running (its numbers
 * mean nothing). The table is also written to {@code FILE} (default {@code target/bench-results.md}). {@code --only} takes keys of {@link #FIGURES}: the routing
 * figure's workloads are {@code h2}, {@code pg} (write-only), {@code h2-web}, {@code pg-web} (80 % read-only) and
 * {@code h2-hot}, {@code pg-hot} (one hot tenant); {@code reference} is the cost of one reference write on 1, 2 and
 * 4 PostgreSQL shards, with and without two-phase commit ({@link ReferenceWriteFigure}).
 *
 * The library runs with its defaults, row-level security on (the PostgreSQL shard's tenant tables filter rows by the
 * session's tenant); {@code --no-row-level-security} starts it with
 * {@code shard-tenancy.fence.row-level-security=false}, to measure what row-level security costs
 * ({@code --row-level-security}, the default, is accepted). {@code --profile}
 * records the run with JDK Flight Recorder into {@code target/bench-profile.jfr} ({@link Profile}).
 *
 * <p>A figure that fails is reported as "not measured" with the error, and the others still run.
 */
public final class BenchmarkHarness {

	/** Keys of the figures, for {@code --only}. */
	public static final List<String> FIGURES = List.of("h2", "h2-web", "h2-hot", "pg", "pg-web", "pg-hot", "lookup",
			"invalidation", "move", "memory", "stale", "reference");

	private static final Logger QUIET_LIQUIBASE = Logger.getLogger("liquibase");

	private BenchmarkHarness() {
	}

	public static void main(String[] args) throws Exception {
		Sizes sizes = Sizes.full();
		Path out = Path.of("target", "bench-results.md");
		Set<String> only = Set.of();
		Path profile = null;
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--full" -> sizes = Sizes.full();
				case "--smoke" -> sizes = Sizes.smoke();
				case "--out" -> out = Path.of(args[++i]);
				case "--only" -> {
					only = Set.of(args[++i].split(","));
					if (!FIGURES.containsAll(only)) {
						throw new IllegalArgumentException("Unknown figure in --only " + args[i] + "; figures: "
								+ String.join(",", FIGURES));
					}
				}
				case "--row-level-security" -> BenchApps.rowLevelSecurity = true;
				case "--no-row-level-security" -> BenchApps.rowLevelSecurity = false;
				case "--profile" -> profile = Path.of("target", "bench-profile.jfr");
				default -> throw new IllegalArgumentException("Unknown argument " + args[i]
						+ "; usage: BenchmarkHarness [--full|--smoke] [--out FILE] [--only " + String.join(",", FIGURES)
						+ "] [--row-level-security|--no-row-level-security] [--profile]");
			}
		}
		List<Figure> figures = (profile != null) ? Profile.record(profile, sizes, only) : run(sizes, only);
		String table = report(sizes, figures);
		System.out.println();
		System.out.println(table);
		write(out, table);
		System.exit(0); // embedded PostgreSQL and pools are closed; don't wait for stray daemon-less threads
	}

	/**
	 * Runs every figure.
	 * @param sizes how long and how big
	 * @return the figures, in the order of {@link #FIGURES}
	 */
	public static List<Figure> run(Sizes sizes) {
		return run(sizes, Set.of());
	}

	/**
	 * Runs some figures.
	 * @param sizes how long and how big
	 * @param only keys of the figures to run (see {@link #FIGURES}); empty for all
	 * @return the figures, in the order of {@link #FIGURES}
	 */
	public static List<Figure> run(Sizes sizes, Set<String> only) {
		// Liquibase (run once per database here) reports through JUL instead of printing to stdout; warnings only.
		QUIET_LIQUIBASE.setLevel(Level.WARNING);
		try {
			return Scope.child(Map.of(Scope.Attr.ui.name(), new LoggerUIService()), () -> runFigures(sizes, only.isEmpty() ? Set.copyOf(FIGURES) : only));
		}
		catch (Exception ex) {
			throw new IllegalStateException("The benchmark run failed: " + ex, ex);
		}
	}

	private static List<Figure> runFigures(Sizes sizes, Set<String> only) {
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<Figure> figures = new ArrayList<>();
		List<Workload.Kind> h2 = workloads("h2", only);
		if (!h2.isEmpty()) {
			figures.addAll(guardAll("routing overhead, H2 in-memory", ">= 0.90",
					() -> RoutingOverheadFigure.run("H2 in-memory", h2, 0.90, Db.h2("bench-h2-directory-" + run),
							Db.h2("bench-h2-shard-1-" + run), Db.h2("bench-h2-plain-" + run), sizes, RoundTrips.H2,
							null)));
		}
		List<Workload.Kind> postgres = workloads("pg", only);
		BenchPostgres pg = null;
		if (!postgres.isEmpty() || only.stream().anyMatch(Set.of("invalidation", "move", "memory")::contains)) {
			progress("starting embedded PostgreSQL");
			try {
				pg = BenchPostgres.start();
			}
			catch (RuntimeException ex) {
				figures.add(Figure.notMeasured("PostgreSQL figures", "-", "embedded PostgreSQL did not start: " + ex));
			}
		}
		try {
			BenchPostgres server = pg;
			if (!postgres.isEmpty() && server != null) {
				figures.addAll(guardAll("routing overhead, PostgreSQL", ">= 0.90",
						() -> RoutingOverheadFigure.run("PostgreSQL", postgres, 0.90, pgDb(server, "bench_directory"),
								appDb(server, "bench_shard_1"), pgDb(server, "bench_plain"), sizes,
								RoundTrips.POSTGRES, new RoutingOverheadFigure.Postgres(server, "bench_plain",
										"bench_shard_1", "bench_directory"))));
			}
			if (only.contains("lookup")) {
				figures.add(guard("lookup cost (JMH)", "<= 1.20", () -> LookupFigure.run(sizes)));
			}
			if (only.contains("invalidation") && server != null) {
				figures.add(guard("invalidation latency", "<= 1.00 at p99",
						() -> InvalidationLatencyFigure.run(server, sizes)));
			}
			if (only.contains("move")) {
				figures.addAll(moveFigures(server, sizes, run));
			}
			if (only.contains("memory") && server != null) {
				progress("memory and cold start");
				try {
					figures.addAll(MemoryFigure.run(server, sizes));
				}
				catch (Exception ex) {
					ex.printStackTrace();
					figures.add(Figure.notMeasured("memory and cold start", "<= 100 B, <= 1.20", "failed: " + ex));
				}
			}
		}
		finally {
			if (pg != null) {
				pg.close();
			}
		}
		if (only.contains("stale")) {
			figures.add(guard("cost of a stale event", "exactly +1 read, +1 attempt", () -> StaleEventFigure.run(run)));
		}
		if (only.contains("reference")) {
			// Its own two servers: max_prepared_transactions above 0 and 0, a setting that needs a restart.
			figures.addAll(guardAll("reference writes, PostgreSQL", ReferenceWriteFigure.GOAL,
					() -> ReferenceWriteFigure.run(sizes)));
		}
		return figures;
	}

	private static List<Figure> moveFigures(BenchPostgres pg, Sizes sizes, String run) {
		progress("move");
		try {
			return MoveFigure.run(pg, sizes, run);
		}
		catch (Exception ex) {
			ex.printStackTrace();
			return List.of(Figure.notMeasured(MoveFigure.FREEZE, "<= 150 ms p99", "failed: " + ex),
					Figure.notMeasured(MoveFigure.COPY, ">= 0.90 of COPY", "failed: " + ex),
					Figure.notMeasured(MoveFigure.CATCH_UP, MoveFigure.CATCH_UP_GOAL, "failed: " + ex));
		}
	}

	private static Db pgDb(BenchPostgres pg, String name) {
		return new Db(pg.createDatabase(name), pg.user(), pg.password());
	}

	/**
	 * A database owned by the application role, which the library's shard connects as: row-level security applies to
	 * it (not to the superuser), so the figure includes its cost unless {@code --no-row-level-security}.
	 */
	private static Db appDb(BenchPostgres pg, String name) {
		return new Db(pg.createAppDatabase(name), BenchPostgres.APP_ROLE, BenchPostgres.APP_ROLE);
	}

	interface FigureRun {

		Figure run() throws Exception;

	}

	/** @return the routing workloads {@code only} asks for on one database ({@code h2}, {@code h2-web}, ...) */
	private static List<Workload.Kind> workloads(String database, Set<String> only) {
		return java.util.Arrays.stream(Workload.Kind.values())
			.filter((kind) -> only.contains(database + kind.keySuffix))
			.toList();
	}

	interface FiguresRun {

		List<Figure> run() throws Exception;

	}

	private static List<Figure> guardAll(String name, String goal, FiguresRun run) {
		progress(name);
		try {
			return run.run();
		}
		catch (Exception ex) {
			ex.printStackTrace();
			return List.of(Figure.notMeasured(name, goal, "failed: " + ex));
		}
	}

	private static Figure guard(String name, String goal, FigureRun run) {
		return guardAll(name, goal, () -> List.of(run.run())).get(0);
	}

	static String report(Sizes sizes, List<Figure> figures) {
		Runtime rt = Runtime.getRuntime();
		return "## Benchmark results (" + (sizes.quick() ? "SMOKE run: numbers meaningless" : "full run") + ")\n\n"
				+ "Date: " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "  \n" + "Machine: "
				+ rt.availableProcessors() + " cores, " + System.getProperty("os.name") + " "
				+ System.getProperty("os.arch") + ", Java " + System.getProperty("java.version") + ", max heap "
				+ (rt.maxMemory() >> 20) + " MiB, system load average at the end "
				+ String.format(java.util.Locale.ROOT, "%.1f",
						java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
				+ "  \n"
				+ "Command: ./mvnw -q -B -pl benchmarks -am -Pbench -DskipTests verify\n\n"
				+ ResultsTable.format(figures);
	}

	private static void write(Path out, String table) throws IOException {
		if (out.getParent() != null) {
			Files.createDirectories(out.getParent());
		}
		Files.writeString(out, table, StandardCharsets.UTF_8);
		System.out.println("(written to " + out.toAbsolutePath() + ")");
	}

	static void progress(String what) {
		System.err.println("[bench] " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + " " + what + " ...");
	}

}
