package io.github.shardtenancy;

import java.util.List;
import java.util.Set;

/**
 * Writes and checks reference data: tables with the same rows on every shard (see {@link ReferenceData}). Obtained
 * from {@link ShardTenancy#referenceTables()}. Thread-safe.
 *
 * <p>A write is a list of {@link ReferenceStatement}s. It is tried on one shard first (rolled back; a failing
 * statement refuses the write with nothing recorded), then recorded in the directory's reference log at a new
 * directory version, then applied to every ACTIVE shard, each in its own transaction that first replays any earlier
 * write the shard misses, then updates the shard's applied version. A shard that cannot be written is reported
 * ({@link ReferenceDataBehindException}) and caught up by {@link #repair()}, by the registration of a shard, or by
 * {@link ShardTenancy#reconcile()}; replay is idempotent (each version is applied once, under the shard's version row
 * lock) and resumable.
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
	 * @throws ReferenceWriteException if the statements fail on the trial shard or no ACTIVE shard can be reached:
	 * nothing was recorded or committed
	 * @throws ReferenceDataBehindException if the write is recorded but one or more ACTIVE shards do not have it
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws IllegalArgumentException if {@code statements} is empty
	 */
	long write(List<ReferenceStatement> statements);

	/**
	 * Replays the recorded writes an ACTIVE shard misses, on every ACTIVE shard behind.
	 * @return the directory version every ACTIVE shard is at now
	 * @throws ReferenceDataBehindException if a shard still cannot be caught up (it is named)
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
