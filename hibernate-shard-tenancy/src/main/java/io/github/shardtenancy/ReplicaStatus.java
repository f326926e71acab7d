package io.github.shardtenancy;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What this instance knows of one read replica of a shard ({@link ShardTopology#replicas()}).
 *
 * @param shardId the shard whose replica it is
 * @param name the replica's name, unique within the shard
 * @param lag how far behind its primary the replica is at most (every transaction committed on the primary longer ago
 * is replayed on it), as measured by the background lag sampler; {@code null} if unknown (not sampled, down,
 * promoted, or routing to replicas is off, which stops the sampling)
 * @param problem why the replica cannot serve reads now, or {@code null} if it can (lag aside)
 */
public record ReplicaStatus(String shardId, String name, @Nullable Duration lag, @Nullable String problem) {
}
