package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.IdSettings;
import org.jspecify.annotations.Nullable;

/**
 * The generator leases in the directory database: table {@code shard_id_generator} (created by the directory
 * changelog {@code directory-ids.xml}), one row per generator id ever leased, with its current owner and
 * {@code expires_at}, the end of the lease in milliseconds since 1970 on the clock of the instance that holds it.
 *
 * <p>The rule that keeps ids unique, whatever the clocks of the instances: a holder issues ids only with a timestamp
 * below the {@code expires_at} it wrote last, and an instance that takes a generator id over (only once its
 * {@code expires_at} is in the past on its own clock) issues ids only with timestamps at or above that
 * {@code expires_at} (the {@link Lease#floor() floor}). The take-over is a compare-and-set on the owner and the
 * {@code expires_at} it read, and a renewal checks the owner, so a renewal and a take-over never both succeed.
 *
 * <p>Thread-safe: each call borrows its own connection (auto-commit; every change is one statement).
 */
final class GeneratorLeases {

	private static final String TABLE = "shard_id_generator";

	private final DataSource dataSource;

	private final long epochMillis;

	/**
	 * A generator id held until {@code expiresAt}.
	 * @param generatorId the generator id
	 * @param expiresAt the end of the lease, as written (ms since 1970, the holder's clock)
	 * @param floor the lowest timestamp (ms since 1970) this holder may put in an id
	 */
	record Lease(int generatorId, long expiresAt, long floor) {
	}

