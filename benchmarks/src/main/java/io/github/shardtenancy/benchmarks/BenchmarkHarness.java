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
 * <p>Usage: {@code BenchmarkHarness [--full|--smoke] [--out FILE] [--only FIGURES] [--no-row-level-security]}. {@code --full} (the default) takes a few
 * minutes; {@code --smoke} takes seconds with tiny sizes and exists only to keep the harness compiling and running
 * (its numbers mean nothing). The table is also written to {@code FILE} (default
 * {@code target/bench-results.md}).
 *
 * {@code --no-row-level-security} starts the library with {@code shard-tenancy.fence.row-level-security=false} (the
 * PostgreSQL shard's tenant tables then have no row-level security), to measure what it costs.
 *
 * <p>A figure that fails is reported as "not measured" with the error, and the others still run.
 */
public final class BenchmarkHarness {

	/** Keys of the figures, for {@code --only}. */
	public static final List<String> FIGURES = List.of("h2", "pg", "lookup", "invalidation", "move", "memory",
			"stale");

	private static final Logger QUIET_LIQUIBASE = Logger.getLogger("liquibase");

	private BenchmarkHarness() {
	}

	public static void main(String[] args) throws Exception {
		Sizes sizes = Sizes.full();
		Path out = Path.of("target", "bench-results.md");
		Set<String> only = Set.of();
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--full" -> sizes = Sizes.full();
				case "--smoke" -> sizes = Sizes.smoke();
				case "--out" -> out = Path.of(args[++i]);
				case "--only" -> only = Set.of(args[++i].split(","));
				case "--no-row-level-security" -> BenchApps.rowLevelSecurity = false;
				default -> throw new IllegalArgumentException("Unknown argument " + args[i]
						+ "; usage: BenchmarkHarness [--full|--smoke] [--out FILE] [--only " + String.join(",", FIGURES)
						+ "] [--no-row-level-security]");
			}
		}
		List<Figure> figures = run(sizes, only);
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
		if (only.contains("h2")) {
			figures.add(guard("routing overhead, H2 in-memory", ">= 0.90",
					() -> RoutingOverheadFigure.run("H2 in-memory", 0.90, Db.h2("bench-h2-directory-" + run),
							Db.h2("bench-h2-shard-1-" + run), Db.h2("bench-h2-plain-" + run), sizes, RoundTrips.H2,
							null, null, null)));
		}
		BenchPostgres pg = null;
		if (only.stream().anyMatch(Set.of("pg", "invalidation", "move", "memory")::contains)) {
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
			if (only.contains("pg") && server != null) {
				figures.add(guard("routing overhead, PostgreSQL", ">= 0.97",
						() -> RoutingOverheadFigure.run("PostgreSQL", 0.97, pgDb(server, "bench_directory"),
								appDb(server, "bench_shard_1"), pgDb(server, "bench_plain"), sizes,
								RoundTrips.POSTGRES, server.backendCpu("bench_plain"),
								server.backendCpu("bench_shard_1"),
								() -> server.functionCallsPerTransaction("bench_shard_1"))));
			}
			if (only.contains("lookup")) {
				figures.add(guard("lookup cost (JMH)", "<= 2.00", () -> LookupFigure.run(sizes)));
			}
			if (only.contains("invalidation") && server != null) {
				figures.add(guard("invalidation latency", "<= 1.50 at p99",
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
					figures.add(Figure.notMeasured("memory and cold start", "<= 100 B, <= 3 s", "failed: " + ex));
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
		return figures;
	}

	private static List<Figure> moveFigures(BenchPostgres pg, Sizes sizes, String run) {
		progress("move");
		try {
			return MoveFigure.run(pg, sizes, run);
		}
		catch (Exception ex) {
			ex.printStackTrace();
			return List.of(Figure.notMeasured(MoveFigure.FREEZE, "<= 250 ms p99", "failed: " + ex),
					Figure.notMeasured(MoveFigure.COPY, ">= 0.70 of COPY", "failed: " + ex));
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

	private static Figure guard(String name, String goal, FigureRun run) {
		progress(name);
		try {
			return run.run();
		}
		catch (Exception ex) {
			ex.printStackTrace();
			return Figure.notMeasured(name, goal, "failed: " + ex);
		}
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
