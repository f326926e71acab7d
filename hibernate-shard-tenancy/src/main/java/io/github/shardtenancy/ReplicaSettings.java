package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether and how read-only transactions may be served by a replica of the tenant's shard.
 *
 * <p>A transaction goes to a replica only when all hold: routing is {@link #enabled()}; the transaction declared
 * itself read-only ({@link TransactionCharacteristics}, as {@code @Transactional(readOnly = true)} does through the
 * Spring Boot module); the tenant is {@link TenantState#ACTIVE} on the shard (a moving tenant reads from the primary);
 * and a replica of the shard is known, within {@link #sampleInterval()}, to have replayed everything the primary had
 * committed no longer than {@link #maxLag()} ago. Otherwise, or if the replica cannot be reached, the primary serves.
 *
 * @param enabled whether read-only transactions may go to replicas at all (off by default)
 * @param maxLag the most a replica may be behind its primary and still serve: a read on it sees every transaction
 * committed on the primary at least this long before the read began; positive
 * @param sampleInterval how often each replica's lag is measured in the background; keep it well below
 * {@code maxLag} (a replica counts as behind by at least the time since its last good sample); positive
 */
public record ReplicaSettings(boolean enabled, Duration maxLag, Duration sampleInterval) {

	/**
	 * @throws NullPointerException if a duration is {@code null}
	 * @throws IllegalArgumentException if a duration is not positive
	 */
	public ReplicaSettings {
		Objects.requireNonNull(maxLag, "maxLag");
		Objects.requireNonNull(sampleInterval, "sampleInterval");
		if (maxLag.isNegative() || maxLag.isZero() || sampleInterval.isNegative() || sampleInterval.isZero()) {
			throw new IllegalArgumentException("maxLag and sampleInterval must be positive: " + maxLag + ", "
					+ sampleInterval);
		}
	}

	/** @return routing off; when enabled, a maximum lag of 5 s sampled every 500 ms */
	public static ReplicaSettings defaults() {
		return new ReplicaSettings(false, Duration.ofSeconds(5), Duration.ofMillis(500));
	}

	/**
	 * @param maxLag the maximum acceptable lag
	 * @return routing on with this lag bound and the default sample interval (or {@code maxLag / 4} if smaller)
	 */
	public static ReplicaSettings enabled(Duration maxLag) {
		Duration interval = Duration.ofMillis(500);
		if (maxLag.dividedBy(4).compareTo(interval) < 0 && !maxLag.dividedBy(4).isZero()) {
			interval = maxLag.dividedBy(4);
		}
		return new ReplicaSettings(true, maxLag, interval);
	}

}
