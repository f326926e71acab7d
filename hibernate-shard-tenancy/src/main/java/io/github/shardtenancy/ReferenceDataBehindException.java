package io.github.shardtenancy;

import java.util.List;

/**
 * A reference-data write (or repair) that committed on some ACTIVE shards but not on others: the write is recorded in
 * the directory at {@link #directoryVersion()} and is applied to every shard not listed here; the listed shards are
 * behind and do not serve tenant-free reference reads until {@link ReferenceTables#repair()} (or a registration, or a
 * reconciliation) replays the missing writes on them. Do not write again: the write is not lost.
 *
 * <p>The shard's failure is attached as a suppressed exception, not as the cause, so that no retry layer takes it for
 * a retryable failure (a fence rejection, a serialization failure) and runs the write again.
 */
public class ReferenceDataBehindException extends ShardTenancyException {

	private final List<String> shardsBehind;

	/**
	 * @param version the directory version of the latest reference write
	 * @param shardsBehind the shards that do not have it, never empty
	 * @param failure the first shard's failure (attached as suppressed), or {@code null}
	 */
	public ReferenceDataBehindException(long version, List<String> shardsBehind, Throwable failure) {
		super("Reference data at directory version " + version + " is not applied on shard(s) " + shardsBehind
				+ " (unreachable or failing; the write is recorded in the directory and committed on the other "
				+ "shards); run ShardTenancy.referenceTables().repair() once they are back"
				+ (failure != null ? ": " + failure.getMessage() : ""), null, shardsBehind.get(0), version, null);
		this.shardsBehind = List.copyOf(shardsBehind);
		if (failure != null) {
			addSuppressed(failure);
		}
	}

	/** @return the shards behind, sorted; never empty */
	public List<String> shardsBehind() {
		return this.shardsBehind;
	}

}
