package io.github.shardtenancy;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What one reconciliation run found. Immutable.
 *
 * @param startedAt when the run started
 * @param finishedAt when it finished
 * @param directoryVersion the directory version of the snapshot the shards were compared with
 * @param shardsChecked the shards whose rows were counted
 * @param tenantsChecked the directory entries compared
 * @param misplaced rows found on a shard that does not own their tenant
 * @param missing ACTIVE tenants with no row in any tenant table of their owner shard
 * @param unreachable shards that could not be read, with the error; their rows were not compared
 * @param referenceData the reference tables' versions and checksums per shard, after the run replayed the writes a
 * shard missed; {@code null} when no reference tables are declared (or the directory could not be read for them)
 */
public record ReconciliationReport(Instant startedAt, Instant finishedAt, long directoryVersion,
		List<String> shardsChecked, long tenantsChecked, List<MisplacedRows> misplaced, List<MissingRows> missing,
		Map<String, String> unreachable, @Nullable ReferenceDataReport referenceData) {

	/**
	 * A report without reference data.
	 * @param startedAt when the run started
	 * @param finishedAt when it finished
	 * @param directoryVersion the directory version of the snapshot the shards were compared with
	 * @param shardsChecked the shards whose rows were counted
	 * @param tenantsChecked the directory entries compared
	 * @param misplaced rows found on a shard that does not own their tenant
	 * @param missing ACTIVE tenants with no row in any tenant table of their owner shard
	 * @param unreachable shards that could not be read, with the error
	 */
	public ReconciliationReport(Instant startedAt, Instant finishedAt, long directoryVersion,
			List<String> shardsChecked, long tenantsChecked, List<MisplacedRows> misplaced, List<MissingRows> missing,
			Map<String, String> unreachable) {
		this(startedAt, finishedAt, directoryVersion, shardsChecked, tenantsChecked, misplaced, missing, unreachable,
				null);
	}

	public ReconciliationReport {
		shardsChecked = List.copyOf(shardsChecked);
		misplaced = List.copyOf(misplaced);
		missing = List.copyOf(missing);
		unreachable = Map.copyOf(unreachable);
	}

	/**
	 * @return whether the directory and the shards agree: nothing misplaced, missing or unreachable, and the reference
	 * data (if any) the same on every ACTIVE shard
	 */
	public boolean isClean() {
		return this.misplaced.isEmpty() && this.missing.isEmpty() && this.unreachable.isEmpty()
				&& (this.referenceData == null || this.referenceData.consistent());
	}

	/**
	 * Rows of a tenant on a shard that does not own it.
	 * @param shardId where the rows are
	 * @param tenantId their tenant
	 * @param table the tenant table
	 * @param rows how many
	 * @param ownerShardId the owner according to the directory, or {@code null} if the tenant has no entry
	 * @param ownerState the entry's state, or {@code null} if it has none
	 */
	public record MisplacedRows(String shardId, String tenantId, String table, long rows, String ownerShardId,
			TenantState ownerState) {
	}

	/**
	 * An ACTIVE tenant with no rows on its owner.
	 * @param tenantId the tenant
	 * @param ownerShardId its owner according to the directory
	 * @param version its entry's directory version
	 */
	public record MissingRows(String tenantId, String ownerShardId, long version) {
	}

}
