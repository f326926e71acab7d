package io.github.shardtenancy.internal.instances;

import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.InstanceRecord;
import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.InstanceState;
import io.github.shardtenancy.Instances;
import io.github.shardtenancy.InstancesReport;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance heartbeat in the directory database: table {@code shard_instance} (directory changelog
 * {@code directory-instances.xml}), one row per instance. Each heartbeat is one {@code UPDATE} of this instance's row
 * (an {@code INSERT} the first time) that records the router's applied version and, on the directory's clock, the
 * heartbeat time and the lag episode: {@code behind_version} is the directory version the heartbeat that first saw this
 * instance behind read, {@code behind_since} that heartbeat's time; both stay until the instance applies that version
 * (then a newer version it has not applied starts a new episode, or the episode ends). An instance still short of
 * {@code behind_version} for longer than {@link InstanceSettings#maxLag()} is lagging. Then the heartbeat reads every row
 * with the directory's current version and clock, and deletes the rows silent for longer than
 * {@link InstanceSettings#removeAfter()} (compare-and-delete on the heartbeat time read, so a row that came back
 * stays). Standard SQL only (H2 and PostgreSQL alike); every statement runs in auto-commit.
 *
 * <p>Thread-safe: heartbeats are serialised on this object; {@link #report()} borrows its own connection.
 */
public final class InstanceHeartbeat implements Instances, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(InstanceHeartbeat.class);

	static final String TABLE = "shard_instance";

	private static final String CURRENT = "(SELECT version FROM shard_directory_version WHERE id = 1)";

	private static final String BEAT = "UPDATE " + TABLE + " SET "
			+ "applied_at = CASE WHEN applied_version <> ? THEN CURRENT_TIMESTAMP ELSE applied_at END, "
			+ "behind_since = CASE WHEN ? >= " + CURRENT + " THEN NULL "
			+ "WHEN behind_version IS NOT NULL AND ? < behind_version THEN behind_since ELSE CURRENT_TIMESTAMP END, "
			+ "behind_version = CASE WHEN ? >= " + CURRENT + " THEN NULL "
			+ "WHEN behind_version IS NOT NULL AND ? < behind_version THEN behind_version ELSE " + CURRENT + " END, "
			+ "applied_version = ?, heartbeat_at = CURRENT_TIMESTAMP, stopped_at = NULL, library_version = ? "
			+ "WHERE instance_id = ?";

	private static final String INSERT = "INSERT INTO " + TABLE + " (instance_id, applied_version, applied_at, "
			+ "behind_version, behind_since, heartbeat_at, started_at, stopped_at, library_version) "
			+ "VALUES (?, ?, CURRENT_TIMESTAMP, NULL, NULL, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, NULL, ?)";

	private static final String RESTART = "UPDATE " + TABLE + " SET started_at = CURRENT_TIMESTAMP, "
			+ "applied_version = ?, applied_at = CURRENT_TIMESTAMP, behind_version = NULL, behind_since = NULL, "
			+ "heartbeat_at = CURRENT_TIMESTAMP, stopped_at = NULL, library_version = ? WHERE instance_id = ?";

	private static final String ROWS = "SELECT instance_id, applied_version, applied_at, behind_since, heartbeat_at, "
			+ "started_at, stopped_at, library_version FROM " + TABLE + " ORDER BY instance_id";

	private final DataSource directory;

	private final InstanceSettings settings;

	private final LongSupplier appliedVersion;

	private final @Nullable BackgroundScheduler scheduler;

	private final String instanceId;

	private final String libraryVersion;

	private volatile @Nullable InstancesReport lastReport;

	private final Set<String> warnedLagging = new HashSet<>();

	private final Set<String> toldGone = new HashSet<>();

	private boolean registered;

	private boolean failing;

	private boolean closed;

	private @Nullable Future<?> task;

	private @Nullable ScheduledThreadPoolExecutor ownExecutor;

	/**
	 * @param directory the directory database's pool
	 * @param settings the heartbeat's settings
	 * @param appliedVersion the directory version this instance's router has applied
	 * @param scheduler runs the heartbeat, or {@code null} for a daemon thread of this object's own
	 */
	public InstanceHeartbeat(DataSource directory, InstanceSettings settings, LongSupplier appliedVersion,
			@Nullable BackgroundScheduler scheduler) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.appliedVersion = Objects.requireNonNull(appliedVersion, "appliedVersion");
		this.scheduler = scheduler;
		this.instanceId = (settings.instanceId() != null) ? settings.instanceId() : generatedId();
		String version = ShardTenancy.class.getPackage().getImplementationVersion();
		this.libraryVersion = (version != null) ? version : "unknown";
	}

	/** @return host name, process id and a random suffix, at most {@value InstanceSettings#MAX_INSTANCE_ID_LENGTH} long */
	static String generatedId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "unknown-host";
		}
		String suffix = "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
		int room = InstanceSettings.MAX_INSTANCE_ID_LENGTH - suffix.length();
		return (host.length() > room ? host.substring(0, room) : host) + suffix;
	}

	@Override
	public String instanceId() {
		return this.instanceId;
	}

	@Override
	public InstanceSettings settings() {
		return this.settings;
	}

	@Override
	public Optional<InstancesReport> lastReport() {
		return Optional.ofNullable(this.lastReport);
	}

	/**
	 * Runs the first heartbeat (a failure is logged, not thrown) and schedules the next ones. Idempotent; nothing
	 * happens when the heartbeat is disabled or closed.
	 */
	public void start() {
		synchronized (this) {
			if (!this.settings.enabled() || this.closed || this.task != null) {
				return;
			}
			Duration interval = this.settings.heartbeatInterval();
			BackgroundScheduler background = this.scheduler;
			if (background == null) {
				ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (r) -> {
					Thread t = new Thread(r, "shard-tenancy-instance-heartbeat");
					t.setDaemon(true);
					return t;
				});
				this.ownExecutor = executor;
				background = BackgroundScheduler.of(executor);
			}
			this.task = background.scheduleWithFixedDelay(this::beatQuietly, interval, interval);
		}
		beatQuietly();
	}

	private void beatQuietly() {
		try {
			heartbeat();
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				if (this.closed) {
					return;
				}
				if (!this.failing) {
					this.failing = true;
					log.warn("Instance heartbeat of '{}' failed (table {} of the directory database, created by the "
							+ "directory changelog; retried every {}): {}", this.instanceId, TABLE,
							this.settings.heartbeatInterval(), ex.getMessage());
				}
				else {
					log.debug("Instance heartbeat of '{}' failed again: {}", this.instanceId, ex.getMessage());
				}
			}
		}
	}

	@Override
	public synchronized InstancesReport heartbeat() {
		if (!this.settings.enabled()) {
			throw new IllegalStateException("The instance heartbeat is disabled (shard-tenancy.instances.enabled)");
		}
		if (this.closed) {
			throw new IllegalStateException("The tenancy is closed: instance '" + this.instanceId + "' is stopped");
		}
		long applied = this.appliedVersion.getAsLong();
		try (Connection c = this.directory.getConnection()) {
			c.setAutoCommit(true);
			if (!this.registered) {
				register(c, applied);
				this.registered = true;
			}
			else if (!beat(c, applied)) {
				register(c, applied); // the row was removed (silent too long) or deleted by hand
			}
			InstancesReport report = read(c);
			removeLongGone(c, report);
			this.lastReport = report;
			if (this.failing) {
				this.failing = false;
				log.info("Instance heartbeat of '{}' succeeded again", this.instanceId);
			}
			tell(report);
			return report;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, applied, ex);
		}
	}

	@Override
	public InstancesReport report() {
		if (!this.settings.enabled()) {
			throw new IllegalStateException("The instance heartbeat is disabled (shard-tenancy.instances.enabled)");
		}
		try (Connection c = this.directory.getConnection()) {
			c.setAutoCommit(true);
			return read(c);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, this.appliedVersion.getAsLong(), ex);
		}
	}

	private boolean beat(Connection c, long applied) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(BEAT)) {
			for (int i = 1; i <= 6; i++) {
				ps.setLong(i, applied);
			}
			ps.setString(7, this.libraryVersion);
			ps.setString(8, this.instanceId);
			return ps.executeUpdate() == 1;
		}
	}

	/** Records this instance's start: a new row, or the row of a configured id used before. */
	private void register(Connection c, long applied) throws SQLException {
		if (restart(c, applied)) {
			return;
		}
		try (PreparedStatement ps = c.prepareStatement(INSERT)) {
			ps.setString(1, this.instanceId);
			ps.setLong(2, applied);
			ps.setString(3, this.libraryVersion);
			ps.executeUpdate();
		}
		catch (SQLException ex) {
			if (ex.getSQLState() == null || !ex.getSQLState().startsWith("23")) {
				throw ex;
			}
			// inserted meanwhile (another start with the same configured id): take the row over
			restart(c, applied);
		}
	}

	/** @return whether this instance's row existed (and now records a start) */
	private boolean restart(Connection c, long applied) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(RESTART)) {
			ps.setLong(1, applied);
			ps.setString(2, this.libraryVersion);
			ps.setString(3, this.instanceId);
			return ps.executeUpdate() == 1;
		}
	}

	private InstancesReport read(Connection c) throws SQLException {
		long current;
		Instant now;
		try (PreparedStatement ps = c.prepareStatement(
				"SELECT version, CURRENT_TIMESTAMP FROM shard_directory_version WHERE id = 1");
				ResultSet rs = ps.executeQuery()) {
			if (!rs.next()) {
				throw new SQLException("shard_directory_version has no row with id 1: the directory schema was not "
						+ "created by the directory changelog");
			}
			current = rs.getLong(1);
			now = instant(rs, 2);
		}
		List<InstanceRecord> instances = new ArrayList<>();
		try (PreparedStatement ps = c.prepareStatement(ROWS); ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				instances.add(record(rs, now));
			}
		}
		return new InstancesReport(current, now, instances);
	}

	private InstanceRecord record(ResultSet rs, Instant now) throws SQLException {
		Instant behindSince = instant(rs, 4);
		Instant heartbeatAt = Objects.requireNonNull(instant(rs, 5), "heartbeat_at");
		Instant stoppedAt = instant(rs, 7);
		Duration lag = (behindSince != null) ? nonNegative(Duration.between(behindSince, now)) : Duration.ZERO;
		InstanceState state;
		if (stoppedAt != null || Duration.between(heartbeatAt, now).compareTo(this.settings.goneAfter()) > 0) {
			state = InstanceState.GONE;
		}
		else if (lag.compareTo(this.settings.maxLag()) > 0) {
			state = InstanceState.LAGGING;
		}
		else {
			state = InstanceState.LIVE;
		}
		return new InstanceRecord(rs.getString(1), state, rs.getLong(2),
				Objects.requireNonNull(instant(rs, 3), "applied_at"), behindSince, lag, heartbeatAt,
				Objects.requireNonNull(instant(rs, 6), "started_at"), stoppedAt, rs.getString(8));
	}

	private static Duration nonNegative(Duration value) {
		return value.isNegative() ? Duration.ZERO : value;
	}

	private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	private void removeLongGone(Connection c, InstancesReport report) throws SQLException {
		for (InstanceRecord instance : report.instances()) {
			if (instance.instanceId().equals(this.instanceId) || Duration.between(instance.heartbeatAt(),
					report.observedAt()).compareTo(this.settings.removeAfter()) <= 0) {
				continue;
			}
			try (PreparedStatement ps = c.prepareStatement(
					"DELETE FROM " + TABLE + " WHERE instance_id = ? AND heartbeat_at <= ?")) {
				ps.setString(1, instance.instanceId());
				ps.setObject(2, instance.heartbeatAt().atOffset(ZoneOffset.UTC));
				if (ps.executeUpdate() == 1) {
					log.info("Removed instance '{}' from {}: silent since {}", instance.instanceId(), TABLE,
							instance.heartbeatAt());
				}
			}
		}
	}

	/** Logs a WARN once per lag episode of an instance, and once when a live instance goes. */
	private void tell(InstancesReport report) {
		Set<String> lagging = new HashSet<>();
		Set<String> gone = new HashSet<>();
		for (InstanceRecord instance : report.instances()) {
			String who = instance.instanceId().equals(this.instanceId) ? "this instance" : "instance";
			if (instance.state() == InstanceState.LAGGING) {
				lagging.add(instance.instanceId());
				if (this.warnedLagging.add(instance.instanceId())) {
					log.warn("Version skew: {} '{}' has applied directory version {} but has been behind the "
							+ "directory since {} ({} so far, more than shard-tenancy.instances.max-lag {}; directory "
							+ "version {}): its directory sync or push listener may be stuck", who,
							instance.instanceId(), instance.appliedVersion(), instance.behindSince(), instance.lag(),
							this.settings.maxLag(), report.directoryVersion());
				}
			}
			else if (instance.state() == InstanceState.GONE) {
				gone.add(instance.instanceId());
				if (this.toldGone.add(instance.instanceId())) {
					log.info("Instance '{}' is gone ({}, last heartbeat {})", instance.instanceId(),
							instance.stoppedAt() != null ? "closed at " + instance.stoppedAt() : "silent",
							instance.heartbeatAt());
				}
			}
		}
		for (String id : this.warnedLagging) {
			if (!lagging.contains(id)) {
				log.info("Version skew: instance '{}' is no longer lagging", id);
			}
		}
		this.warnedLagging.retainAll(lagging);
		this.toldGone.retainAll(gone);
	}

	/**
	 * Stops the heartbeat and records this instance closed, so that it is reported gone at once (a failure to record
	 * it is logged; the instance is then reported gone once silent). Idempotent.
	 */
	@Override
	public void close() {
		boolean wasRegistered;
		synchronized (this) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			if (this.task != null) {
				this.task.cancel(false);
				this.task = null;
			}
			if (this.ownExecutor != null) {
				this.ownExecutor.shutdownNow();
				this.ownExecutor = null;
			}
			wasRegistered = this.registered;
		}
		if (!wasRegistered) {
			return;
		}
		try (Connection c = this.directory.getConnection();
				PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE
						+ " SET stopped_at = CURRENT_TIMESTAMP, heartbeat_at = CURRENT_TIMESTAMP WHERE instance_id = ?")) {
			c.setAutoCommit(true);
			ps.setString(1, this.instanceId);
			ps.executeUpdate();
		}
		catch (SQLException | RuntimeException ex) {
			log.warn("Instance '{}' could not be recorded closed in {}: {}", this.instanceId, TABLE, ex.getMessage());
		}
	}

}
