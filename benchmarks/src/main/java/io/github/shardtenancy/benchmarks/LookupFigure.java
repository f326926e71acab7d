package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs {@link LookupBenchmark} with JMH and turns its scores into figure 2: in each round the baseline (Caffeine
 * {@code getIfPresent}) and ours ({@code Router.route}) run one after the other, which one goes first alternating
 * from round to round, and the figure is the median and range of the per-round ratios.
 */
final class LookupFigure {

	static final double GOAL = 1.2;

	private LookupFigure() {
	}

	static Figure run(Sizes sizes) throws RunnerException {
		int rounds = sizes.quick() ? 1 : 4; // even: each side goes first equally often
		double[] ratios = new double[rounds];
		double[] raw = new double[rounds];
		double[] route = new double[rounds];
		double[] rawReadingState = new double[rounds];
		for (int r = 0; r < rounds; r++) {
			boolean baselineFirst = r % 2 == 0;
			raw[r] = score(sizes, baselineFirst ? "rawCaffeineGetIfPresent" : "routerRoute");
			route[r] = score(sizes, baselineFirst ? "routerRoute" : "rawCaffeineGetIfPresent");
			if (!baselineFirst) {
				double swap = raw[r];
				raw[r] = route[r];
				route[r] = swap;
			}
			rawReadingState[r] = score(sizes, "rawCaffeineGetIfPresentReadingState");
			ratios[r] = route[r] / raw[r];
		}
		Spread ratio = Spread.of(ratios);
		Spread rawNs = Spread.of(raw);
		Spread routeNs = Spread.of(route);
		Spread stateNs = Spread.of(rawReadingState);
		boolean met = ratio.median() <= GOAL;
		return new Figure("lookup cost, cached tenant (JMH, ns/op, 1 thread)",
				fmt("%.1f ns (Caffeine getIfPresent; min-max %.1f-%.1f)", rawNs.median(), rawNs.min(), rawNs.max()),
				fmt("%.1f ns (TenantRouter.route; min-max %.1f-%.1f)", routeNs.median(), routeNs.min(),
						routeNs.max()),
				ratio.median(), fmt("<= %.2f", GOAL), Figure.verdict(met),
				fmt("ratio per round %s; baseline and ours alternate which goes first. Of ours, the part a caller pays "
						+ "anyway: getIfPresent plus reading the entry's state (a second cache line, the entry "
						+ "itself, which route() reads to reject a deleted tenant and every caller reads for the "
						+ "shard id) takes %.1f ns (min-max %.1f-%.1f).", ratio.describe("%.2f"), stateNs.median(),
						stateNs.min(), stateNs.max()));
	}

	private static double score(Sizes sizes, String benchmark) throws RunnerException {
		TimeValue time = TimeValue.milliseconds(sizes.jmhIterationTime().toMillis());
		Options options = new OptionsBuilder().include(LookupBenchmark.class.getName() + "\\." + benchmark + "$")
			.forks(sizes.jmhForks())
			.warmupIterations(sizes.jmhIterations())
			.warmupTime(time)
			.measurementIterations(sizes.jmhIterations())
			.measurementTime(time)
			.threads(1)
			.verbosity(sizes.quick() ? VerboseMode.SILENT : VerboseMode.NORMAL)
			.shouldFailOnError(true)
			.build();
		for (RunResult result : new Runner(options).run()) {
			if (result.getPrimaryResult().getLabel().equals(benchmark)) {
				return result.getPrimaryResult().getScore();
			}
		}
		throw new IllegalStateException("JMH returned no score for " + benchmark);
	}

}
