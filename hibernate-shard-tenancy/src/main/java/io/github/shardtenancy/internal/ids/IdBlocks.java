package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Objects;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import io.github.shardtenancy.IdGenerationException;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Integer} ids of one counter of {@link io.github.shardtenancy.ShardSafeId} (one per table, plus the default
 * counter {@value #DEFAULT_COUNTER}): blocks leased from the counter's row in the directory database (table
 * {@code shard_id_block} of the directory changelog {@code directory-id-blocks.xml}; the row is inserted on first use)
 * and handed out from memory. One directory round trip per block: a compare-and-set {@code UPDATE} of
 * the counter from the value read to the value after the block, so two instances never lease overlapping blocks,
 * whatever the database's isolation; two instances inserting the missing row at once are kept apart by its primary
 * key (the loser reads the winner's row). A block leased and not used up (the instance stopped) is skipped: ids are
 * never handed out twice.
 *
 * <p>The floor: before this object leases its first block, it asks its {@code largestId} (the largest id already in the
 * counter's table on every shard, {@link IdFloors}) and raises the counter above it: the row is inserted there, or an
 * existing row is moved up with one {@code UPDATE ... WHERE next_id < ?}, which never moves a counter backwards, so
 * two instances raising and leasing at once keep it monotonic. A counter without a table (the default counter) has
 * none and starts at 1. {@link #raise(long)} does the same for one shard's largest id (a shard migrated at runtime)
 * and drops the ids of the block in hand at or below it.
 *
 * <p>Thread-safe: {@link #next()} is serialised on this object; the directory is read only when the block is used up.
 */
final class IdBlocks {

	private static final String TABLE = "shard_id_block";

	/** The counter of {@code ShardTenancy.nextIntId()} and {@code ${intId:name}} (a table named so shares it). */
	static final String DEFAULT_COUNTER = "integer";

	/** The longest counter name (the column's width). */
	static final int MAX_NAME = 128;

	/** One more than the highest id a block may contain. */
	static final long LIMIT = Integer.MAX_VALUE + 1L;

	private final DataSource dataSource;

	private final String counter;

	private final int blockSize;

	/** The largest id already in the counter's table on every shard, or {@code null} for a counter without a table. */
	private final @Nullable LongSupplier largestId;

	/** Whether the counter was raised above {@link #largestId} by this object. */
	private boolean floored;

	/** The next id of the current block; {@code next == end} when none is left. */
	private long next;

	private long end;

	/**
	 * @param dataSource the directory database
	 * @param counter the counter's name (its row's key), at most {@value #MAX_NAME} characters
	 * @param blockSize how many ids one round trip leases; positive
	 */
	IdBlocks(DataSource dataSource, String counter, int blockSize) {
		this(dataSource, counter, blockSize, null);
	}

	/**
	 * @param dataSource the directory database
	 * @param counter the counter's name (its row's key), at most {@value #MAX_NAME} characters
	 * @param blockSize how many ids one round trip leases; positive
	 * @param largestId answers the largest id already in the counter's table on every shard (0 for none), or throws
	 * {@link IdGenerationException}; {@code null} for a counter without a table (no floor)
	 */
	IdBlocks(DataSource dataSource, String counter, int blockSize, @Nullable LongSupplier largestId) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		this.counter = Objects.requireNonNull(counter, "counter");
		if (blockSize < 1) {
			throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
		}
		this.blockSize = blockSize;
		this.largestId = largestId;
	}

	/**
	 * @return a new id, unique among the ids of this counter across every instance of the directory for its whole life
	 * @throws IdGenerationException if the counter reached {@link Integer#MAX_VALUE}, the directory could not be read
	 * or written to lease a block, or (before the first block) the largest id of the table could not be read on a
	 * shard
	 */
	synchronized int next() {
		if (this.next == this.end) {
			floor();
			lease();
		}
		return (int) this.next++;
	}

	/**
	 * Raises the counter above the largest id already in its table on every shard, unless this object did already
	 * (or the counter has no table). Called before the first lease; the eager calls at start-up make that first lease
	 * cheap.
	 * @throws IdGenerationException if a shard or the directory could not be read (not raised: tried again next time)
	 */
	synchronized void floor() {
		if (this.floored || this.largestId == null) {
			return;
		}
		raise(this.largestId.getAsLong());
		this.floored = true;
	}

	/**
	 * Raises the counter to {@code largest + 1} unless it is there or beyond (never backwards), and drops the ids at or
	 * below {@code largest} from the block in hand.
	 * @param largest the largest id present in the counter's table (on one shard or all); 0 or less for none
	 * @throws IdGenerationException if the directory could not be read or written
	 */
	synchronized void raise(long largest) {
		if (largest < 1) {
			return;
		}
		long above = largest + 1;
		try (Connection c = this.dataSource.getConnection()) {
			c.setAutoCommit(true);
			if (read(c) == null) {
				insert(c, above);
			}
			raiseTo(c, above);
		}
		catch (SQLException ex) {
			throw new IdGenerationException("The Integer id counter '" + this.counter + "' could not be raised above "
					+ "the largest id already in its table (" + largest + "): the directory could not be reached "
					+ "(table " + TABLE + "): " + ex.getMessage(), ex);
		}
		if (this.next < this.end && this.next <= largest) {
			this.next = Math.min(this.end, above);
		}
	}

	private void lease() {
		try {
			for (int attempt = 0; attempt < 100; attempt++) {
				try (Connection c = this.dataSource.getConnection()) {
					c.setAutoCommit(true);
					Long read = read(c);
					if (read == null) {
						insert(c, 1);
						continue;
					}
					long start = read;
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
			throw new IdGenerationException("No block of Integer ids of counter '" + this.counter + "' could be "
					+ "leased: the directory could not be reached (table " + TABLE + "; migrated with changelog "
					+ "directory-id-blocks.xml?): " + ex.getMessage(), ex);
		}
		throw new IdGenerationException("No block of Integer ids of counter '" + this.counter + "' could be leased: "
				+ "other instances moved the counter first 100 times in a row (table " + TABLE + ")", null);
	}

	private IdGenerationException exhausted(long start) {
		return new IdGenerationException("The Integer ids of @ShardSafeId counter '" + this.counter + "' are used up: "
				+ "the counter (table " + TABLE + ", " + start + ") reached Integer.MAX_VALUE (2147483647), the most "
				+ "Integer ids all tenants can have together in this table. Change the ids to Long (@ShardSafeId Long "
				+ "ids have no shared counter)", null);
	}

	private @Nullable Long read(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT next_id FROM " + TABLE + " WHERE counter_name = ?")) {
			ps.setString(1, this.counter);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getLong(1) : null;
			}
		}
	}

	/**
	 * Inserts the counter's row at {@code start}; another instance that inserted it first wins (integrity violation
	 * ignored).
	 */
	private void insert(Connection c, long start) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE
				+ " (counter_name, next_id, updated_at) VALUES (?, ?, ?)")) {
			ps.setString(1, this.counter);
			ps.setLong(2, start);
			ps.setTimestamp(3, Timestamp.from(Instant.now()));
			ps.executeUpdate();
		}
		catch (SQLException ex) {
			// SQLSTATE class 23: integrity constraint violation (here the primary key: the row exists now).
			if (ex.getSQLState() == null || !ex.getSQLState().startsWith("23")) {
				throw ex;
			}
		}
	}

	/**
	 * Moves the counter up to {@code above} if it is below: one statement, so a lease or a raise by another instance
	 * in between is never undone (the {@code WHERE} is evaluated on the row as the database locks it for the update).
	 */
	private void raiseTo(Connection c, long above) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET next_id = ?, updated_at = ? "
				+ "WHERE counter_name = ? AND next_id < ?")) {
			ps.setLong(1, above);
			ps.setTimestamp(2, Timestamp.from(Instant.now()));
			ps.setString(3, this.counter);
			ps.setLong(4, above);
			ps.executeUpdate();
		}
	}

	private boolean compareAndSet(Connection c, long expected, long after) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET next_id = ?, updated_at = ? "
				+ "WHERE counter_name = ? AND next_id = ?")) {
			ps.setLong(1, after);
			ps.setTimestamp(2, Timestamp.from(Instant.now()));
			ps.setString(3, this.counter);
			ps.setLong(4, expected);
			return ps.executeUpdate() == 1;
		}
	}

}
