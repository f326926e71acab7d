package io.github.shardtenancy.testing.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A PostgreSQL primary with one hot-standby streaming replica, both embedded servers (zonky binaries), for tests of
 * replica routing. The zonky binaries have no {@code pg_basebackup}, so the replica is made with the low-level backup
 * API (https://www.postgresql.org/docs/17/continuous-archiving.html#BACKUP-LOWLEVEL-BASE-BACKUP): on a session of the
 * primary {@code pg_backup_start}, a copy of the data directory (without {@code postmaster.pid},
 * {@code postmaster.opts} and zonky's lock file), {@code pg_backup_stop}, whose label file is written as
 * {@code backup_label}; then {@code standby.signal} and {@code primary_conninfo} (with a physical replication slot, so
 * the primary keeps the WAL the replica has not received) make the copy a streaming standby
 * (https://www.postgresql.org/docs/17/warm-standby.html#STANDBY-SERVER-SETUP). initdb's {@code pg_hba.conf} already
 * trusts local replication connections, and {@code wal_level=replica} and {@code max_wal_senders} are PostgreSQL's
 * defaults.
 *
 * <p>Not thread-safe; one test class uses it. {@link #close()} stops both servers and deletes their directories.
 */
public final class StreamingReplica implements AutoCloseable {

	private static final Set<String> NOT_COPIED = Set.of("postmaster.pid", "postmaster.opts", "epg-lock");

	private final Path root;

	private final EmbeddedPostgresServer primary;

	private final EmbeddedPostgresServer replica;

	private final String slot;

	private StreamingReplica(Path root, EmbeddedPostgresServer primary, EmbeddedPostgresServer replica, String slot) {
		this.root = root;
		this.primary = primary;
		this.replica = replica;
		this.slot = slot;
	}

	/**
	 * Starts a primary and makes a streaming replica of it, waiting until the replica streams.
	 * @param name a name for both servers' directories and messages
	 * @return the pair, both running
	 * @throws IllegalStateException if the replica does not stream
	 */
	public static StreamingReplica start(String name) {
		Path root = Path.of("target", "pg-replica", name + "-" + UUID.randomUUID()).toAbsolutePath();
		EmbeddedPostgresServer primary = new EmbeddedPostgresServer(name + "-primary", root.resolve("primary"),
				freePort());
		primary.start();
		String slot = "replica_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		int replicaPort = freePort();
		Path replicaData = root.resolve("replica");
		try (Connection c = DriverManager.getConnection(primary.jdbcUrl(), primary.user(), primary.password());
				Statement s = c.createStatement()) {
			s.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true)");
			s.execute("SELECT pg_backup_start('" + name + "', true)");
			copy(root.resolve("primary"), replicaData);
			String label;
			try (ResultSet rs = s.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
				rs.next();
				label = rs.getString(1);
			}
			Files.writeString(replicaData.resolve("backup_label"), label, StandardCharsets.UTF_8);
			Files.createFile(replicaData.resolve("standby.signal"));
			Files.writeString(replicaData.resolve("postgresql.auto.conf"),
					"\nprimary_conninfo = 'host=127.0.0.1 port=" + port(primary) + " user=postgres'\n"
							+ "primary_slot_name = '" + slot + "'\nhot_standby = on\n",
					StandardCharsets.UTF_8, StandardOpenOption.APPEND);
		}
		catch (SQLException ex) {
			primary.stop();
			throw new IllegalStateException("Cannot take a base backup of " + primary, ex);
		}
		catch (IOException ex) {
			primary.stop();
			throw new UncheckedIOException("Cannot copy the data directory of " + primary, ex);
		}
		EmbeddedPostgresServer replica = new EmbeddedPostgresServer(name + "-replica", replicaData, replicaPort);
		replica.start();
		StreamingReplica pair = new StreamingReplica(root, primary, replica, slot);
		pair.awaitStreaming();
		return pair;
	}

	private void awaitStreaming() {
		long deadline = System.nanoTime() + 60_000_000_000L;
		while (System.nanoTime() < deadline) {
			try (Connection c = DriverManager.getConnection(this.primary.jdbcUrl(), "postgres", "postgres");
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
				rs.next();
				if (rs.getInt(1) > 0) {
					return;
				}
			}
			catch (SQLException ex) {
				// the primary answers; keep waiting
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the replica to stream", ex);
			}
		}
		throw new IllegalStateException("The replica " + this.replica + " did not start streaming from " + this.primary);
	}

	/** @return the primary */
	public PostgresServer primary() {
		return this.primary;
	}

	/** @return the replica (a hot standby: read-only) */
	public PostgresServer replica() {
		return this.replica;
	}

	/**
	 * Pauses WAL replay on the replica ({@code pg_wal_replay_pause()}): it keeps receiving WAL but applies none, so
	 * its lag grows with every write on the primary.
	 * @throws SQLException if the replica cannot be reached
	 */
	public void pauseReplay() throws SQLException {
		onReplica("SELECT pg_wal_replay_pause()");
	}

	/**
	 * Resumes WAL replay on the replica ({@code pg_wal_replay_resume()}).
	 * @throws SQLException if the replica cannot be reached
	 */
	public void resumeReplay() throws SQLException {
		onReplica("SELECT pg_wal_replay_resume()");
	}

	/**
	 * Promotes the replica ({@code pg_promote()}, waiting for the promotion): it leaves recovery and accepts writes;
	 * the old primary should then be stopped, as in a failover.
	 * @throws SQLException if the replica cannot be reached or the promotion does not finish
	 */
	public void promoteReplica() throws SQLException {
		onReplica("SELECT pg_promote(true, 60)");
	}

	private void onReplica(String sql) throws SQLException {
		try (Connection c = DriverManager.getConnection(this.replica.jdbcUrl(), "postgres", "postgres");
				Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	@Override
	public void close() {
		this.replica.stop();
		this.primary.stop();
		deleteRecursively(this.root);
	}

	private static int port(EmbeddedPostgresServer server) {
		String url = server.jdbcUrl();
		return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1, url.lastIndexOf('/')));
	}

	private static void copy(Path from, Path to) throws IOException {
		try (Stream<Path> files = Files.walk(from)) {
			for (Path source : (Iterable<Path>) files::iterator) {
				Path relative = from.relativize(source);
				if (relative.getNameCount() == 1 && NOT_COPIED.contains(relative.toString())) {
					continue;
				}
				Path target = to.resolve(relative.toString());
				if (Files.isDirectory(source)) {
					Files.createDirectories(target);
				}
				else {
					try {
						Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
					}
					catch (java.nio.file.NoSuchFileException ex) {
						// a file the running primary removed while copying (temporary files); the WAL replay covers it
					}
				}
			}
		}
		// PostgreSQL refuses a data directory readable by others.
		Files.setPosixFilePermissions(to, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void deleteRecursively(Path path) {
		if (!Files.exists(path)) {
			return;
		}
		try (Stream<Path> files = Files.walk(path)) {
			files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
		}
		catch (IOException ex) {
			// left for the build's clean
		}
	}

}
