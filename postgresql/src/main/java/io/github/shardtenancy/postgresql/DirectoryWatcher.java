package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.spi.RouteFeed;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push invalidation for a directory on PostgreSQL: listens on the channel {@value #CHANNEL}, where the directory's
 * trigger announces every committed directory write (payload: the new directory version and, when the write changed
 * one entry, that entry: see {@link DirectoryNotification}), and makes the {@link RouteFeed} apply the change at
 * once. The router's own sync interval can then be long.
 *
 * <ul>
 * <li>The listener connection is the watcher's own, opened with {@link DriverManager} (never borrowed from a pool:
 * a pooled connection would be reset or shared, and its {@code LISTEN} lost), in auto-commit mode (a listener inside
 * an open transaction receives nothing).</li>
 * <li>One daemon thread blocks in {@link PGConnection#getNotifications(int)} for at most
 * {@link WatcherSettings#waitTimeout()}. The entries the notifications carry are applied as they arrive, without a
 * directory read; notifications that arrive together then cause one {@link RouteFeed#refresh()} (the entries
 * changed since the router's version), which alone advances the router's version.</li>
 * <li>Every {@link WatcherSettings#pollInterval()} without a notification it checks the listener connection and
 * refreshes anyway, the safety net for a lost notification.</li>
 * <li>When the connection is lost (server restart, backend terminated, network) the state becomes
 * {@link State#RECONNECTING}; each attempt also refreshes the router, so that the router notices an unreachable
 * directory and applies its {@link io.github.shardtenancy.DirectoryDownPolicy}. Attempts back off
 * exponentially. Notifications sent while disconnected are lost, so after a reconnect the watcher re-issues
 * {@code LISTEN} and then does a full resync ({@link RouteFeed#resync()}) before it reports
 * {@link State#LISTENING} again.</li>
 * <li>A URL that leads to a connection pooler rather than straight to PostgreSQL (the backend pid the server reports
 * differs from the one of the connection's startup, as behind PgBouncer) is refused at {@link #start()} with a
 * {@link ShardTenancyConfigurationException}: in transaction pooling mode {@code LISTEN} silently receives
 * nothing.</li>
 * </ul>
 *
 * <p>Thread-safe: the state and counters can be read from any thread; {@link #start()} and {@link #close()} may be
 * called from any thread, once each.
 */
public final class DirectoryWatcher implements AutoCloseable {

	/** The notification channel the directory changelog's trigger sends to. */
	public static final String CHANNEL = "shard_directory";

	private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

	/** The watcher's state. */
	public enum State {

		/** Connected and listening; the router has been resynced since the last (re)connect. */
		LISTENING,

		/** Not connected (not yet, or no longer); trying to connect with backoff. */
		RECONNECTING,

		/** Not started, or closed. */
		STOPPED

	}

	private final RouteFeed router;

	private final String url;

	private final Properties properties;

	private final WatcherSettings settings;

	private final Object monitor = new Object();

	private final LongAdder notifications = new LongAdder();

	private final ConcurrentMap<String, String> shardIds = new ConcurrentHashMap<>();

	private final LongAdder refreshes = new LongAdder();

	private final LongAdder resyncs = new LongAdder();

	private final LongAdder reconnects = new LongAdder();

	private final LongAdder polls = new LongAdder();

	private volatile State state = State.STOPPED;

	private volatile Instant downSince;

	private volatile Instant lastNotificationAt;

	private volatile int backendPid = -1;

	private volatile boolean stopping;

	private volatile Connection connection;

	private Thread thread;

	private boolean connectedOnce;

	/**
	 * @param router the router to keep fresh; it should be started (or at least be able to load a snapshot)
	 * @param url a JDBC URL leading straight to the directory's PostgreSQL server ({@code jdbc:postgresql://...}),
	 * not through a transaction-pooling proxy
	 * @param properties connection properties ({@code user}, {@code password}, any pgjdbc property), may be
	 * {@code null}; copied
	 * @param settings timers and names, never {@code null}
	 */
	public DirectoryWatcher(RouteFeed router, String url, Properties properties, WatcherSettings settings) {
		this.router = Objects.requireNonNull(router, "router");
		this.url = Objects.requireNonNull(url, "url");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.properties = new Properties();
		if (properties != null) {
			this.properties.putAll(properties);
		}
		this.properties.putIfAbsent("ApplicationName", settings.applicationName());
		this.properties.putIfAbsent("connectTimeout",
				String.valueOf(Math.max(1, settings.connectTimeout().toSeconds())));
		this.properties.putIfAbsent("loginTimeout", String.valueOf(Math.max(1, settings.connectTimeout().toSeconds())));
		this.properties.putIfAbsent("tcpKeepAlive", "true");
	}

	/**
	 * @param router see {@link #DirectoryWatcher(RouteFeed, String, Properties, WatcherSettings)}
	 * @param url see there
	 * @param user the user, or {@code null}
	 * @param password the password, or {@code null}
	 * @return a watcher with {@link WatcherSettings#defaults()}, not started
	 */
	public static DirectoryWatcher of(RouteFeed router, String url, String user, String password) {
		Properties props = new Properties();
		if (user != null) {
			props.setProperty("user", user);
		}
		if (password != null) {
			props.setProperty("password", password);
		}
		return new DirectoryWatcher(router, url, props, WatcherSettings.defaults());
	}

	/**
	 * Connects, listens, brings the router up to date and starts the watcher thread. If the directory cannot be
	 * reached now, the watcher starts anyway in {@link State#RECONNECTING} and keeps trying.
	 * @throws ShardTenancyConfigurationException if the URL leads to a connection pooler instead of PostgreSQL
	 * itself, naming {@link WatcherSettings#setting()}
	 * @throws IllegalStateException if already started
	 */
	public void start() {
		synchronized (this.monitor) {
			if (this.thread != null) {
				throw new IllegalStateException("DirectoryWatcher already started");
			}
			this.stopping = false;
			setState(State.RECONNECTING);
		}
		try {
			connect();
		}
		catch (ShardTenancyConfigurationException ex) {
			setState(State.STOPPED);
			throw ex;
		}
		catch (SQLException | RuntimeException ex) {
			lost(ex);
		}
		Thread t = new Thread(this::run, "shard-tenancy-directory-watcher");
		t.setDaemon(true);
		synchronized (this.monitor) {
			this.thread = t;
		}
		t.start();
	}

	private void run() {
		long backoff = this.settings.initialBackoff().toMillis();
		long lastRead = System.nanoTime();
		while (!this.stopping) {
			try {
				if (this.connection == null) {
					connect();
					backoff = this.settings.initialBackoff().toMillis();
					lastRead = System.nanoTime();
				}
				PGNotification[] received = this.connection.unwrap(PGConnection.class)
					.getNotifications((int) this.settings.waitTimeout().toMillis());
				if (received != null && received.length > 0) {
					onNotifications(received);
					lastRead = System.nanoTime();
				}
				else if (System.nanoTime() - lastRead >= this.settings.pollInterval().toNanos()) {
					poll();
					lastRead = System.nanoTime();
				}
			}
			catch (ShardTenancyConfigurationException ex) {
				log.error("Directory watcher cannot listen: {}", ex.getMessage());
				lost(ex);
				backoff = pause(backoff);
			}
			catch (SQLException | RuntimeException ex) {
				if (this.stopping) {
					break;
				}
				boolean wasListening = this.state == State.LISTENING;
				lost(ex);
				if (wasListening) {
					log.warn("Directory watcher lost its connection, reconnecting: {}", ex.getMessage());
				}
				else {
					log.debug("Directory watcher reconnect failed: {}", ex.getMessage());
					probeRouter();
					backoff = pause(backoff);
				}
			}
		}
		closeConnection();
		setState(State.STOPPED);
	}

	private void connect() throws SQLException {
		Connection c = DriverManager.getConnection(this.url, this.properties);
		try {
			c.setAutoCommit(true);
			PGConnection pg = c.unwrap(PGConnection.class);
			int startupPid = pg.getBackendPID();
			int serverPid;
			try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
				rs.next();
				serverPid = rs.getInt(1);
			}
			if (startupPid != serverPid) {
				throw new ShardTenancyConfigurationException(this.settings.setting(), "The directory listener URL "
						+ redact(this.url) + " (" + this.settings.setting() + ") leads to a connection pooler or proxy "
						+ "(backend pid " + startupPid + " at startup, " + serverPid + " reported by the server), "
						+ "where LISTEN does not work: "
						+ "use a URL that connects straight to the directory's PostgreSQL server");
			}
			try (Statement st = c.createStatement()) {
				st.execute("LISTEN " + CHANNEL);
			}
			this.connection = c;
			this.backendPid = serverPid;
		}
		catch (SQLException | RuntimeException ex) {
			closeQuietly(c);
			throw ex;
		}
		// Listening from here on: whatever changes after this point is notified, so a resync now misses nothing.
		boolean first;
		synchronized (this.monitor) {
			first = !this.connectedOnce;
		}
		if (first && this.router.isReady()) {
			this.router.refresh();
		}
		else {
			this.router.resync();
			this.resyncs.increment();
		}
		synchronized (this.monitor) {
			if (this.connectedOnce) {
				this.reconnects.increment();
			}
			this.connectedOnce = true;
			this.downSince = null;
			setState(State.LISTENING);
		}
		log.info("Directory watcher listening on '{}' (backend pid {}), router at directory version {}", CHANNEL,
				this.backendPid, this.router.version());
	}

	/**
	 * Applies the entries the notifications carry at once, then, if the directory version moved past the router's,
	 * refreshes the router from the directory. The entry is applied first (so the change is in force without waiting
	 * for a directory read), but the router's version only advances by the refresh, which reads every change since
	 * the router's version: a change a payload does not describe (a version with no single entry, an unreadable
	 * payload, a notification lost in a gap) is never skipped. Applying never goes backwards ({@link RouteFeed#apply}
	 * keeps the newer entry).
	 */
	private void onNotifications(PGNotification[] received) {
		this.notifications.add(received.length);
		this.lastNotificationAt = Instant.now();
		long newest = -1;
		for (PGNotification n : received) {
			DirectoryNotification notification = DirectoryNotification.parse(n.getParameter()).orElse(null);
			if (notification == null) {
				newest = Long.MAX_VALUE; // unexpected payload: refresh to be safe
				continue;
			}
			newest = Math.max(newest, notification.version());
			DirectoryEntry entry = notification.entry();
			if (entry != null && entry.version() > this.router.version()) {
				this.router.apply(canonical(entry));
			}
		}
		if (newest > this.router.version()) {
			this.router.refresh();
			this.refreshes.increment();
		}
	}

	/** The entry with its shard ids shared with earlier notifications (a notification's strings are all new). */
	private DirectoryEntry canonical(DirectoryEntry entry) {
		String shard = canonicalShardId(entry.shardId());
		String target = canonicalShardId(entry.targetShardId());
		if (shard == entry.shardId() && target == entry.targetShardId()) {
			return entry;
		}
		return new DirectoryEntry(entry.tenantId(), shard, entry.state(), target, entry.epoch(), entry.version());
	}

	private String canonicalShardId(String shardId) {
		if (shardId == null || this.shardIds.size() >= 10_000) {
			return shardId;
		}
		String known = this.shardIds.putIfAbsent(shardId, shardId);
		return known != null ? known : shardId;
	}

	private void poll() throws SQLException {
		try (Statement st = this.connection.createStatement()) {
			st.execute("SELECT 1");
		}
		this.polls.increment();
		this.router.refresh();
	}

	private void probeRouter() {
		try {
			this.router.refresh();
		}
		catch (RuntimeException ex) {
			log.debug("Directory unreachable through the router's pool too: {}", ex.getMessage());
		}
	}

	private void lost(Exception cause) {
		closeConnection();
		synchronized (this.monitor) {
			if (this.downSince == null) {
				this.downSince = Instant.now();
			}
			if (!this.stopping) {
				setState(State.RECONNECTING);
			}
		}
	}

	private long pause(long backoff) {
		try {
			Thread.sleep(backoff);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.stopping = true;
		}
		return Math.min(backoff * 2, this.settings.maxBackoff().toMillis());
	}

	private void closeConnection() {
		Connection c = this.connection;
		this.connection = null;
		this.backendPid = -1;
		closeQuietly(c);
	}

	private static void closeQuietly(Connection c) {
		if (c != null) {
			try {
				c.close();
			}
			catch (SQLException | RuntimeException ex) {
				log.debug("Closing the listener connection failed: {}", ex.getMessage());
			}
		}
	}

	private void setState(State next) {
		synchronized (this.monitor) {
			this.state = next;
			this.monitor.notifyAll();
		}
	}

	/**
	 * Waits until the watcher is {@link State#LISTENING}.
	 * @param timeout the longest wait, not {@code null}
	 * @return whether it is listening
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitListening(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.monitor) {
			while (this.state != State.LISTENING) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				this.monitor.wait(Math.max(1, left / 1_000_000));
			}
			return true;
		}
	}

	/** @return the current state */
	public State state() {
		return this.state;
	}

	/** @return whether the watcher is listening (connected, resynced) */
	public boolean isHealthy() {
		return this.state == State.LISTENING;
	}

	/** @return when the listener connection was lost or first failed; empty while listening or stopped cleanly */
	public Optional<Instant> downSince() {
		return Optional.ofNullable(this.downSince);
	}

	/** @return when the last notification arrived; empty if none has */
	public Optional<Instant> lastNotificationAt() {
		return Optional.ofNullable(this.lastNotificationAt);
	}

	/** @return a snapshot of the state and counters */
	public WatcherStatus status() {
		return new WatcherStatus(this.state, this.downSince, this.lastNotificationAt, this.notifications.sum(),
				this.refreshes.sum(), this.resyncs.sum(), this.reconnects.sum(), this.polls.sum(), this.backendPid);
	}

	/** @return the settings this watcher runs with */
	public WatcherSettings settings() {
		return this.settings;
	}

	/**
	 * Stops the thread and closes the listener connection; waits for the thread at most a few seconds. Idempotent.
	 */
	@Override
	public void close() {
		Thread t;
		synchronized (this.monitor) {
			this.stopping = true;
			t = this.thread;
			this.thread = null;
		}
		if (t != null) {
			closeConnection(); // unblocks a pending wait
			t.interrupt();
			try {
				t.join(this.settings.waitTimeout().toMillis() + 5_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		else {
			closeConnection();
		}
		synchronized (this.monitor) {
			this.downSince = null;
			setState(State.STOPPED);
		}
	}

	private static String redact(String url) {
		int query = url.indexOf('?');
		return query < 0 ? url : url.substring(0, query);
	}

}
