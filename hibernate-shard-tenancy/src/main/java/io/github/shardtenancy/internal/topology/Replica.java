package io.github.shardtenancy.internal.topology;

import javax.sql.DataSource;

/**
 * One read replica of a shard: its pool and what the lag sampler last learnt of it. The sampler writes, routing reads;
 * thread-safe (volatile fields).
 */
public final class Replica {

	private final String shardId;

	private final String name;

	private final DataSource dataSource;

	private final boolean owned;

	/** {@link System#nanoTime()} before which every commit of the primary is replayed here; 0 for none known. */
	private volatile long caughtUpTo;

	private volatile boolean usable;

	private volatile String problem = "not sampled yet";

	Replica(String shardId, String name, DataSource dataSource, boolean owned) {
		this.shardId = shardId;
		this.name = name;
		this.dataSource = dataSource;
		this.owned = owned;
	}

	/** @return the shard whose replica this is */
	public String shardId() {
		return this.shardId;
	}

	/** @return the replica's name, unique within its shard */
	public String name() {
		return this.name;
	}

	/** @return its pool (read-only connections) */
	public DataSource dataSource() {
		return this.dataSource;
	}

	boolean owned() {
		return this.owned;
	}

	/**
	 * @param nowNanos {@link System#nanoTime()} now
	 * @return how far behind its primary the replica is at most, in nanoseconds (every transaction committed on the
	 * primary longer ago is replayed here), or {@link Long#MAX_VALUE} if that is not known (not sampled, down,
	 * promoted, or behind the sampler's history)
	 */
	public long lagNanos(long nowNanos) {
		long caught = this.caughtUpTo;
		return this.usable && caught != 0 ? Math.max(0, nowNanos - caught) : Long.MAX_VALUE;
	}

	/**
	 * @param nanoTime a {@link System#nanoTime()} value
	 * @return whether the replica has replayed every transaction the primary committed before that moment
	 */
	public boolean caughtUpPast(long nanoTime) {
		return this.usable && this.caughtUpTo - nanoTime > 0;
	}

	/** @return why the replica cannot serve, or {@code null} while it can (lag aside) */
	public String problem() {
		return this.usable ? null : this.problem;
	}

	void caughtUp(long nanoTime) {
		this.caughtUpTo = Math.max(this.caughtUpTo, nanoTime);
		this.usable = true;
		this.problem = null;
	}

	void unusable(String why) {
		this.usable = false;
		this.problem = why;
	}

	/**
	 * Marks the replica down after a failed borrow: it serves nothing until the next good sample.
	 * @param why the failure, for the actuator and logs
	 */
	public void down(String why) {
		unusable(why);
	}

	@Override
	public String toString() {
		return "replica '" + this.name + "' of shard '" + this.shardId + "'";
	}

}
