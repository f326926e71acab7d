package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the instance heartbeat ({@link Instances}): every instance (one {@link ShardTenancy}) records in the
 * directory database the directory version its router has applied, so that version skew across instances shows.
 * Immutable; build with {@link #defaults()} and the {@code with...} methods.
 *
 * @param enabled whether this instance records its heartbeat; when off, it neither writes nor reads the instances
 * table
 * @param instanceId this instance's id in the table, unique among live instances, at most 200 characters; {@code null}
 * for a generated one (host name, process id and a random suffix, new at every build)
 * @param heartbeatInterval how often the heartbeat runs; positive
 * @param goneAfter how long an instance may stay silent (no heartbeat) before it is reported gone; longer than
 * {@code heartbeatInterval}
 * @param removeAfter how long a gone instance stays in the table before a heartbeat removes its row; at least
 * {@code goneAfter}
 * @param maxLag how long an instance may take to apply a directory version before it is reported lagging; positive
 */
public record InstanceSettings(boolean enabled, @Nullable String instanceId, Duration heartbeatInterval,
		Duration goneAfter, Duration removeAfter, Duration maxLag) {

	/** The longest instance id the table holds. */
	public static final int MAX_INSTANCE_ID_LENGTH = 200;

	/**
	 * Checks each value on its own; the relations between them are checked by {@link #requireConsistent()} (the
	 * builder calls it), so that the {@code with...} methods can be called in any order.
	 * @throws IllegalArgumentException if a duration is not positive, or the instance id is blank or longer than
	 * {@value #MAX_INSTANCE_ID_LENGTH} characters
	 * @throws NullPointerException if a duration is {@code null}
	 */
	public InstanceSettings {
		positive(heartbeatInterval, "heartbeatInterval");
		positive(goneAfter, "goneAfter");
		positive(removeAfter, "removeAfter");
		positive(maxLag, "maxLag");
		if (instanceId != null && (instanceId.isBlank() || instanceId.length() > MAX_INSTANCE_ID_LENGTH)) {
			throw new IllegalArgumentException("instanceId must be non-blank and at most " + MAX_INSTANCE_ID_LENGTH
					+ " characters, was '" + instanceId + "'");
		}
	}

	/**
	 * @return these settings
	 * @throws IllegalArgumentException if {@code goneAfter} is not longer than {@code heartbeatInterval} (a live
	 * instance would be reported gone between two heartbeats), or {@code removeAfter} is shorter than
	 * {@code goneAfter}
	 */
	public InstanceSettings requireConsistent() {
		if (this.goneAfter.compareTo(this.heartbeatInterval) <= 0) {
			throw new IllegalArgumentException("goneAfter (" + this.goneAfter + ") must be longer than "
					+ "heartbeatInterval (" + this.heartbeatInterval + ")");
		}
		if (this.removeAfter.compareTo(this.goneAfter) < 0) {
			throw new IllegalArgumentException("removeAfter (" + this.removeAfter + ") must be at least goneAfter ("
					+ this.goneAfter + ")");
		}
		return this;
	}

	private static void positive(Duration value, String name) {
		Objects.requireNonNull(value, name);
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, was " + value);
		}
	}

	/** @return enabled, a generated id, heartbeat every 10 s, gone after 1 min, removed after 1 h, max lag 1 min */
	public static InstanceSettings defaults() {
		return new InstanceSettings(true, null, Duration.ofSeconds(10), Duration.ofMinutes(1), Duration.ofHours(1),
				Duration.ofMinutes(1));
	}

	/** @param value see {@link #enabled()} @return a copy with it changed */
	public InstanceSettings withEnabled(boolean value) {
		return new InstanceSettings(value, this.instanceId, this.heartbeatInterval, this.goneAfter, this.removeAfter,
				this.maxLag);
	}

	/** @param value see {@link #instanceId()} @return a copy with it changed */
	public InstanceSettings withInstanceId(@Nullable String value) {
		return new InstanceSettings(this.enabled, value, this.heartbeatInterval, this.goneAfter, this.removeAfter,
				this.maxLag);
	}

	/** @param value see {@link #heartbeatInterval()} @return a copy with it changed */
	public InstanceSettings withHeartbeatInterval(Duration value) {
		return new InstanceSettings(this.enabled, this.instanceId, value, this.goneAfter, this.removeAfter,
				this.maxLag);
	}

	/** @param value see {@link #goneAfter()} @return a copy with it changed */
	public InstanceSettings withGoneAfter(Duration value) {
		return new InstanceSettings(this.enabled, this.instanceId, this.heartbeatInterval, value, this.removeAfter,
				this.maxLag);
	}

	/** @param value see {@link #removeAfter()} @return a copy with it changed */
	public InstanceSettings withRemoveAfter(Duration value) {
		return new InstanceSettings(this.enabled, this.instanceId, this.heartbeatInterval, this.goneAfter, value,
				this.maxLag);
	}

	/** @param value see {@link #maxLag()} @return a copy with it changed */
	public InstanceSettings withMaxLag(Duration value) {
		return new InstanceSettings(this.enabled, this.instanceId, this.heartbeatInterval, this.goneAfter,
				this.removeAfter, value);
	}

}
