package io.github.shardtenancy;

import java.time.Instant;

/**
 * One change to the directory's lifecycle tables ({@code shard_directory_event}): a shard registered or retired, slots
 * initialised or assigned, an override set or removed, a tenant pinned, unpinned or purged.
 *
 * @param version the directory version the change produced
 * @param kind what changed, e.g. {@code SHARD_RETIRED}, {@code SLOT_ASSIGNED}
 * @param subject the shard, slot or tenant concerned
 * @param from the value before, or {@code null}
 * @param to the value after, or {@code null}
 * @param changedAt when it committed (directory database clock)
 * @param changedBy who made it
 */
public record DirectoryEvent(long version, String kind, String subject, String from, String to, Instant changedAt,
		String changedBy) {
}