	/**
	 * @param dataSource the directory database
	 * @param epochMillis the epoch of this instance's ids (ms since 1970), recorded with every lease it takes
	 */
	GeneratorLeases(DataSource dataSource, long epochMillis) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		this.epochMillis = epochMillis;
	}

	/**
	 * Takes the lowest generator id whose lease expired (or that was released), or a new one.
	 * @param owner the new holder, unique per instance and start
	 * @param now the holder's clock, ms since 1970
	 * @param leaseMillis the lease, in ms
	 * @return the lease
	 * @throws SQLException if the directory cannot be read or written
	 * @throws IdGenerationException if all {@value IdSettings#MAX_GENERATORS} generator ids are held, or if a lease
	 * was ever taken with another epoch (its ids and ours could be equal)
	 */
	Lease acquire(String owner, long now, long leaseMillis) throws SQLException {
		for (int attempt = 0; attempt < 10; attempt++) {
			try (Connection c = this.dataSource.getConnection()) {
				c.setAutoCommit(true);
				List<Row> rows = rows(c);
				for (Row row : rows) {
					if (row.epochMillis() != this.epochMillis) {
						throw new IdGenerationException("Generator id " + row.generatorId() + " was leased with the id "
								+ "epoch " + Instant.ofEpochMilli(row.epochMillis()) + " (table " + TABLE + "), this "
								+ "instance uses " + Instant.ofEpochMilli(this.epochMillis) + ": ids of two epochs can "
								+ "be equal. Set shard-tenancy.ids.epoch (IdSettings.epoch) to "
								+ Instant.ofEpochMilli(row.epochMillis()) + " on every instance", null);
					}
				}
				for (Row row : rows) {
					if (row.expiresAt() <= now) {
						long expiresAt = Math.max(now + leaseMillis, row.expiresAt() + 1);
						if (takeOver(c, row, owner, expiresAt, now)) {
							return new Lease(row.generatorId(), expiresAt, row.expiresAt());
						}
					}
				}
				Set<Integer> used = new HashSet<>();
				rows.forEach((row) -> used.add(row.generatorId()));
				for (int id = 0; id < IdSettings.MAX_GENERATORS; id++) {
					if (!used.contains(id)) {
						if (insert(c, id, owner, now + leaseMillis, now, this.epochMillis)) {
							return new Lease(id, now + leaseMillis, 0);
						}
						break; // another instance took it first: read again
					}
				}
				if (used.size() >= IdSettings.MAX_GENERATORS) {
					throw new IdGenerationException("All " + IdSettings.MAX_GENERATORS + " generator ids are leased by "
							+ "live instances (table " + TABLE + "); stop an instance, or wait for a lease of a stopped "
							+ "one to expire", null);
				}
			}
		}
		throw new IdGenerationException("No generator id could be leased: other instances took each free one first "
				+ "(10 attempts)", null);
	}

	/**
	 * Extends a lease.
	 * @return whether the owner still held it (false: another instance took it over)
	 * @throws SQLException if the directory cannot be written
	 */
	boolean renew(int generatorId, String owner, long expiresAt, long now) throws SQLException {
		return update("UPDATE " + TABLE + " SET expires_at = ?, renewed_at = ? WHERE generator_id = ? AND owner = ?",
				generatorId, owner, expiresAt, now);
	}

	/**
	 * Gives a lease up: the generator id is free for any instance whose clock is past {@code issuedBelow}.
	 * @param issuedBelow one more than the highest timestamp the owner put in an id
	 * @throws SQLException if the directory cannot be written
	 */
	void release(int generatorId, String owner, long issuedBelow, long now) throws SQLException {
		update("UPDATE " + TABLE + " SET owner = NULL, expires_at = ?, renewed_at = ? WHERE generator_id = ? "
				+ "AND owner = ?", generatorId, owner, issuedBelow, now);
	}

	/** Runs an update whose parameters are: a time in ms, now, the generator id and the owner. */
	private boolean update(String sql, int generatorId, String owner, long millis, long now) throws SQLException {
		try (Connection c = this.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
			c.setAutoCommit(true);
			ps.setLong(1, millis);
			ps.setTimestamp(2, Timestamp.from(Instant.ofEpochMilli(now)));
			ps.setInt(3, generatorId);
			ps.setString(4, owner);
			return ps.executeUpdate() == 1;
		}
	}

	private record Row(int generatorId, @Nullable String owner, long expiresAt, long epochMillis) {
	}

	private static List<Row> rows(Connection c) throws SQLException {
		List<Row> rows = new ArrayList<>();
		try (PreparedStatement ps = c.prepareStatement(
				"SELECT generator_id, owner, expires_at, epoch_millis FROM " + TABLE + " ORDER BY generator_id");
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				rows.add(new Row(rs.getInt(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
			}
		}
		return rows;
	}

	private static boolean takeOver(Connection c, Row row, String owner, long expiresAt, long now)
			throws SQLException {
		String ownerIs = row.owner() == null ? "owner IS NULL" : "owner = ?";
		try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET owner = ?, expires_at = ?, "
				+ "leased_at = ?, renewed_at = ? WHERE generator_id = ? AND expires_at = ? AND " + ownerIs)) {
			Timestamp at = Timestamp.from(Instant.ofEpochMilli(now));
			ps.setString(1, owner);
			ps.setLong(2, expiresAt);
			ps.setTimestamp(3, at);
			ps.setTimestamp(4, at);
			ps.setInt(5, row.generatorId());
			ps.setLong(6, row.expiresAt());
			if (row.owner() != null) {
				ps.setString(7, row.owner());
			}
			return ps.executeUpdate() == 1;
		}
	}

	private static boolean insert(Connection c, int generatorId, String owner, long expiresAt, long now,
			long epochMillis) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE
				+ " (generator_id, owner, expires_at, leased_at, renewed_at, epoch_millis) VALUES (?, ?, ?, ?, ?, ?)")) {
			Timestamp at = Timestamp.from(Instant.ofEpochMilli(now));
			ps.setInt(1, generatorId);
			ps.setString(2, owner);
			ps.setLong(3, expiresAt);
			ps.setTimestamp(4, at);
			ps.setTimestamp(5, at);
			ps.setLong(6, epochMillis);
			ps.executeUpdate();
			return true;
		}
		catch (SQLException ex) {
			if (ex.getSQLState() != null && ex.getSQLState().startsWith("23")) {
				return false; // the primary key: another instance inserted it first
			}
			throw ex;
		}
	}

}
