package io.github.shardtenancy;

import java.util.List;
import java.util.Set;

/**
 * Writes and checks reference data: tables with the same rows on every shard (see {@link ReferenceData}). Obtained
 * from {@link ShardTenancy#referenceTables()}. Thread-safe.
 *
 * <p>A write is a list of {@link ReferenceStatement}s, applied on every ACTIVE shard or on none: under the
 * directory's writer lock, each shard's transaction replays the earlier writes it misses, runs the statements, sets
 * the shard's applied version and is prepared (two-phase commit, where the database keeps prepared transactions) or
 * kept open; a shard that refuses or cannot be reached rolls every shard back with nothing recorded. Otherwise the
 * write is recorded in the directory's reference log at a new directory version (the decision), then committed on
 * each shard. A shard whose commit fails after the decision is behind ({@link ReferenceDataBehindException}) and gets
 * the write from {@link #repair()}, the next write, the registration of a shard, or {@link ShardTenancy#reconcile()};
 * replay is idempotent (each version is applied once, under the shard's version row lock) and resumable.
 */
public interface ReferenceTables {

	/**
	 * @return the reference tables (lower case), from {@link ReferenceData} entities and the builder; never
	 * {@code null}
	 */
	Set<String> tables();

	/**
	 * Applies a write to every ACTIVE shard.
	 * @param statements the statements, in order, at least one; never {@code null}
	 * @return the directory version of the write
	 * @throws ReferenceWriteException if a shard refuses the statements, or misses an earlier write it refuses, or an
	 * ACTIVE shard cannot be reached: nothing was recorded or committed on any shard; the exception names the shard
	 * @throws ReferenceDataBehindException if the write is recorded but one or more ACTIVE shards failed to commit it
	 * after the decision (it is not lost: do not write again)
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws IllegalArgumentException if {@code statements} is empty
	 */
	long write(List<ReferenceStatement> statements);

	/**
	 * Replays the recorded writes an ACTIVE shard misses, on every ACTIVE shard behind.
	 * @return the directory version every ACTIVE shard is at now
	 * @throws ReferenceDataBehindException if a shard still cannot be caught up: named as unreachable or as refusing a
	 * logged write, with the reason
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	long repair();

	/**
	 * Reads the version and a checksum of every reference table on every ACTIVE shard.
	 * @return the report; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	ReferenceDataReport verify();

}
