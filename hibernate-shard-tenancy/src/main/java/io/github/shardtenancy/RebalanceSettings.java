package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

/**
 * How the {@link Rebalancer} balances shards. Immutable; the {@code with...} methods return copies.
 *
 * @param measure what to balance
 * @param band how far from the median a shard's load may be and count as balanced, as a fraction of the median (0.1:
 * within 10 %); at least 0
 * @param maxConcurrentMoves moves run at once at most, at least 1
 * @param maxMovesPerRound moves one proposal holds at most, at least 1
 * @param pause the wait between starting two moves (throttle); zero for none
 * @param moveSettings how each move runs
 */
public record RebalanceSettings(LoadMeasure measure, double band, int maxConcurrentMoves, int maxMovesPerRound,
		Duration pause, MoveSettings moveSettings) {

	/**
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if a number is out of range or the pause is negative
	 */
	public RebalanceSettings {
		Objects.requireNonNull(measure, "measure");
		Objects.requireNonNull(pause, "pause");
		Objects.requireNonNull(moveSettings, "moveSettings");
		if (!(band >= 0) || Double.isInfinite(band)) {
			throw new IllegalArgumentException("band must be a fraction of the median, at least 0: " + band);
		}
		if (maxConcurrentMoves < 1 || maxMovesPerRound < 1) {
			throw new IllegalArgumentException("maxConcurrentMoves and maxMovesPerRound must be at least 1: "
					+ maxConcurrentMoves + ", " + maxMovesPerRound);
		}
		if (pause.isNegative()) {
			throw new IllegalArgumentException("pause must not be negative: " + pause);
		}
	}

	/**
	 * @return tenants count, a band of 10 %, 2 moves at once, 50 per round, no pause, online moves with the default
	 * {@link MoveSettings}
	 */
	public static RebalanceSettings defaults() {
		return new RebalanceSettings(LoadMeasure.TENANTS, 0.1, 2, 50, Duration.ZERO, MoveSettings.defaults());
	}

	/** @param measure what to balance @return a copy */
	public RebalanceSettings withMeasure(LoadMeasure measure) {
		return new RebalanceSettings(measure, this.band, this.maxConcurrentMoves, this.maxMovesPerRound, this.pause,
				this.moveSettings);
	}

	/** @param band the band, a fraction of the median @return a copy */
	public RebalanceSettings withBand(double band) {
		return new RebalanceSettings(this.measure, band, this.maxConcurrentMoves, this.maxMovesPerRound, this.pause,
				this.moveSettings);
	}

	/** @param maxConcurrentMoves moves at once at most @return a copy */
	public RebalanceSettings withMaxConcurrentMoves(int maxConcurrentMoves) {
		return new RebalanceSettings(this.measure, this.band, maxConcurrentMoves, this.maxMovesPerRound, this.pause,
				this.moveSettings);
	}

	/** @param maxMovesPerRound moves per proposal at most @return a copy */
	public RebalanceSettings withMaxMovesPerRound(int maxMovesPerRound) {
		return new RebalanceSettings(this.measure, this.band, this.maxConcurrentMoves, maxMovesPerRound, this.pause,
				this.moveSettings);
	}

	/** @param pause wait between starting two moves @return a copy */
	public RebalanceSettings withPause(Duration pause) {
		return new RebalanceSettings(this.measure, this.band, this.maxConcurrentMoves, this.maxMovesPerRound, pause,
				this.moveSettings);
	}

	/** @param moveSettings how each move runs @return a copy */
	public RebalanceSettings withMoveSettings(MoveSettings moveSettings) {
		return new RebalanceSettings(this.measure, this.band, this.maxConcurrentMoves, this.maxMovesPerRound,
				this.pause, moveSettings);
	}

}
