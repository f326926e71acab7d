package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryUnavailableException;

/**
 * Reads the online mover's lock on a tenant (its unfinished row in the move log, {@code shard_move}, in the directory
 * database), for the basic mover: a tenant with an unfinished online move, also one that has flipped but not been
 * cleaned, must not be moved by anything else. Stateless; thread-safe.
 */
public final class ActiveMoves {

	/**
	 * A tenant's unfinished online move.
	 * @param moveId the move
	 * @param step the name of its last recorded step
	 * @param sourceShardId where it moves from
	 * @param targetShardId where it moves to
	 */
	public record ActiveMove(String moveId, String step, String sourceShardId, String targetShardId) {
	}

	private ActiveMoves() {
	}

	/**
	 * @param directory a pool on the directory database
	 * @param tenantId the tenant
	 * @return its unfinished online move, if any
	 * @throws DirectoryUnavailableException if the move log cannot be read
	 */
	public static Optional<ActiveMove> find(DataSource directory, String tenantId) {
		try (Connection c = directory.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT move_id, step, source_shard_id, target_shard_id "
						+ "FROM shard_move WHERE active_tenant = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? Optional.of(new ActiveMove(rs.getString(1), rs.getString(2), rs.getString(3),
						rs.getString(4))) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

}
