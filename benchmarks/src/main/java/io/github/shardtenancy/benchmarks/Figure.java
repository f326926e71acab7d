package io.github.shardtenancy.benchmarks;

import java.util.Objects;

/**
 * One row of the results table: a figure measured next to its baseline in the same run.
 *
 * @param name what is measured, never {@code null}
 * @param baseline the baseline's value with its unit, or a dash when there is none; never {@code null}
 * @param ours the library's value with its unit; never {@code null}
 * @param ratio ours divided by baseline, {@link Double#NaN} when not measured or when there is no baseline
 * @param goal the figure's target, as shown in docs/performance.md, never {@code null}
 * @param met whether the goal is met
 * @param note a short explanation (where the time goes, what was measured instead), never {@code null}, may be empty
 */
public record Figure(String name, String baseline, String ours, double ratio, String goal, Verdict met, String note) {

	/** Whether a goal was met. */
	public enum Verdict {

		/** The figure meets its goal. */
		YES,

		/** The figure misses its goal. */
		NO,

		/** The figure was not measured in this run. */
		NOT_MEASURED,

		/** The figure is measured and reported as a cost, with no goal to meet. */
		NO_GOAL

	}

	public Figure {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(baseline, "baseline");
		Objects.requireNonNull(ours, "ours");
		Objects.requireNonNull(goal, "goal");
		Objects.requireNonNull(met, "met");
		Objects.requireNonNull(note, "note");
	}

	/**
	 * @param name the figure
	 * @param goal its goal
	 * @param reason why it was not measured
	 * @return a row saying the figure was not measured, and why
	 */
	public static Figure notMeasured(String name, String goal, String reason) {
		return new Figure(name, "-", "not measured: " + reason, Double.NaN, goal, Verdict.NOT_MEASURED, "");
	}

	/** @return whether the figure carries a measured value (its ratio may still be NaN for an absolute goal) */
	public boolean measured() {
		return this.met != Verdict.NOT_MEASURED;
	}

	static Verdict verdict(boolean met) {
		return met ? Verdict.YES : Verdict.NO;
	}

}
