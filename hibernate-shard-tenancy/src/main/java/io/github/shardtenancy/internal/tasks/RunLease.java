package io.github.shardtenancy.internal.tasks;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.shardtenancy.TenantTaskLeaseLostException;
import io.github.shardtenancy.TenantTaskRunLeasedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease of one named run in the directory ({@code shard_task_run}): taken at the start with a fencing token one
 * above the name's last, renewed by the run's heartbeat, checked inside each tenant's shard transaction before it
 * commits, released when the run ends. Once lost (another run took the name, the lease's end passed without a
 * renewal, or the run was closed) it stays lost. Each call uses its own directory connection. Thread-safe.
 */
final class RunLease {

	private static final Logger logger = LoggerFactory.getLogger(RunLease.class);

	static final String SELECT_RUN = "SELECT holder, token, lease_until FROM shard_task_run WHERE run_name = ?";

	static final String INSERT_RUN = "INSERT INTO shard_task_run (run_name, holder, token, lease_until, heartbeat_at) "
			+ "VALUES (?, ?, 1, ?, ?)";

	static final String TAKE_RUN = "UPDATE shard_task_run SET holder = ?, token = token + 1, lease_until = ?, "
			+ "heartbeat_at = ? WHERE run_name = ? AND token = ?";

	static final String RENEW_RUN = "UPDATE shard_task_run SET lease_until = ?, heartbeat_at = ? WHERE run_name = ? "
			+ "AND token = ?";

	static final String RELEASE_RUN = "UPDATE shard_task_run SET lease_until = ? WHERE run_name = ? AND token = ?";

	/** This process, as {@code pid@host}: the first part of every holder's name. */
	private static final String PROCESS = ManagementFactory.getRuntimeMXBean().getName();

	private final DataSource directory;

	private final Clock clock;

	private final String name;

	private final String holder;

	private final Duration duration;

	private final long token;

	/** The lease's end as this run knows it: the start of the last renewal that succeeded plus the duration. */
	private volatile Instant validUntil;

	/** Why the lease is lost, or {@code null} while held. */
	private volatile String lost;

	private RunLease(DataSource directory, Clock clock, String name, String holder, Duration duration, long token,
			Instant validUntil) {
		this.directory = directory;
		this.clock = clock;
		this.name = name;
		this.holder = holder;
		this.duration = duration;
		this.token = token;
		this.validUntil = validUntil;
	}

	/**
	 * Takes the lease of a run name: creates its row with token 1, or takes over a row whose lease ended, raising
	 * its token by one; both conditional, so that of two runs starting at once one gets the lease.
	 * @param directory the directory database
	 * @param clock the clock the lease's end is written by
	 * @param name the run's name
	 * @param duration the lease
	 * @return the lease, held
	 * @throws TenantTaskRunLeasedException if another run holds the lease
	 * @throws SQLException if the directory cannot be read or written
	 */
	static RunLease acquire(DataSource directory, Clock clock, String name, Duration duration) throws SQLException {
		String holder = PROCESS + "#" + UUID.randomUUID().toString().substring(0, 8);
		for (int attempt = 0; ; attempt++) {
			Instant now = clock.instant();
			Instant until = now.plus(duration);
			try (Connection c = directory.getConnection()) {
				c.setAutoCommit(true);
				Current current = read(c, name);
				if (current == null) {
					try {
						update(c, INSERT_RUN, name, holder, at(until), at(now));
						return new RunLease(directory, clock, name, holder, duration, 1, until);
					}
					catch (SQLException ex) {
						if (attempt > 0 || read(c, name) == null) {
							throw ex;
						}
						continue; // another run inserted it meanwhile: read it again
					}
				}
				if (current.leaseUntil.isAfter(now)) {
					throw new TenantTaskRunLeasedException(name, current.holder, current.leaseUntil);
				}
				if (update(c, TAKE_RUN, holder, at(until), at(now), name, current.token) == 1) {
					return new RunLease(directory, clock, name, holder, duration, current.token + 1, until);
				}
				// Another run took it over meanwhile: read it again (and be refused, unless it ended already).
			}
		}
	}

	/** @return the fencing token of this run: one above the name's token before */
	long token() {
		return this.token;
	}

	/** @return the holder's name, {@code pid@host#id} */
	String holder() {
		return this.holder;
	}

	/** @return the interval of the heartbeat: a third of the lease */
	Duration heartbeat() {
		return this.duration.dividedBy(3);
	}

