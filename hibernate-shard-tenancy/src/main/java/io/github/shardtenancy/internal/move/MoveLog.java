package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;

/**
 * The move log ({@code shard_move}, created by {@code db/shard-tenancy/directory-moves.xml}) in the directory database.
 * Every write after the first is conditional on the caller still owning the move. Thread-safe; each call uses its own
 * auto-commit connection.
 */
final class MoveLog {

	private static final String COLUMNS = "move_id, tenant_id, source_shard_id, target_shard_id, step, step_data, "
			+ "options, owner, heartbeat, created_at, frozen_at, flipped_at, finished_at, error, clean_after";

	private final DataSource dataSource;

	MoveLog(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/** Thrown when a conditional write finds another owner: this mover must stop without touching anything. */
	static final class OwnershipLostException extends MoveException {

		OwnershipLostException(String moveId, String tenantId, String owner) {
			super("Move " + moveId + " of tenant '" + tenantId + "' is no longer owned by " + owner
					+ ": another mover took it over; this one stops", tenantId, null, -1, null);
		}

	}

	/** A row of the log, with the clean-after time that {@link MoveStatus} does not show. */
	record Row(MoveStatus status, Instant cleanAfter) {
	}

	/**
	 * Inserts a new move owned by {@code owner}.
	 * @return {@code false} if the tenant already has an unfinished move (the unique index refused the row)
	 */
	boolean insert(String moveId, String tenantId, String source, String target, MoveSettings settings, String owner) {
		Timestamp now = now();
		try (Connection c = this.dataSource.getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO shard_move (move_id, tenant_id, active_tenant, "
						+ "source_shard_id, target_shard_id, step, options, owner, heartbeat, created_at, updated_at) "
						+ "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
			ps.setString(1, moveId);
			ps.setString(2, tenantId);
			ps.setString(3, tenantId);
			ps.setString(4, source);
			ps.setString(5, target);
			ps.setString(6, MoveStep.PLANNED.name());
			ps.setString(7, encode(settings));
			ps.setString(8, owner);
			ps.setTimestamp(9, now);
			ps.setTimestamp(10, now);
			ps.setTimestamp(11, now);
			ps.executeUpdate();
			return true;
		}
		catch (SQLException ex) {
			if (ex.getSQLState() != null && ex.getSQLState().startsWith("23")) {
				return false;
			}
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	Optional<Row> find(String moveId) {
		return query("SELECT " + COLUMNS + " FROM shard_move WHERE move_id = ?", moveId, null);
	}

	/** @return the unfinished moves at step FLIPPED, oldest first */
	List<MoveStatus> findFlipped() {
		List<MoveStatus> moves = new ArrayList<>();
		try (Connection c = this.dataSource.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM shard_move WHERE active_tenant IS "
						+ "NOT NULL AND step = ? ORDER BY created_at")) {
			ps.setString(1, MoveStep.FLIPPED.name());
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					moves.add(status(rs));
				}
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
		return moves;
	}

	Optional<Row> findActive(String tenantId) {
		return query("SELECT " + COLUMNS + " FROM shard_move WHERE active_tenant = ?", tenantId, tenantId);
	}

	/**
	 * Takes a move over: succeeds if nobody holds it, this owner holds it, or the holder's heartbeat is older than the
	 * lease.
	 * @return whether this owner now holds it
	 */
	boolean claim(String moveId, String owner, Duration lease) {
		Timestamp now = now();
		return update("UPDATE shard_move SET owner = ?, heartbeat = ?, updated_at = ? WHERE move_id = ? "
				+ "AND active_tenant IS NOT NULL AND (owner IS NULL OR owner = ? OR heartbeat IS NULL OR heartbeat <= ?)",
				null, owner, now, now, moveId, owner, Timestamp.from(now.toInstant().minus(lease))) == 1;
	}

	/** Gives a move up (after a failure), so that any mover may resume it at once. */
	void release(String moveId, String owner, String error) {
		update("UPDATE shard_move SET owner = NULL, error = ?, updated_at = ? WHERE move_id = ? AND owner = ?", null,
				truncate(error), now(), moveId, owner);
	}

	/** Records progress within a step; doubles as the heartbeat. */
	void progress(MoveStatus move, String owner, String stepData) {
		Timestamp now = now();
		requireOwned(move, owner, update("UPDATE shard_move SET step_data = ?, heartbeat = ?, updated_at = ? "
				+ "WHERE move_id = ? AND owner = ?", move, truncate(stepData), now, now, move.moveId(), owner));
	}

	/** Records a completed step. */
	void step(MoveStatus move, String owner, MoveStep step, String stepData) {
		Timestamp now = now();
		requireOwned(move, owner, update("UPDATE shard_move SET step = ?, step_data = ?, heartbeat = ?, updated_at = ?, "
				+ "error = NULL WHERE move_id = ? AND owner = ?", move, step.name(), truncate(stepData), now, now,
				move.moveId(), owner));
	}

	void frozenAt(MoveStatus move, String owner, Instant at) {
		requireOwned(move, owner, update("UPDATE shard_move SET frozen_at = COALESCE(frozen_at, ?) WHERE move_id = ? "
				+ "AND owner = ?", move, Timestamp.from(at), move.moveId(), owner));
	}

	void flippedAt(MoveStatus move, String owner, Instant at, Instant cleanAfter) {
		requireOwned(move, owner, update("UPDATE shard_move SET flipped_at = COALESCE(flipped_at, ?), "
				+ "clean_after = COALESCE(clean_after, ?) WHERE move_id = ? AND owner = ?", move, Timestamp.from(at),
				Timestamp.from(cleanAfter), move.moveId(), owner));
	}

	/** Sets when a revert's clean of the target may run (the revert's flip plus the clean delay). */
	void cleanAfter(MoveStatus move, String owner, Instant cleanAfter) {
		requireOwned(move, owner, update("UPDATE shard_move SET clean_after = ? WHERE move_id = ? AND owner = ?", move,
				Timestamp.from(cleanAfter), move.moveId(), owner));
	}

	/** Records the final step and releases the tenant's lock and the ownership. */
	void finish(MoveStatus move, String owner, MoveStep step, String stepData) {
		Timestamp now = now();
		requireOwned(move, owner, update("UPDATE shard_move SET step = ?, step_data = ?, active_tenant = NULL, "
				+ "owner = NULL, heartbeat = ?, updated_at = ?, finished_at = ? WHERE move_id = ? AND owner = ?", move,
				step.name(), truncate(stepData), now, now, now, move.moveId(), owner));
	}

	private static void requireOwned(MoveStatus move, String owner, int updated) {
		if (updated != 1) {
			throw new OwnershipLostException(move.moveId(), move.tenantId(), owner);
		}
	}

	private int update(String sql, MoveStatus move, Object... parameters) {
		try (Connection c = this.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				ps.setObject(i + 1, parameters[i]);
			}
			return ps.executeUpdate();
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(move != null ? move.tenantId() : null, -1, ex);
		}
	}

	private Optional<Row> query(String sql, String parameter, String tenantId) {
		try (Connection c = this.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, parameter);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					return Optional.empty();
				}
				return Optional.of(new Row(status(rs), instant(rs, 15)));
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	private static MoveStatus status(ResultSet rs) throws SQLException {
		return new MoveStatus(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
				MoveStep.valueOf(rs.getString(5)), rs.getString(6), decode(rs.getString(7)), rs.getString(8),
				instant(rs, 9), instant(rs, 10), instant(rs, 11), instant(rs, 12), instant(rs, 13), rs.getString(14));
	}

	/** @return the settings as stored in the move log's {@code options} column ({@code key=value;...}) */
	static String encode(MoveSettings settings) {
		return "batchSize=" + settings.batchSize() + ";throttleMs=" + settings.throttle().toMillis()
				+ ";catchUpLagThreshold=" + settings.catchUpLagThreshold() + ";maxCatchUpRounds="
				+ settings.maxCatchUpRounds() + ";cleanDelayMs=" + settings.cleanDelay().toMillis() + ";capture="
				+ settings.capture() + (settings.hasSoak() ? ";soakMs=" + settings.soak().toMillis() : "");
	}

	/**
	 * @param encoded as written by {@link #encode(MoveSettings)}
	 * @return the settings; missing keys take the defaults (so rows written before a key existed still read)
	 */
	static MoveSettings decode(String encoded) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String pair : encoded.split(";")) {
			int eq = pair.indexOf('=');
			if (eq > 0) {
				values.put(pair.substring(0, eq), pair.substring(eq + 1));
			}
		}
		MoveSettings d = MoveSettings.defaults();
		return new MoveSettings(Integer.parseInt(values.getOrDefault("batchSize", "" + d.batchSize())),
				Duration.ofMillis(Long.parseLong(values.getOrDefault("throttleMs", "0"))),
				Long.parseLong(values.getOrDefault("catchUpLagThreshold", "" + d.catchUpLagThreshold())),
				Integer.parseInt(values.getOrDefault("maxCatchUpRounds", "" + d.maxCatchUpRounds())),
				Duration.ofMillis(Long.parseLong(values.getOrDefault("cleanDelayMs", "0"))),
				Boolean.parseBoolean(values.getOrDefault("capture", "true")),
				Duration.ofMillis(Long.parseLong(values.getOrDefault("soakMs", "0"))));
	}

	private static Instant instant(ResultSet rs, int column) throws SQLException {
		Timestamp value = rs.getTimestamp(column);
		return (value != null) ? value.toInstant() : null;
	}

	private static Timestamp now() {
		return Timestamp.from(Instant.now());
	}

	private static String truncate(String value) {
		return (value == null || value.length() <= 1000) ? value : value.substring(0, 1000);
	}

}
