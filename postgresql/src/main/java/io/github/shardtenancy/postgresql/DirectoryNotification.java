package io.github.shardtenancy.postgresql;

import java.util.Optional;

import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;

/**
 * One notification on the directory's channel ({@value DirectoryWatcher#CHANNEL}), as the directory changelog's
 * trigger sends it when a directory write commits: the new directory version, and the entry that write stamped with
 * it when there is exactly one.
 *
 * <p>Payload formats: {@code version} alone, or {@code version/tenant/shard/state/epoch/target} with an empty
 * {@code target} when no move is in progress (see {@code db/shard-tenancy/directory.xml}). Tenant ids cannot contain
 * {@code '/'}; a shard id that does, or any payload that does not parse into a valid entry, is reported as unreadable
 * and the watcher reads the directory instead.
 *
 * @param version the directory version the write committed, {@code >= 0}
 * @param entry the entry written at that version, or {@code null} when the payload carries none
 */
public record DirectoryNotification(long version, DirectoryEntry entry) {

	/**
	 * Parses a payload. Never throws.
	 * @param payload the notification's payload, may be {@code null}
	 * @return the notification, or empty if the payload is not one of the two formats or names an invalid entry
	 */
	public static Optional<DirectoryNotification> parse(String payload) {
		if (payload == null) {
			return Optional.empty();
		}
		String[] parts = payload.trim().split("/", -1);
		try {
			long version = Long.parseLong(parts[0]);
			if (version < 0) {
				return Optional.empty();
			}
			if (parts.length == 1) {
				return Optional.of(new DirectoryNotification(version, null));
			}
			if (parts.length != 6 || !TenantIds.isValid(parts[1]) || parts[2].isEmpty()) {
				return Optional.empty();
			}
			DirectoryEntry entry = new DirectoryEntry(parts[1], parts[2], TenantState.valueOf(parts[3]),
					parts[5].isEmpty() ? null : parts[5], Long.parseLong(parts[4]), version);
			return Optional.of(new DirectoryNotification(version, entry));
		}
		catch (IllegalArgumentException ex) { // NumberFormatException is one
			return Optional.empty();
		}
	}

}
