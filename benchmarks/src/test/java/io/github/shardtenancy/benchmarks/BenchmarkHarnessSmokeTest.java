package io.github.shardtenancy.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the benchmark harness compiling and running: a smoke run (seconds, tiny sizes) must produce every figure with
 * numbers. Asserts nothing about timing or goals: the numbers of a smoke run mean nothing.
 */
class BenchmarkHarnessSmokeTest {

	@Test
	@DisplayName("a smoke run measures every figure except the move, and prints them in one table")
	void smokeRunProducesEveryFigureWithNumbers() {
		List<Figure> figures = BenchmarkHarness.run(Sizes.smoke());
		String table = BenchmarkHarness.report(Sizes.smoke(), figures);
		System.out.println(table);

		assertThat(figures).extracting(Figure::name)
			.anyMatch((n) -> n.startsWith("routing overhead, H2 in-memory (tx/s"))
			.anyMatch((n) -> n.startsWith("routing overhead, H2 in-memory, web-like"))
			.anyMatch((n) -> n.startsWith("routing overhead, H2 in-memory, hot tenant"))
			.anyMatch((n) -> n.startsWith("CPU per transaction, H2 in-memory (client + server"))
			.anyMatch((n) -> n.startsWith("routing overhead, PostgreSQL (tx/s"))
			.anyMatch((n) -> n.startsWith("routing overhead, PostgreSQL, web-like"))
			.anyMatch((n) -> n.startsWith("routing overhead, PostgreSQL, hot tenant"))
			.anyMatch((n) -> n.startsWith("CPU per transaction, PostgreSQL (client + server"))
			.anyMatch((n) -> n.startsWith("CPU per transaction, PostgreSQL, web-like"))
			.anyMatch((n) -> n.startsWith("CPU per transaction, PostgreSQL, hot tenant"))
			.anyMatch((n) -> n.startsWith("lookup cost"))
			.anyMatch((n) -> n.startsWith("invalidation latency"))
			.anyMatch((n) -> n.startsWith("retained heap per cached entry"))
			.anyMatch((n) -> n.startsWith("cold start"))
			.anyMatch((n) -> n.startsWith("cost of a stale event"))
			.anyMatch((n) -> n.startsWith("move: freeze window"))
			.anyMatch((n) -> n.startsWith("move: copy rate"))
			.anyMatch((n) -> n.startsWith("move: catch-up rate"))
			.anyMatch((n) -> n.startsWith("reference write, 4 shards, two-phase commit"))
			.anyMatch((n) -> n.startsWith("reference write, 4 shards, transactions held open"));
		// Everything is measured except the copy rate against PostgreSQL COPY, which needs the online mover on
		// PostgreSQL shards (the freeze window is measured on H2 meanwhile), and the catch-up rate, which needs a
		// backlog after the copy that a smoke-sized tenant may not leave.
		assertThat(figures)
			.filteredOn((f) -> !f.name().startsWith(MoveFigure.COPY) && !f.name().startsWith(MoveFigure.CATCH_UP))
			.allSatisfy((f) -> assertThat(f.measured()).as("%s measured (%s)", f.name(), f.ours()).isTrue());
		assertThat(figures).filteredOn((f) -> Double.isFinite(f.ratio())).hasSizeGreaterThanOrEqualTo(17);
		assertThat(table).contains("| figure", "| baseline", "| ratio", "routing overhead, H2");
		// Every PostgreSQL workload's CPU row carries the rounds, the CPU breakdown and the counting pass.
		assertThat(figures).filteredOn((f) -> f.name().startsWith("CPU per transaction, PostgreSQL"))
			.hasSize(3)
			.allSatisfy((f) -> assertThat(f.note()).contains("rounds of", "per-round ratio median",
					"the side's server backends", "round trips (pgjdbc Sync messages)", "WAL", "MultiXacts",
					"PL/pgSQL calls on the shard: shard_fence_begin"));
	}

	@Test
	@DisplayName("--only runs the named routing workloads, and --profile records them with JFR")
	void profileRecordsTheNamedWorkloads(@TempDir Path dir) throws IOException {
		Path jfr = dir.resolve("bench.jfr");

		List<Figure> figures = Profile.record(jfr, Sizes.smoke(), Set.of("h2-web", "h2-hot"));

		assertThat(figures).extracting(Figure::name)
			.allMatch((n) -> n.contains("web-like") || n.contains("hot tenant"))
			.hasSize(4);
		List<RecordedEvent> samples = RecordingFile.readAllEvents(jfr)
			.stream()
			.filter((e) -> e.getEventType().getName().equals("jdk.ExecutionSample"))
			.toList();
		assertThat(samples).anyMatch((e) -> e.getThread("sampledThread") != null
				&& e.getThread("sampledThread").getJavaName().startsWith("bench-worker-"));
	}

	@Test
	@DisplayName("an unknown argument or figure is refused with the usage, which names every figure and option")
	void unknownArgumentIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkHarness.main(new String[] { "--bogus" }))
			.withMessageContaining("h2-web,h2-hot,pg,pg-web,pg-hot")
			.withMessageContaining("--profile");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BenchmarkHarness.main(new String[] { "--smoke", "--only", "pg,pg-cold" }))
			.withMessageContaining("pg-cold")
			.withMessageContaining("h2-web,h2-hot,pg,pg-web,pg-hot");
	}

}
