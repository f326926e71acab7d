package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.shardtenancy.IdGenerationException;

/**
 * The {@code Integer} ids of {@link io.github.shardtenancy.ShardSafeId}: blocks leased from the global counter in the
 * directory database (table {@code shard_id_block}, row {@code integer}, created by the directory changelog
 * {@code directory-id-blocks.xml}) and handed out from memory. One directory round trip per block: a compare-and-set
 * {@code UPDATE} of the counter from the value read to the value after the block, so two instances never lease
 * overlapping blocks, whatever the database's isolation. A block leased and not used up (the instance stopped) is
 * skipped: ids are never handed out twice.
 *
 * <p>Thread-safe: {@link #next()} is serialised on this object; the directory is read only when the block is used up.
 */
final class IdBlocks {

	private static final String TABLE = "shard_id_block";

	private static final String COUNTER = "integer";

	/** One more than the highest id a block may contain. */
	static final long LIMIT = Integer.MAX_VALUE + 1L;

	private final DataSource dataSource;

	private final int blockSize;

	/** The next id of the current block; {@code next == end} when none is left. */
	private long next;

	private long end;

	/**
	 * @param dataSource the directory database
	 * @param blockSize how many ids one round trip leases; positive
	 */
	IdBlocks(DataSource dataSource, int blockSize) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		if (blockSize < 1) {
			throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
		}
		this.blockSize = blockSize;
	}

	/**
	 * @return a new id, unique across every instance of the directory for its whole life
	 * @throws IdGenerationException if the counter reached {@link Integer#MAX_VALUE}, or the directory could not be
	 * read or written to lease a block
	 */
	synchronized int next() {
		if (this.next == this.end) {
			lease();
		}
		return (int) this.next++;
	}

	private void lease() {
		try {
			for (int attempt = 0; attempt < 100; attempt++) {
				try (Connection c = this.dataSource.getConnection()) {
					c.setAutoCommit(true);
					long start = read(c);
					if (start >= LIMIT) {
						throw exhausted(start);
					}
					long after = Math.min(start + this.blockSize, LIMIT);
					if (compareAndSet(c, start, after)) {
						this.next = start;
						this.end = after;
						return;
					}
				}
			}
		}
		catch (SQLException ex) {
			throw new IdGenerationException("No block of Integer ids could be leased: the directory could not be "
					+ "reached (table " + TABLE + "): " + ex.getMessage(), ex);
		}
		throw new IdGenerationException("No block of Integer ids could be leased: other instances moved the counter "
				+ "first 100 times in a row (table " + TABLE + ")", null);
	}

	private static IdGenerationException exhausted(long start) {
		return new IdGenerationException("The Integer ids of @ShardSafeId are used up: the counter (table " + TABLE
				+ ", " + start + ") reached Integer.MAX_VALUE (2147483647), the most Integer ids all entities of all "
				+ "tenants can have together. Change the ids to Long (@ShardSafeId Long ids have no shared counter)",
				null);
	}

	private static long read(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT next_id FROM " + TABLE + " WHERE counter_name = ?")) {
			ps.setString(1, COUNTER);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					throw new IdGenerationException("The directory has no counter '" + COUNTER + "' in table " + TABLE
							+ ": migrate the directory (changelog directory-id-blocks.xml)", null);
				}
				return rs.getLong(1);
			}
		}
	}

	private static boolean compareAndSet(Connection c, long expected, long after) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET next_id = ?, updated_at = ? "
				+ "WHERE counter_name = ? AND next_id = ?")) {
			ps.setLong(1, after);
			ps.setTimestamp(2, Timestamp.from(Instant.now()));
			ps.setString(3, COUNTER);
			ps.setLong(4, expected);
			return ps.executeUpdate() == 1;
		}
	}

}
