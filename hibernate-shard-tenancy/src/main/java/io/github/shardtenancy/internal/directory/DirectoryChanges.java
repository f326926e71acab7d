package io.github.shardtenancy.internal.directory;

import io.github.shardtenancy.DirectoryEntry;
import java.util.List;

/**
 * The entries that changed in a range of directory versions.
 *
 * @param fromVersion the exclusive lower bound asked for
 * @param toVersion the directory version the answer is complete up to (inclusive); a router that applies the entries
 * may advance its cached version to it
 * @param entries the changed entries in version order, each in its latest state at or below {@code toVersion}
 */
public record DirectoryChanges(long fromVersion, long toVersion, List<DirectoryEntry> entries) {

	public DirectoryChanges {
		entries = List.copyOf(entries);
	}

}
