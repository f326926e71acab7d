package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.DirectoryEvent;
import io.github.shardtenancy.Ownership;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.TenantState;

/**
 * Questions answered from the directory's history: every entry change ({@code shard_directory_history}, written by
 * {@link Directory} with who, when, from, to, epoch and version) and every other directory change
 * ({@code shard_directory_event}). Read-only and thread-safe.
 */
public class DirectoryHistory {

	private final Directory directory;

	/** @param directory the directory */
	public DirectoryHistory(Directory directory) {
		this.directory = Objects.requireNonNull(directory, "directory");
	}

	/**
	 * Which shard owned a tenant at a moment: the owner recorded by the last change that committed at or before it
	 * (ties broken by directory version).
	 * @param tenantId the tenant
	 * @param at the moment, compared with the directory database's commit timestamps
	 * @return the owner then, with the entry's state (DELETED for a deleted tenant); empty if the tenant did not exist
	 * yet
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public Optional<Ownership> ownerAt(String tenantId, Instant at) {
		TenantIds.requireValid(tenantId);
		Objects.requireNonNull(at, "at");
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT to_shard_id, to_state, version, changed_at, "
						+ "changed_by FROM shard_directory_history WHERE tenant_id = ? AND changed_at <= ? "
						+ "ORDER BY changed_at DESC, version DESC FETCH FIRST 1 ROWS ONLY")) {
			ps.setString(1, tenantId);
			ps.setTimestamp(2, Timestamp.from(at));
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					return Optional.empty();
				}
				return Optional.of(new Ownership(tenantId, rs.getString(1), TenantState.valueOf(rs.getString(2)),
						rs.getLong(3), rs.getTimestamp(4).toInstant(), rs.getString(5)));
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	/**
	 * @param sinceVersion the exclusive lower bound (0 for all)
	 * @return the lifecycle events after that version, oldest first
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<DirectoryEvent> events(long sinceVersion) {
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT version, kind, subject, from_value, to_value, "
						+ "changed_at, changed_by FROM shard_directory_event WHERE version > ? ORDER BY version, id")) {
			ps.setLong(1, sinceVersion);
			List<DirectoryEvent> events = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					events.add(new DirectoryEvent(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
							rs.getString(5), rs.getTimestamp(6).toInstant(), rs.getString(7)));
				}
			}
			return events;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, sinceVersion, ex);
		}
	}

}
