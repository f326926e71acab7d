package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RebalanceSettings;

/**
 * The rebalancer: moves that bring every shard within a band of the median load. Bound from
 * {@code shard-tenancy.rebalancer.*}, see {@link ShardTenancyProperties}. Its moves run with the
 * {@code shard-tenancy.move.*} settings.
 */
public class RebalancerProperties {

	/**
	 * Whether the rebalancer proposes moves on a schedule (logged, and served by the {@code shardtenancyload}
	 * endpoint) and whether the endpoint may execute a proposal. Default false.
	 */
	private boolean enabled = false;

	/**
	 * Whether the scheduled run also executes its proposal (moves tenants), and the endpoint's write operation may.
	 * Default false: dry run.
	 */
	private boolean execute = false;

	/** Time between the end of one scheduled run and the start of the next. Default 1 h. */
	private Duration interval = Duration.ofHours(1);

	/** Measure balanced across shards. Default tenants. */
	private LoadMeasure measure = LoadMeasure.TENANTS;

	/** Distance from the median within which a shard counts as balanced, as a fraction of the median. Default 0.1. */
	private double band = 0.1;

	/** Maximum number of moves running at once. Default 2. */
	private int maxConcurrentMoves = 2;

	/** Maximum number of moves one proposal holds. Default 50. */
	private int maxMovesPerRound = 50;

	/** Pause between starting two moves. Default 0 s (none). */
	private Duration pause = Duration.ZERO;

	/**
	 * @param moveSettings the settings of each move
	 * @return these settings for the core's rebalancer
	 */
	RebalanceSettings toSettings(MoveSettings moveSettings) {
		return new RebalanceSettings(this.measure, this.band, this.maxConcurrentMoves, this.maxMovesPerRound,
				this.pause, moveSettings);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isExecute() {
		return this.execute;
	}

	public void setExecute(boolean execute) {
		this.execute = execute;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

	public LoadMeasure getMeasure() {
		return this.measure;
	}

	public void setMeasure(LoadMeasure measure) {
		this.measure = measure;
	}

	public double getBand() {
		return this.band;
	}

	public void setBand(double band) {
		this.band = band;
	}

	public int getMaxConcurrentMoves() {
		return this.maxConcurrentMoves;
	}

	public void setMaxConcurrentMoves(int maxConcurrentMoves) {
		this.maxConcurrentMoves = maxConcurrentMoves;
	}

	public int getMaxMovesPerRound() {
		return this.maxMovesPerRound;
	}

	public void setMaxMovesPerRound(int maxMovesPerRound) {
		this.maxMovesPerRound = maxMovesPerRound;
	}

	public Duration getPause() {
		return this.pause;
	}

	public void setPause(Duration pause) {
		this.pause = pause;
	}

}
