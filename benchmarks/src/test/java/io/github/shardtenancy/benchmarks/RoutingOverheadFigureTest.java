package io.github.shardtenancy.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The routing figure's arithmetic on given rounds: which rounds are dropped, medians of per-round ratios, CPU per
 * transaction from worker, other-thread and server CPU.
 */
class RoutingOverheadFigureTest {

	/** A side's round: {@code tps} transactions per second, 1000 committed, CPU in us per transaction. */
	private static RoutingOverheadFigure.Sample sample(double tps, double workerMicros, double otherMicros,
			double serverMicros) {
		return new RoutingOverheadFigure.Sample(new Workload.Result(tps, 1000, (long) (workerMicros * 1e6),
				(long) (otherMicros * 1e6), -1), (long) (serverMicros * 1e6), (long) (serverMicros * 1e6));
	}

	@Test
	@DisplayName("a round whose baseline is below 60 % of its best is dropped; ratios are medians of the kept rounds")
	void dropsDisturbedRoundsAndTakesMedians() {
		RoutingOverheadFigure.Sample[][] rounds = {
				{ sample(1000, 80, 0, 20), sample(900, 100, 0, 30) }, // tps 0.90, CPU 130/100 = 1.30
				{ sample(500, 80, 0, 20), sample(100, 100, 0, 30) }, // baseline at 50 % of its best: dropped
				{ sample(800, 80, 0, 20), sample(640, 90, 5, 25) }, // tps 0.80, CPU 120/100 = 1.20
				{ sample(950, 80, 0, 20), sample(665, 100, 0, 10) } }; // tps 0.70, CPU 110/100 = 1.10

		List<Figure> figures = RoutingOverheadFigure.figures("PostgreSQL", Workload.Kind.WEB, 0.90, Sizes.smoke(),
				rounds, new RoutingOverheadFigure.Counts(3.2, 100, 0, ""),
				new RoutingOverheadFigure.Counts(3.2, 120, 0.5, "shard_fence_begin 1.00 calls"), 0, "");

		assertThat(figures).hasSize(2);
		Figure throughput = figures.get(0);
		assertThat(throughput.name()).isEqualTo("routing overhead, PostgreSQL, web-like, 80 % read-only (tx/s, 4 threads)");
		assertThat(throughput.ratio()).isCloseTo(0.80, within(1e-9));
		assertThat(throughput.baseline()).isEqualTo("950 tx/s");
		assertThat(throughput.ours()).isEqualTo("665 tx/s");
		assertThat(throughput.met()).isEqualTo(Figure.Verdict.NO);
		assertThat(throughput.note()).contains("3 of 4 rounds", "median 0.80, min 0.70, max 0.90");
		Figure cpu = figures.get(1);
		assertThat(cpu.name()).startsWith("CPU per transaction, PostgreSQL, web-like");
		assertThat(cpu.ratio()).isCloseTo(1.20, within(1e-9));
		assertThat(cpu.baseline()).isEqualTo("100 us");
		assertThat(cpu.ours()).isEqualTo("120 us");
		assertThat(cpu.goal()).isEqualTo("<= 1.15");
		assertThat(cpu.met()).isEqualTo(Figure.Verdict.NO);
		assertThat(cpu.note()).contains("min 1.10, max 1.30", "other Java threads 0 / 0 us",
				"round trips (pgjdbc Sync messages) 3.20 / 3.20", "WAL 100 / 120 bytes", "MultiXacts 0.000 / 0.500",
				"shard_fence_begin 1.00 calls");
	}

	@Test
	@DisplayName("with every round kept, a ratio at the goal meets it")
	void ratioAtTheGoalMeetsIt() {
		RoutingOverheadFigure.Sample[][] rounds = { { sample(1000, 100, 0, 0), sample(900, 115, 0, 0) } };

		List<Figure> figures = RoutingOverheadFigure.figures("H2 in-memory", Workload.Kind.WRITE, 0.90, Sizes.smoke(),
				rounds, null, null, 0, "");

		assertThat(figures.get(0).name()).isEqualTo("routing overhead, H2 in-memory (tx/s, 4 threads)");
		assertThat(figures.get(0).met()).isEqualTo(Figure.Verdict.YES);
		assertThat(figures.get(1).ratio()).isCloseTo(1.15, within(1e-9));
		assertThat(figures.get(1).met()).isEqualTo(Figure.Verdict.YES);
		assertThat(figures.get(1).note()).contains("1 of 1 rounds", "H2 runs inside the worker threads")
			.doesNotContain("round trips");
	}

}
