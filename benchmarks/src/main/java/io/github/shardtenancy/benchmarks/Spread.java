package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.util.Arrays;

/**
 * The median and the range of a figure's per-round values (ratios of ours to the baseline, measured side by side in
 * each round). Immutable.
 *
 * @param median the median (the mean of the middle two for an even count)
 * @param min the smallest value
 * @param max the largest value
 * @param count how many values
 */
record Spread(double median, double min, double max, int count) {

	/**
	 * @param values at least one value
	 * @return their median and range
	 * @throws IllegalArgumentException if there is no value
	 */
	static Spread of(double... values) {
		if (values.length == 0) {
			throw new IllegalArgumentException("no values");
		}
		return new Spread(RoutingOverheadFigure.median(values), Arrays.stream(values).min().getAsDouble(),
				Arrays.stream(values).max().getAsDouble(), values.length);
	}

	/** @return for example {@code "median 1.12 (min-max 1.05-1.30, 5 rounds)"} */
	String describe(String format) {
		return fmt("median " + format + " (min-max " + format + "-" + format + ", %d round%s)", this.median, this.min,
				this.max, this.count, this.count == 1 ? "" : "s");
	}

}
