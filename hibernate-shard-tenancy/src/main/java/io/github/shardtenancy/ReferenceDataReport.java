package io.github.shardtenancy;

import java.util.List;
import java.util.Map;

/**
 * The state of the reference data across the ACTIVE shards, from {@link ReferenceTables#verify()}.
 *
 * @param latestVersion the directory version of the latest reference write recorded (0 if none)
 * @param shardVersions each reachable ACTIVE shard's applied version
 * @param unreachable the ACTIVE shards that could not be read
 * @param checksums per reachable shard, per reference table, an order-independent checksum of its rows
 * @param differing the reference tables whose checksum differs between reachable shards, sorted
 */
public record ReferenceDataReport(long latestVersion, Map<String, Long> shardVersions, List<String> unreachable,
		Map<String, Map<String, Long>> checksums, List<String> differing) {

	/** @return the reachable shards whose applied version is below {@link #latestVersion()}, sorted */
	public List<String> behind() {
		return this.shardVersions.entrySet().stream().filter(e -> e.getValue() < this.latestVersion)
			.map(Map.Entry::getKey).sorted().toList();
	}

	/** @return whether every ACTIVE shard was read, is at the latest version and holds the same rows */
	public boolean consistent() {
		return this.unreachable.isEmpty() && behind().isEmpty() && this.differing.isEmpty();
	}

}
