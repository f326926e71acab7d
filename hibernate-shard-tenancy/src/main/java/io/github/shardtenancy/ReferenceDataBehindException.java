package io.github.shardtenancy;

import java.util.List;

/**
 * A reference-data write (or repair) that committed on some ACTIVE shards but not on others: the write is recorded in
 * the directory at {@link #directoryVersion()} and is applied to every shard not listed here; the listed shards are
 * behind and do not serve tenant-free reference reads until {@link ReferenceTables#repair()} (or a registration, or a
 * reconciliation) replays the missing writes on them. Do not write again: the write is not lost.
 */
public class ReferenceDataBehindException extends ShardTenancyException {

	private final List<String> shardsBehind;

	/**
	 * @param version the directory version of the latest reference write
	 * @param shardsBehind the shards that do not have it, never empty
	 * @param cause the first shard's failure, or {@code null}
	 */
	public ReferenceDataBehindException(long version, List<String> shardsBehind, Throwable cause) {
		super("Reference data at directory version " + version + " is not applied on shard(s) " + shardsBehind
				+ " (unreachable or failing; the write is recorded in the directory and committed on the other "
				+ "shards); run ShardTenancy.referenceTables().repair() once they are back"
				+ (cause != null ? ": " + cause.getMessage() : ""), null, shardsBehind.get(0), version, cause);
		this.shardsBehind = List.copyOf(shardsBehind);
	}

	/** @return the shards behind, sorted; never empty */
	public List<String> shardsBehind() {
		return this.shardsBehind;
	}

}
