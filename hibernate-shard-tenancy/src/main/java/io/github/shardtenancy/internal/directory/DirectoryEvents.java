package io.github.shardtenancy.internal.directory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Appends to {@code shard_directory_event}, the history of the directory's lifecycle tables (shard registry, slots,
 * overrides, pins, deletions and purges), in the caller's directory transaction. Not part of the API.
 */
public final class DirectoryEvents {

	private DirectoryEvents() {
	}

	/**
	 * @param c the directory transaction
	 * @param version the directory version the transaction produces
	 * @param kind what changed, e.g. {@code SHARD_REGISTERED}, {@code SLOT_ASSIGNED}
	 * @param subject the shard, slot or tenant concerned
	 * @param from the value before, or {@code null}
	 * @param to the value after, or {@code null}
	 * @param actor who made the change
	 * @throws SQLException on a directory error
	 */
	public static void record(Connection c, long version, String kind, String subject, String from, String to,
			String actor) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_event (version, kind, subject, "
				+ "from_value, to_value, changed_at, changed_by) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?)")) {
			ps.setLong(1, version);
			ps.setString(2, kind);
			ps.setString(3, subject);
			ps.setString(4, from);
			ps.setString(5, to);
			ps.setString(6, actor);
			ps.executeUpdate();
		}
	}

}
