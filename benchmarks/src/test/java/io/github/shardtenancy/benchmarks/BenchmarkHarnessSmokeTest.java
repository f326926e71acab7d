package io.github.shardtenancy.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

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
			.anyMatch((n) -> n.startsWith("routing overhead, H2"))
			.anyMatch((n) -> n.startsWith("routing overhead, PostgreSQL"))
			.anyMatch((n) -> n.startsWith("lookup cost"))
			.anyMatch((n) -> n.startsWith("invalidation latency"))
			.anyMatch((n) -> n.startsWith("retained heap per cached entry"))
			.anyMatch((n) -> n.startsWith("cold start"))
			.anyMatch((n) -> n.startsWith("cost of a stale event"))
			.anyMatch((n) -> n.startsWith("move: freeze window"))
			.anyMatch((n) -> n.startsWith("move: copy rate"));
		// Everything is measured except the copy rate against PostgreSQL COPY, which needs the online mover on
		// PostgreSQL shards (the freeze window is measured on H2 meanwhile).
		assertThat(figures).filteredOn((f) -> !f.name().startsWith(MoveFigure.COPY))
			.allSatisfy((f) -> assertThat(f.measured()).as("%s measured (%s)", f.name(), f.ours()).isTrue());
		assertThat(figures).filteredOn((f) -> Double.isFinite(f.ratio())).hasSizeGreaterThanOrEqualTo(7);
		assertThat(table).contains("| figure", "| baseline", "| ratio", "routing overhead, H2");
	}

}
