package io.github.shardtenancy.testing.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * The PostgreSQL 17 servers of the integration tests: one directory and three shards, each a separate server. They
 * are started once per test JVM (on first use, in parallel) and shared by every test class; migrated once (directory
 * changelog; fence changelog plus the {@code pg_note} test table on every shard, with its fence write check).
 *
 * <p>With Docker available the servers are Testcontainers containers, otherwise embedded PostgreSQL binaries from
 * Maven Central. A test may stop and start any server; {@link #ensureAllRunning()} (call it after such a test) starts
 * whatever is stopped. Tests share the servers, so each test uses tenant ids of its own ({@link #tenant(String)}).
 */
public final class PostgresCluster {

	/** The shard ids, in order. */
	public static final List<String> SHARD_IDS = List.of("shard-1", "shard-2", "shard-3");

	/** The test domain's only tenant table. */
	public static final TenantTable NOTES = new TenantTable("pg_note", "tenant_id");

	/** The Liquibase changelog of the {@link #NOTES} table, a classpath resource of this module. */
	public static final String NOTES_CHANGELOG = "db/testing/pg-note.xml";

	private static final Logger log = LoggerFactory.getLogger(PostgresCluster.class);

	private static PostgresCluster shared;

	private final PostgresServer directory;

	private final Map<String, PostgresServer> shards = new LinkedHashMap<>();

	private final boolean docker;

	private PostgresCluster() {
		this.docker = dockerAvailable();
		Path root = Path.of("target", "pg-it", "run-" + ProcessHandle.current().pid()).toAbsolutePath();
		this.directory = server("directory", root);
		for (String id : SHARD_IDS) {
			this.shards.put(id, server(id, root));
		}
		long started = System.nanoTime();
		List<CompletableFuture<Void>> starts = new ArrayList<>();
		for (PostgresServer s : all()) {
			starts.add(CompletableFuture.runAsync(s::start));
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			all().forEach(this::stopQuietly);
			if (!this.docker) {
				deleteRecursively(root);
			}
		}, "it-postgres-cluster-shutdown"));
		CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
		log.info("Started {} PostgreSQL servers ({}) in {} ms", all().size(), this.docker ? "Testcontainers" : "embedded",
				(System.nanoTime() - started) / 1_000_000);
		migrate();
	}

	/** @return the cluster, started and migrated on first call; shared by the whole test JVM */
	public static synchronized PostgresCluster shared() {
		if (shared == null) {
			shared = new PostgresCluster();
		}
		return shared;
	}

	private PostgresServer server(String name, Path root) {
		int port = freePort();
		if (this.docker) {
			return new ContainerPostgresServer(name, port);
		}
		Path data = root.resolve(name);
		deleteRecursively(data);
		return new EmbeddedPostgresServer(name, data, port);
	}

	private void migrate() {
		try (HikariDataSource ds = pool(this.directory, 2, "it-migrate-directory")) {
			ShardTenancyMigrations.migrateDirectory(ds);
		}
		for (Map.Entry<String, PostgresServer> e : this.shards.entrySet()) {
			try (HikariDataSource ds = pool(e.getValue(), 2, "it-migrate-" + e.getKey())) {
				ShardTenancyMigrations.migrateShard(ds, e.getKey(), List.of(NOTES_CHANGELOG));
				try (Topology topology = new Topology(); Connection c = ds.getConnection()) {
					topology.addShard(e.getKey(), (javax.sql.DataSource) ds).dialect().installWriteCheck(c, NOTES.table(),
							NOTES.tenantColumn());
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Cannot install the fence write check on " + e.getKey(), ex);
			}
		}
	}

	private void stopQuietly(PostgresServer server) {
		try {
			server.stop();
		}
		catch (RuntimeException ex) {
			log.warn("Could not stop {}: {}", server, ex.getMessage());
		}
	}

	/** @return whether the servers run in Docker containers (else embedded binaries) */
	public boolean usesDocker() {
		return this.docker;
	}

	/** @return the directory server */
	public PostgresServer directory() {
		return this.directory;
	}

	/**
	 * @param shardId one of {@link #SHARD_IDS}
	 * @return that shard's server
	 */
	public PostgresServer shard(String shardId) {
		PostgresServer s = this.shards.get(shardId);
		if (s == null) {
			throw new IllegalArgumentException("No shard server " + shardId);
		}
		return s;
	}

	/** @return every server: the directory first, then the shards */
	public List<PostgresServer> all() {
		List<PostgresServer> all = new ArrayList<>();
		all.add(this.directory);
		all.addAll(this.shards.values());
		return all;
	}

	/** Starts every stopped server (after a test that stopped one). */
	public void ensureAllRunning() {
		all().forEach(PostgresServer::start);
	}

	/**
	 * A new HikariCP pool on a server, with short timeouts so that an unreachable server fails fast in tests; the
	 * pool name is also the connections' {@code application_name}.
	 * @param server the server
	 * @param size maximum pool size
	 * @param name pool name
	 * @return the pool; the caller closes it
	 */
	public HikariDataSource pool(PostgresServer server, int size, String name) {
		return pool(server, size, name, config -> {
		});
	}

	/**
	 * Like {@link #pool(PostgresServer, int, String)}, with further settings applied before the pool starts.
	 * @param server the server
	 * @param size maximum pool size
	 * @param name pool name
	 * @param customizer changes the configuration (e.g. the transaction isolation)
	 * @return the pool; the caller closes it
	 */
	public HikariDataSource pool(PostgresServer server, int size, String name,
			java.util.function.Consumer<HikariConfig> customizer) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(server.jdbcUrl());
		config.setUsername(server.user());
		config.setPassword(server.password());
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setPoolName(name);
		config.setConnectionTimeout(1000);
		config.setValidationTimeout(500);
		config.setInitializationFailTimeout(-1);
		config.addDataSourceProperty("connectTimeout", "2");
		config.addDataSourceProperty("ApplicationName", name);
		customizer.accept(config);
		return new HikariDataSource(config);
	}

	/**
	 * Whether a backend of a server is blocked on a lock ({@code pg_stat_activity.wait_event_type = 'Lock'}, see
	 * https://www.postgresql.org/docs/17/monitoring-stats.html#MONITORING-PG-STAT-ACTIVITY-VIEW): to wait, with
	 * Awaitility, until a statement of a test's has reached a lock that another transaction holds.
	 * @param server the server
	 * @param applicationName the blocked backend's {@code application_name}, a {@code LIKE} pattern (a pool's name)
	 * @return whether such a backend waits for a lock now
	 * @throws IllegalStateException if the server cannot be queried
	 */
	public boolean waitsForLock(PostgresServer server, String applicationName) {
		try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
						+ " WHERE application_name LIKE ? AND wait_event_type = 'Lock'")) {
			ps.setString(1, applicationName);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1) > 0;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read pg_stat_activity of " + server, ex);
		}
	}

	/**
	 * @param prefix readable part
	 * @return a tenant id unique in this JVM run, e.g. {@code prefix-3f2a9c1b}
	 */
	public static String tenant(String prefix) {
		return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private static boolean dockerAvailable() {
		if (Boolean.getBoolean("shard-tenancy.it.embedded")) {
			return false;
		}
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void deleteRecursively(Path dir) {
		if (!Files.exists(dir)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
