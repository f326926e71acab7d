package io.github.shardtenancy.it.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.testing.pg.PostgresCluster;

/**
 * One "application instance" on the PostgreSQL cluster, wired by hand like the Boot module would: its own directory
 * pool, directory, router, shard pools and topology, connection provider, tenant-routing DataSource, admin and mover,
 * and optionally its own directory watcher. Close it at the end of the test.
 */
public final class AppInstance implements AutoCloseable {

	public final String name;

	public final HikariDataSource directoryPool;

	public final Directory directory;

	public final Router router;

	public final Topology topology;

	public final ShardMultiTenantConnectionProvider provider;

	public final TenantRoutingDataSource dataSource;

	public final DirectoryAdmin admin;

	/** The movers' executor (moves, verification halves, delayed cleans), shut down on close. */
	public final java.util.concurrent.ExecutorService moveExecutor = java.util.concurrent.Executors
		.newFixedThreadPool(4);

	public final DirectoryWatcher watcher;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private AppInstance(PostgresCluster cluster, String name, RouterSettings settings, int shardPoolSize,
			WatcherSettings watcherSettings, Properties watcherProperties) {
		this(cluster, name, settings, shardPoolSize, watcherSettings, watcherProperties, config -> {
		});
	}

	private AppInstance(PostgresCluster cluster, String name, RouterSettings settings, int shardPoolSize,
			WatcherSettings watcherSettings, Properties watcherProperties,
			java.util.function.Consumer<com.zaxxer.hikari.HikariConfig> shardPoolSettings) {
		this.name = name;
		this.directoryPool = cluster.pool(cluster.directory(), 2, name + "-directory");
		this.pools.add(this.directoryPool);
		this.directory = new Directory(this.directoryPool);
		this.router = new Router(this.directory, settings);
		this.topology = new Topology();
		for (String id : PostgresCluster.SHARD_IDS) {
			HikariDataSource pool = cluster.pool(cluster.shard(id), shardPoolSize, name + "-" + id, shardPoolSettings);
			this.pools.add(pool);
			this.topology.addShard(id, (javax.sql.DataSource) pool);
		}
		this.provider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
		this.dataSource = new TenantRoutingDataSource(this.provider);
		Mover mover = new Mover(this.directory, this.router, this.topology, List.of(PostgresCluster.NOTES),
				"mover@" + name, this.moveExecutor);
		this.admin = new DirectoryAdmin(this.directory, this.router, this.topology, mover, MoveSettings.stopTheWorld(),
				"admin@" + name);
		this.router.start();
		if (watcherSettings != null) {
			Properties props = new Properties();
			props.setProperty("user", cluster.directory().user());
			props.setProperty("password", cluster.directory().password());
			if (watcherProperties != null) {
				props.putAll(watcherProperties);
			}
			this.watcher = new DirectoryWatcher(this.router, cluster.directory().jdbcUrl(), props,
					watcherSettings.withApplicationName("watcher-" + name));
			this.watcher.start();
		}
		else {
			this.watcher = null;
		}
	}

	/** An instance without a watcher. */
	public static AppInstance plain(PostgresCluster cluster, String name, RouterSettings settings, int shardPoolSize) {
		return new AppInstance(cluster, name, settings, shardPoolSize, null, null);
	}

	/** An instance without a watcher whose shard connections run SERIALIZABLE transactions. */
	public static AppInstance serializable(PostgresCluster cluster, String name, RouterSettings settings,
			int shardPoolSize) {
		return new AppInstance(cluster, name, settings, shardPoolSize, null, null,
				config -> config.setTransactionIsolation("TRANSACTION_SERIALIZABLE"));
	}

	/** An instance with a started watcher. */
	public static AppInstance watched(PostgresCluster cluster, String name, RouterSettings settings, int shardPoolSize,
			WatcherSettings watcherSettings, Properties watcherProperties) {
		return new AppInstance(cluster, name, settings, shardPoolSize, watcherSettings, watcherProperties);
	}

	/** Work on a routed, fenced connection. */
	@FunctionalInterface
	public interface SqlWork<T> {

		T apply(Connection connection) throws SQLException;

	}

	/**
	 * Runs work as a tenant in one transaction of the tenant's shard, through the tenant-routing DataSource, and
	 * commits it (rolls back on failure).
	 * @throws SQLException whatever the fence or the work raised
	 */
	public <T> T inTransaction(String tenant, SqlWork<T> work) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection c = this.dataSource.getConnection()) {
			c.setAutoCommit(false); // one transaction, committed below
			try {
				T result = work.apply(c);
				c.commit();
				return result;
			}
			catch (SQLException | RuntimeException ex) {
				c.rollback();
				throw ex;
			}
		}
	}

	@Override
	public void close() {
		this.moveExecutor.shutdownNow();
		if (this.watcher != null) {
			this.watcher.close();
		}
		this.router.close();
		this.topology.close();
		this.pools.forEach(HikariDataSource::close);
	}

}
