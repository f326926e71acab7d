package io.github.shardtenancy;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A reference-data write recorded in the directory at {@link #directoryVersion()} that one or more ACTIVE shards do
 * not have yet. Two kinds of shard are told apart, because the remedy differs:
 * <ul>
 * <li>{@link #unreachable()}: the shard could not be reached (or its connection broke) while the write committed or
 * while a repair replayed it; {@link ReferenceTables#repair()} finishes it once the shard is back.</li>
 * <li>{@link #refused()}: the shard is reachable but its database refuses a recorded write it misses (a constraint
 * its rows violate); {@link ReferenceTables#repair()} fails the same way until the rows the reason names are fixed on
 * that shard.</li>
 * </ul>
 * Do not write again: the write is not lost, and every other ACTIVE shard has it. The listed shards do not serve
 * tenant-free reference reads meanwhile.
 *
 * <p>The shards' failures are attached as suppressed exceptions, not as the cause, so that no retry layer takes one
 * for a retryable failure (a fence rejection, a serialization failure) and runs the write again.
 */
public class ReferenceDataBehindException extends ShardTenancyException {

	private final List<String> shardsBehind;

	private final Map<String, String> unreachable;

	private final Map<String, String> refused;

	/**
	 * @param version the directory version of the latest reference write
	 * @param unreachable each shard that could not be reached, with the reason; may be empty
	 * @param refused each shard whose database refuses a recorded write, with the database's reason; may be empty
	 * @param failures the shards' failures, attached as suppressed; may be empty
	 * @throws IllegalArgumentException if both maps are empty
	 */
	public ReferenceDataBehindException(long version, Map<String, String> unreachable, Map<String, String> refused,
			List<? extends Throwable> failures) {
		super(message(version, unreachable, refused), null, first(unreachable, refused), version, null);
		this.unreachable = Map.copyOf(unreachable);
		this.refused = Map.copyOf(refused);
		TreeSet<String> all = new TreeSet<>(unreachable.keySet());
		all.addAll(refused.keySet());
		this.shardsBehind = List.copyOf(all);
		failures.forEach(this::addSuppressed);
	}

	private static String first(Map<String, String> unreachable, Map<String, String> refused) {
		TreeSet<String> all = new TreeSet<>(unreachable.keySet());
		all.addAll(refused.keySet());
		if (all.isEmpty()) {
			throw new IllegalArgumentException("no shard is behind");
		}
		return all.first();
	}

	private static String message(long version, Map<String, String> unreachable, Map<String, String> refused) {
		StringBuilder message = new StringBuilder("Reference data at directory version ").append(version)
			.append(" is recorded in the directory and committed on every other ACTIVE shard, but not on shard(s) ");
		TreeSet<String> all = new TreeSet<>(unreachable.keySet());
		all.addAll(refused.keySet());
		message.append(all).append("; do not write it again.");
		new TreeMap<>(unreachable).forEach((shardId, reason) -> message.append(" Shard '").append(shardId)
			.append("' cannot be reached (").append(reason)
			.append("): run ShardTenancy.referenceTables().repair() once it is back."));
		new TreeMap<>(refused).forEach((shardId, reason) -> message.append(" Shard '").append(shardId)
			.append("' refuses a recorded write it misses (").append(reason)
			.append("): its rows no longer accept it; fix the rows the reason names on that shard, then run "
					+ "ShardTenancy.referenceTables().repair()."));
		return message.toString();
	}

	/** @return the shards behind, sorted; never empty */
	public List<String> shardsBehind() {
		return this.shardsBehind;
	}

	/** @return each shard behind because it could not be reached, with the reason; never {@code null} */
	public Map<String, String> unreachable() {
		return this.unreachable;
	}

	/**
	 * @return each shard behind because its database refuses a recorded write, with the database's reason; never
	 * {@code null}
	 */
	public Map<String, String> refused() {
		return this.refused;
	}

}