	/** Renews the lease, from the heartbeat. A renewal that cannot reach the directory leaves the lease to lapse. */
	void renew() {
		if (lost() != null) {
			return;
		}
		Instant now = this.clock.instant();
		try (Connection c = this.directory.getConnection()) {
			c.setAutoCommit(true);
			if (update(c, RENEW_RUN, at(now.plus(this.duration)), at(now), this.name, this.token) == 1) {
				if (lost() == null) {
					this.validUntil = now.plus(this.duration);
				}
				return;
			}
			Current current = read(c, this.name);
			lose("the run " + ((current != null) ? quote(current.holder) + " took the name over with token "
					+ current.token : "of the name was deleted from shard_task_run"));
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Run '{}': lease (token {}) not renewed, it lapses at {} unless a later renewal succeeds: {}",
					this.name, this.token, this.validUntil, ex.toString());
		}
	}

	/**
	 * @return why the lease is lost, or {@code null} while this run holds it: a lease whose end passed without a
	 * renewal is lost from then on
	 */
	String lost() {
		String why = this.lost;
		if (why == null && !this.clock.instant().isBefore(this.validUntil)) {
			lose("its lease lapsed at " + this.validUntil + " without a renewal");
			why = this.lost;
		}
		return why;
	}

	/** Marks the lease lost for good; the first reason stays. */
	synchronized void lose(String why) {
		if (this.lost == null) {
			this.lost = why;
			logger.warn("Run '{}' (token {}) lost its lease: {}; it commits no further tenant", this.name, this.token,
					why);
		}
	}

	/**
	 * Checks, inside a tenant's shard transaction and just before its commit, that this run still holds the lease:
	 * not lost here, and the directory's row still has this run's token and a lease that has not ended.
	 * @param tenantId the tenant whose transaction is checked
	 * @param shardId the shard of the transaction, or {@code null}
	 * @throws TenantTaskLeaseLostException if it does not, or the directory cannot tell
	 */
	void confirm(String tenantId, String shardId) {
		String why = lost();
		if (why == null) {
			try (Connection c = this.directory.getConnection()) {
				c.setAutoCommit(true);
				Current current = read(c, this.name);
				if (current == null || current.token != this.token) {
					lose("the run " + ((current != null) ? quote(current.holder) + " took the name over with token "
							+ current.token : "of the name was deleted from shard_task_run"));
				}
				else if (!current.leaseUntil.isAfter(this.clock.instant())) {
					lose("its lease ended at " + current.leaseUntil + " in the directory");
				}
			}
			catch (SQLException | RuntimeException ex) {
				throw refused(tenantId, shardId, "the directory cannot confirm its lease (" + ex + ")");
			}
			why = this.lost;
		}
		if (why != null) {
			throw refused(tenantId, shardId, why);
		}
	}

	/**
	 * @param tenantId the tenant
	 * @param shardId the shard, or {@code null}
	 * @param why why the work is not committed
	 * @return the typed refusal of a tenant's work
	 */
	TenantTaskLeaseLostException refused(String tenantId, String shardId, String why) {
		return new TenantTaskLeaseLostException("Run " + quote(this.name) + " (holder " + quote(this.holder)
				+ ", token " + this.token + ") does not commit the work of tenant " + quote(tenantId)
				+ ((shardId != null) ? " on shard " + quote(shardId) : "") + ": " + why
				+ "; the run that holds the name now, or a resumed one, runs it", this.name, tenantId, shardId,
				this.token);
	}

	/** Ends the lease at once, if this run still holds it, so that the name can be resumed without waiting. */
	void release() {
		try (Connection c = this.directory.getConnection()) {
			c.setAutoCommit(true);
			update(c, RELEASE_RUN, at(this.clock.instant()), this.name, this.token);
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Run '{}': lease (token {}) not released, it lapses at {}: {}", this.name, this.token,
					this.validUntil, ex.toString());
		}
	}

	private static Current read(Connection c, String name) throws SQLException {
		try (PreparedStatement s = c.prepareStatement(SELECT_RUN)) {
			s.setString(1, name);
			try (ResultSet rs = s.executeQuery()) {
				if (!rs.next()) {
					return null;
				}
				return new Current(rs.getString(1), rs.getLong(2), rs.getObject(3, OffsetDateTime.class).toInstant());
			}
		}
	}

	private static int update(Connection c, String sql, Object... values) throws SQLException {
		try (PreparedStatement s = c.prepareStatement(sql)) {
			for (int i = 0; i < values.length; i++) {
				s.setObject(i + 1, values[i]);
			}
			return s.executeUpdate();
		}
	}

	private static OffsetDateTime at(Instant instant) {
		return instant.atOffset(ZoneOffset.UTC);
	}

	private static String quote(String value) {
		return "'" + value + "'";
	}

	/** A run name's row in the directory. */
	private record Current(String holder, long token, Instant leaseUntil) {
	}

}
