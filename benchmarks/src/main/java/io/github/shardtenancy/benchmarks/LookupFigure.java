package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.util.Collection;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Runs {@link LookupBenchmark} with JMH and turns its two scores into figure 2. */
final class LookupFigure {

	private LookupFigure() {
	}

	static Figure run(Sizes sizes) throws RunnerException {
		TimeValue time = TimeValue.milliseconds(sizes.jmhIterationTime().toMillis());
		Options options = new OptionsBuilder().include(LookupBenchmark.class.getName() + "\\..*")
			.forks(sizes.jmhForks())
			.warmupIterations(sizes.jmhIterations())
			.warmupTime(time)
			.measurementIterations(sizes.jmhIterations())
			.measurementTime(time)
			.threads(1)
			.verbosity(sizes.quick() ? VerboseMode.SILENT : VerboseMode.NORMAL)
			.shouldFailOnError(true)
			.build();
		Collection<RunResult> results = new Runner(options).run();
		double route = Double.NaN;
		double raw = Double.NaN;
		for (RunResult result : results) {
			String label = result.getPrimaryResult().getLabel();
			double score = result.getPrimaryResult().getScore();
			if (label.equals("routerRoute")) {
				route = score;
			}
			else if (label.equals("rawCaffeineGetIfPresent")) {
				raw = score;
			}
		}
		double ratio = route / raw;
		return new Figure("lookup cost, cached tenant (JMH, ns/op)", fmt("%.1f ns (Caffeine getIfPresent)", raw),
				fmt("%.1f ns (TenantRouter.route)", route), ratio, "<= 2.00", Figure.verdict(ratio <= 2.0),
				ratio <= 2.0 ? "" : "route() also validates the tenant id and counts a hit (LongAdder) on every call");
	}

}
