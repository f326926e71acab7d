package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link io.github.shardtenancy.ShardSafeId} ids of one tenancy: a Snowflake-like generator (layout in
 * {@link IdSettings}) whose generator id is leased from the directory ({@link GeneratorLeases}) on {@link #start()}
 * and renewed in the background every third of the lease.
 *
 * <p>{@link #next()} refuses ({@link IdGenerationException}) rather than risk a duplicate: with no lease, or once the
 * lease's end passed without a renewal; when the clock is behind the last id's timestamp by more than
 * {@link IdSettings#maxClockBackwards()} (by less, it waits for the clock to catch up). A lease another instance took
 * over is taken again (possibly another generator id) by the next background run that reaches the directory.
 *
 * <p>{@code Integer} ids come from one counter per table ({@link IdBlocks}), raised above the largest id already in
 * the table on every shard ({@link IdFloors}): before this instance leases the counter's first block, at
 * {@link #raiseFloors(Map)} (the session factory's {@code @ShardSafeId} tables, when it is built) and
 * {@link #raiseFloors()} (every counter of the directory, at start-up), and for a shard migrated at runtime,
 * {@link #shardMigrated(Topology.Shard)}.
 *
 * <p>Thread-safe: {@link #next()} is serialised on this object (no database access inside); the background renewal
 * writes the directory outside that lock.
 */
public final class ShardIds implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(ShardIds.class);

	private static final int SHIFT_GENERATOR = IdSettings.SEQUENCE_BITS;

	private static final int SHIFT_TIMESTAMP = IdSettings.SEQUENCE_BITS + IdSettings.GENERATOR_BITS;

	private static final long MAX_TIMESTAMP = (1L << IdSettings.TIMESTAMP_BITS) - 1;

	private static final int MAX_SEQUENCE = IdSettings.IDS_PER_MILLISECOND - 1;

	private final GeneratorLeases leases;

	private final DataSource directory;

	/** The counters used so far, by name: the default counter and one per table. */
	private final ConcurrentMap<String, IdBlocks> blocks = new ConcurrentHashMap<>();

	/** The id column of each counter's table, as Hibernate maps it, by counter name; absent: the primary key. */
	private final ConcurrentMap<String, String> columns = new ConcurrentHashMap<>();

	/** Reads the largest ids already on the shards; {@code null} without shards (no floor). */
	private final @Nullable IdFloors floors;

	private final IdSettings settings;

	private final IdCheck check;

	private final Clock clock;

	private final @Nullable BackgroundScheduler scheduler;

	private final String owner;

	private final long epochMillis;

	private GeneratorLeases.@Nullable Lease lease;

	/** The end of the lease as last written; ids carry timestamps below it. */
	private long validUntil;

	private long lastMillis = Long.MIN_VALUE;

	private int sequence;

	private @Nullable Future<?> renewal;

	private @Nullable ScheduledExecutorService ownExecutor;

	private boolean closed;

	private @Nullable String lastFailure;

	/**
	 * @param directory the directory database's pool
	 * @param settings epoch, lease and tolerated clock step back
	 * @param check what a session factory built on the tenancy does with tenant entities whose ids would collide
	 * @param clock the clock of the timestamps and leases
	 * @param scheduler runs the renewal, or {@code null} for a daemon thread of this object's own
	 * @param actor who holds the lease (recorded with a random suffix, unique per start)
	 */
	public ShardIds(DataSource directory, IdSettings settings, IdCheck check, Clock clock,
			@Nullable BackgroundScheduler scheduler, String actor) {
		this(directory, null, settings, check, clock, scheduler, actor);
	}

	/**
	 * @param directory the directory database's pool
	 * @param shards the shards whose rows the {@code Integer} id counters start above, or {@code null} for none (the
	 * counters start at 1)
	 * @param settings epoch, lease and tolerated clock step back
	 * @param check what a session factory built on the tenancy does with tenant entities whose ids would collide
	 * @param clock the clock of the timestamps and leases
	 * @param scheduler runs the renewal, or {@code null} for a daemon thread of this object's own
	 * @param actor who holds the lease (recorded with a random suffix, unique per start)
	 */
	public ShardIds(DataSource directory, @Nullable Topology shards, IdSettings settings, IdCheck check, Clock clock,
			@Nullable BackgroundScheduler scheduler, String actor) {
		this.floors = (shards != null) ? new IdFloors(shards) : null;
		this.settings = Objects.requireNonNull(settings, "settings");
		this.leases = new GeneratorLeases(directory, settings.epoch().toEpochMilli());
		this.directory = Objects.requireNonNull(directory, "directory");
		this.check = Objects.requireNonNull(check, "check");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.scheduler = scheduler;
		String who = actor.length() > 150 ? actor.substring(0, 150) : actor;
		this.owner = who + "#" + UUID.randomUUID();
		this.epochMillis = settings.epoch().toEpochMilli();
	}

	/** @return the settings */
	public IdSettings settings() {
		return this.settings;
	}

	/** @return what to do with tenant entities whose ids would collide after a move */
	public IdCheck check() {
		return this.check;
	}

	/** @return the generator id held now, or empty without a valid lease */
	public synchronized OptionalInt generatorId() {
		return (this.lease != null && this.clock.millis() < this.validUntil)
				? OptionalInt.of(this.lease.generatorId()) : OptionalInt.empty();
	}

	/**
	 * Leases a generator id, unless one is held, and starts the background renewal. Idempotent.
	 * @throws DirectoryUnavailableException if the directory cannot be reached (the renewal keeps trying)
	 * @throws IdGenerationException if every generator id is leased
	 * @throws IllegalStateException if closed
	 */
	public void start() {
		synchronized (this) {
			if (this.closed) {
				throw new IllegalStateException("The tenancy is closed: no ids are generated");
			}
			if (this.renewal == null) {
				long period = Math.max(1, this.settings.lease().toMillis() / 3);
				Runnable task = this::renewQuietly;
				if (this.scheduler != null) {
					this.renewal = this.scheduler.scheduleWithFixedDelay(task, Duration.ofMillis(period),
							Duration.ofMillis(period));
				}
				else {
					ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (r) -> {
						Thread t = new Thread(r, "shard-tenancy-id-lease");
						t.setDaemon(true);
						return t;
					});
					this.ownExecutor = executor;
					this.renewal = executor.scheduleWithFixedDelay(task, period, period, TimeUnit.MILLISECONDS);
				}
			}
			if (this.lease != null) {
				return;
			}
		}
		try {
			acquire();
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * @return a new id, unique across every instance that leases from the same directory with the same epoch
	 * @throws IdGenerationException with no valid lease, when the clock stepped back too far, or when the epoch's 69
	 * years are over
	 */
	public synchronized long next() {
		long deadline = 0;
		while (true) {
			GeneratorLeases.Lease held = this.lease;
			long now = this.clock.millis();
			if (held == null) {
				throw new IdGenerationException("No generator id is leased" + (this.closed ? " (the tenancy is closed)"
						: this.lastFailure != null ? ": " + this.lastFailure : " yet"), null);
			}
			if (now >= this.validUntil) {
				throw new IdGenerationException("The lease of generator id " + held.generatorId() + " expired at "
						+ Instant.ofEpochMilli(this.validUntil) + " without renewal"
						+ (this.lastFailure != null ? " (" + this.lastFailure + ")" : "")
						+ "; no ids until the directory answers again", null);
			}
			if (now < this.lastMillis) {
				long behind = this.lastMillis - now;
				if (behind > this.settings.maxClockBackwards().toMillis()
						|| (deadline != 0 && System.nanoTime() - deadline > 0)) {
					throw new IdGenerationException("The clock moved backwards by " + behind + " ms (generator id "
							+ held.generatorId() + ", last id at " + Instant.ofEpochMilli(this.lastMillis)
							+ "), more than the tolerated " + this.settings.maxClockBackwards().toMillis() + " ms", null);
				}
				if (deadline == 0) {
					deadline = System.nanoTime() + this.settings.maxClockBackwards().toNanos();
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(behind));
				continue;
			}
			if (now == this.lastMillis) {
				if (this.sequence == MAX_SEQUENCE) {
					Thread.onSpinWait(); // all ids of this millisecond are used: wait for the next one
					continue;
				}
				this.sequence++;
			}
			else {
				this.lastMillis = now;
				this.sequence = 0;
			}
			long timestamp = this.lastMillis - this.epochMillis;
			if (timestamp < 0 || timestamp > MAX_TIMESTAMP) {
				throw new IdGenerationException("The clock (" + Instant.ofEpochMilli(this.lastMillis) + ") is outside "
						+ "the 2^41 ms after the id epoch " + this.settings.epoch(), null);
			}
			return (timestamp << SHIFT_TIMESTAMP) | ((long) held.generatorId() << SHIFT_GENERATOR) | this.sequence;
		}
	}

	/**
	 * @return a new {@code Integer} id of the default counter ({@value IdBlocks#DEFAULT_COUNTER}), as
	 * {@link #nextInt(String)}
	 * @throws IdGenerationException if the counter reached {@link Integer#MAX_VALUE}, or a block was needed and the
	 * directory could not be reached
	 * @throws IllegalStateException if closed
	 */
	public int nextInt() {
		return nextInt(IdBlocks.DEFAULT_COUNTER);
	}

	/**
	 * @param table the table (or counter) name; case-insensitive (the counter's key is its lower case), at most 128
	 * characters
	 * @return a new {@code Integer} id of the table's counter, unique across every instance of the directory for its
	 * whole life: the next of this instance's block of that counter, leased from the directory when the block is used
	 * up (no generator lease needed); the counter's row is created on first use, above the largest id already in the
	 * table on every shard, and raised above it before this instance leases its first block (the id column: as
	 * {@link #nextInt(String, String)} was told, else the table's one-column primary key, else {@code id}).
	 * Thread-safe; not serialised with {@link #next()}
	 * @throws IdGenerationException if the counter reached {@link Integer#MAX_VALUE}, or a block was needed and the
	 * directory could not be reached, or the largest id could not be read on a shard before the first block
	 * @throws IllegalArgumentException if {@code table} is blank or longer than 128 characters
	 * @throws IllegalStateException if closed
	 */
	public int nextInt(String table) {
		String counter = counterName(table);
		synchronized (this) {
			if (this.closed) {
				throw new IllegalStateException("The tenancy is closed: no ids are generated");
			}
		}
		return blocks(counter).next();
	}

	/**
	 * As {@link #nextInt(String)}, for an entity: {@code column} is its id column, whose largest value on the shards
	 * the counter starts above.
	 * @param table the root entity's table
	 * @param column the id column, as Hibernate maps it
	 * @return a new id
	 * @throws IdGenerationException as {@link #nextInt(String)}
	 * @throws IllegalArgumentException if {@code table} is blank or longer than 128 characters
	 * @throws IllegalStateException if closed
	 */
	public int nextInt(String table, String column) {
		this.columns.putIfAbsent(counterName(table), column);
		return nextInt(table);
	}

	private IdBlocks blocks(String counter) {
		return this.blocks.computeIfAbsent(counter, (name) -> new IdBlocks(this.directory, name,
				this.settings.integerBlockSize(), floorOf(name)));
	}

	private java.util.function.@Nullable LongSupplier floorOf(String counter) {
		IdFloors shards = this.floors;
		if (shards == null || counter.equals(IdBlocks.DEFAULT_COUNTER)) {
			return null; // the default counter has no table
		}
		return () -> shards.largest(counter, this.columns.get(counter));
	}

	/**
	 * Raises the counters of these tables above the largest id already in them on every shard, now rather than at
	 * the first id (a session factory's {@code @ShardSafeId Integer} tables, when it is built); a counter this
	 * instance raised already is left alone. Failures are logged: the first id tries again, and fails if it cannot.
	 * @param tableColumns the id column of each table, by table name
	 */
	public void raiseFloors(Map<String, String> tableColumns) {
		tableColumns.forEach((table, column) -> {
			if (!table.isBlank() && table.length() <= IdBlocks.MAX_NAME) { // else the first id says why
				this.columns.putIfAbsent(counterName(table), column);
				raiseQuietly(table);
			}
		});
	}

	/**
	 * Raises every counter of the directory (but the default one) above the largest id already in its table on
	 * every shard, as {@link #raiseFloors(Map)}: at start-up, after the shards' changelogs ran.
	 */
	public void raiseFloors() {
		if (this.floors == null) {
			return;
		}
		List<String> counters;
		try {
			counters = counters();
		}
		catch (SQLException ex) {
			log.warn("The Integer id counters are not raised above the ids already on the shards yet (each is before "
					+ "its first id): the directory could not be read: {}", ex.getMessage());
			return;
		}
		counters.forEach(this::raiseQuietly);
	}

	private void raiseQuietly(String table) {
		String counter = counterName(table);
		try {
			blocks(counter).floor();
		}
		catch (IdGenerationException ex) {
			log.warn("The Integer id counter '{}' is not raised above the ids already on the shards yet (it is before "
					+ "its first id): {}", counter, ex.getMessage());
		}
	}

	/**
	 * Raises every counter of the directory (but the default one) above the largest id already in its table on a
	 * shard just migrated at runtime (a shard registered with rows, or a changelog that seeds rows), and drops the ids
	 * of this instance's blocks in hand at or below it. Call it after the shard's changelogs ran.
	 * @param shard the shard
	 * @throws IdGenerationException if the shard or the directory could not be read
	 */
	public void shardMigrated(Topology.Shard shard) {
		IdFloors shards = this.floors;
		if (shards == null) {
			return;
		}
		List<String> counters;
		try {
			counters = counters();
		}
		catch (SQLException ex) {
			throw new IdGenerationException("The Integer id counters could not be raised above the ids on shard "
					+ shard.id() + ": the directory could not be read: " + ex.getMessage(), ex);
		}
		for (String counter : counters) {
			blocks(counter).raise(shards.largest(shard, counter, this.columns.get(counter)));
		}
	}

	/** @return the names of the directory's counters, but the default one */
	private List<String> counters() throws SQLException {
		List<String> counters = new ArrayList<>();
		try (Connection c = this.directory.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT counter_name FROM shard_id_block WHERE "
						+ "counter_name <> ? ORDER BY counter_name")) {
			ps.setString(1, IdBlocks.DEFAULT_COUNTER);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					counters.add(rs.getString(1));
				}
			}
		}
		return counters;
	}

	/**
	 * @param table a table name
	 * @return the key of its counter: the name in lower case
	 * @throws IllegalArgumentException if {@code table} is blank or longer than 128 characters
	 */
	static String counterName(String table) {
		Objects.requireNonNull(table, "table");
		if (table.isBlank() || table.length() > IdBlocks.MAX_NAME) {
			throw new IllegalArgumentException("An Integer id counter needs a table name of 1 to " + IdBlocks.MAX_NAME
					+ " characters, not '" + table + "'");
		}
		return table.toLowerCase(Locale.ROOT);
	}

	/** Renews the lease, or takes a new one after it was lost; failures are logged and tried again next time. */
	void renewQuietly() {
		try {
			renew();
		}
		catch (SQLException | RuntimeException ex) {
			synchronized (this) {
				this.lastFailure = "the directory could not be reached: " + ex.getMessage();
			}
			log.warn("Could not renew the id generator lease: {}", ex.getMessage());
		}
	}

	/**
	 * Renews the lease, or takes one when none is held.
	 * @throws SQLException if the directory cannot be reached
	 */
	void renew() throws SQLException {
		GeneratorLeases.Lease held;
		long now;
		long expiresAt;
		synchronized (this) {
			if (this.closed) {
				return;
			}
			held = this.lease;
			now = this.clock.millis();
			expiresAt = Math.max(this.validUntil, now + this.settings.lease().toMillis());
		}
		if (held == null) {
			acquire();
			return;
		}
		boolean renewed = this.leases.renew(held.generatorId(), this.owner, expiresAt, now);
		synchronized (this) {
			if (this.lease != held) {
				return;
			}
			if (renewed) {
				this.validUntil = Math.max(this.validUntil, expiresAt);
				this.lastFailure = null;
			}
			else {
				this.lease = null;
				this.lastFailure = "generator id " + held.generatorId() + " was taken over by another instance after "
						+ "its lease expired";
				log.warn("The lease of id generator {} was taken over by another instance; leasing another",
						held.generatorId());
			}
		}
		if (!renewed) {
			acquire();
		}
	}

	private void acquire() throws SQLException {
		GeneratorLeases.Lease taken = this.leases.acquire(this.owner, this.clock.millis(),
				this.settings.lease().toMillis());
		boolean release = false;
		synchronized (this) {
			if (this.closed || this.lease != null) {
				release = true;
			}
			else {
				this.lease = taken;
				this.validUntil = taken.expiresAt();
				// Never below the ids the previous holder may have issued, nor below our own.
				this.lastMillis = Math.max(this.lastMillis, taken.floor());
				this.lastFailure = null;
				log.info("Leased id generator {} until {}", taken.generatorId(), Instant.ofEpochMilli(this.validUntil));
			}
		}
		if (release) {
			this.leases.release(taken.generatorId(), this.owner, taken.floor() + 1, this.clock.millis());
		}
	}

	/** Stops the renewal and releases the lease (the generator id is free again at once). Idempotent. */
	@Override
	public void close() {
		GeneratorLeases.Lease held;
		long issuedBelow;
		synchronized (this) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			held = this.lease;
			this.lease = null;
			issuedBelow = Math.max(this.lastMillis, held != null ? held.floor() : 0) + 1;
			if (this.renewal != null) {
				this.renewal.cancel(false);
			}
			if (this.ownExecutor != null) {
				this.ownExecutor.shutdownNow();
			}
		}
		if (held != null) {
			try {
				this.leases.release(held.generatorId(), this.owner, issuedBelow, this.clock.millis());
			}
			catch (SQLException | RuntimeException ex) {
				log.warn("Could not release id generator {} (it is free again once its lease expires): {}",
						held.generatorId(), ex.getMessage());
			}
		}
	}

}
