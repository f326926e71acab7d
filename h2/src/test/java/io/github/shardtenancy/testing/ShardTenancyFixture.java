package io.github.shardtenancy.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.MoveSettings;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * Real H2 in-memory databases for one test class: a directory and {@code shards} shards named {@code shard-1},
 * {@code shard-2}..., each migrated with {@link ShardTenancyMigrations} (fence plus the test changelog with the
 * {@code note} and {@code note_item} tenant tables and the tenant-less {@code plain_table}), with the fence write check
 * installed on both tenant tables. Each shard pool counts its borrows through a HikariCP metrics tracker, so a test
 * can prove that no shard connection was taken. Close it to shut the databases down.
 */
public final class ShardTenancyFixture implements AutoCloseable {

	/** The test changelog run on every shard after the fence changelog. */
	public static final String CHANGELOG = "db/core-test/notes.xml";

	/** The tenant tables of the test schema, child first (the mover must sort them by foreign key). */
	public static final List<TenantTable> TABLES = List.of(new TenantTable("note_item", "tenant_id"),
			new TenantTable("note", "tenant_id"));

	private final String name;

	private final HikariDataSource directoryPool;

	private final Directory directory;

	private final Topology topology = new Topology();

	private final Map<String, AtomicLong> borrows = new LinkedHashMap<>();

	private final Map<String, String> urls = new LinkedHashMap<>();

	private final List<Router> routers = new ArrayList<>();

	/** The movers' executor, shut down with the fixture. */
	private final ExecutorService moveExecutor = Executors.newFixedThreadPool(4);

	private final Router router;

	private final ShardMultiTenantConnectionProvider provider;

	private SessionFactory sessionFactory;

	private ShardTenancyFixture(String name, int shards, int shardPoolSize, RouterSettings settings) {
		this.name = name + "-" + UUID.randomUUID().toString().substring(0, 8);
		HikariConfig directoryConfig = new HikariConfig();
		directoryConfig.setJdbcUrl(url("directory"));
		directoryConfig.setMaximumPoolSize(4);
		directoryConfig.setPoolName(this.name + "-directory");
		this.directoryPool = new HikariDataSource(directoryConfig);
		ShardTenancyMigrations.migrateDirectory(this.directoryPool);
		this.directory = new Directory(this.directoryPool);
		for (int i = 1; i <= shards; i++) {
			String shardId = "shard-" + i;
			AtomicLong counter = new AtomicLong();
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url(shardId));
			config.setMaximumPoolSize(shardPoolSize);
			config.setConnectionTimeout(2_000);
			config.setPoolName(this.name + "-" + shardId);
			config.setMetricsTrackerFactory((poolName, stats) -> new IMetricsTracker() {
				@Override
				public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
					counter.incrementAndGet();
				}
			});
			this.urls.put(shardId, config.getJdbcUrl());
			Topology.Shard shard = this.topology.addShard(shardId, config);
			ShardTenancyMigrations.migrateShard(shard.dataSource(), shardId, List.of(CHANGELOG));
			try (Connection c = shard.dataSource().getConnection()) {
				for (TenantTable table : TABLES) {
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn());
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			this.borrows.put(shardId, counter);
		}
		this.router = newRouter(settings);
		this.provider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
	}

	/**
	 * @param name the test class, part of the database names
	 * @param shards how many shards
	 * @return a fixture with pools of 4 connections per shard and a router with default settings (not started)
	 */
	public static ShardTenancyFixture create(String name, int shards) {
		return create(name, shards, 4, RouterSettings.defaults());
	}

	/**
	 * @param name the test class, part of the database names
	 * @param shards how many shards
	 * @param shardPoolSize the size of every shard pool
	 * @param settings the main router's settings (the router is not started)
	 * @return a fixture
	 */
	public static ShardTenancyFixture create(String name, int shards, int shardPoolSize, RouterSettings settings) {
		return new ShardTenancyFixture(name, shards, shardPoolSize, settings);
	}

	private String url(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	/** @return the directory */
	public Directory directory() {
		return this.directory;
	}

	/** @return the directory's pool, for raw SQL */
	public DataSource directoryDataSource() {
		return this.directoryPool;
	}

	/** @return the topology */
	public Topology topology() {
		return this.topology;
	}

	/** @return the main router */
	public Router router() {
		return this.router;
	}

	/** @return the provider on the main router */
	public ShardMultiTenantConnectionProvider provider() {
		return this.provider;
	}

	/**
	 * @param settings router settings
	 * @return another router on the same directory (another application instance), closed with the fixture
	 */
	public Router newRouter(RouterSettings settings) {
		Router other = new Router(this.directory, settings);
		this.routers.add(other);
		return other;
	}

	/**
	 * @param router the router the admin and its mover keep up to date
	 * @return an admin with a mover over the test tables, moving stop-the-world and cleaning at once
	 */
	public DirectoryAdmin admin(Router router) {
		return new DirectoryAdmin(this.directory, router, this.topology, mover(router, TABLES),
				MoveSettings.stopTheWorld(), "test@fixture");
	}

	/**
	 * @param router the router the mover keeps up to date
	 * @param tables the tables it moves
	 * @return a mover on the fixture's executor
	 */
	public Mover mover(Router router, List<TenantTable> tables) {
		return new Mover(this.directory, router, this.topology, tables, "mover@fixture", this.moveExecutor);
	}

	/**
	 * @param shardId a shard
	 * @return the shard's pool
	 */
	public HikariDataSource pool(String shardId) {
		return (HikariDataSource) this.topology.shard(shardId).dataSource();
	}

	/**
	 * @param shardId a shard
	 * @return how many times a connection was borrowed from the shard's pool so far
	 */
	public long borrows(String shardId) {
		return this.borrows.get(shardId).get();
	}

	/** @return connections borrowed from all shard pools so far */
	public long totalBorrows() {
		return this.borrows.values().stream().mapToLong(AtomicLong::get).sum();
	}

	/** @return connections in use in all shard pools now */
	public int activeConnections() {
		return this.borrows.keySet().stream()
			.mapToInt(id -> pool(id).getHikariPoolMXBean().getActiveConnections())
			.sum();
	}

	/**
	 * @param shardId a shard
	 * @return a new physical connection to the shard's database, outside its pool (close it)
	 * @throws SQLException if H2 refuses
	 */
	public Connection rawConnection(String shardId) throws SQLException {
		return DriverManager.getConnection(this.urls.get(shardId));
	}

	/**
	 * Counts a tenant's rows in a table of a shard, on a raw connection (no fence involved).
	 * @param shardId the shard
	 * @param table the table
	 * @param tenantId the tenant
	 * @return the rows
	 */
	public long rows(String shardId, String table, String tenantId) {
		return queryLong(this.topology.shard(shardId).dataSource(),
				"SELECT COUNT(*) FROM " + table + " WHERE tenant_id = ?", tenantId);
	}

	/**
	 * @param dataSource where to run it
	 * @param sql a query returning one number, with string parameters
	 * @param parameters the parameters
	 * @return the number
	 */
	public static long queryLong(DataSource dataSource, String sql, String... parameters) {
		try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				ps.setString(i + 1, parameters[i]);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * @param dataSource where to run it
	 * @param sql a statement without parameters
	 */
	public static void execute(DataSource dataSource, String sql) {
		try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
			s.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Inserts a note on a connection the caller routed (and fenced).
	 * @param connection the connection
	 * @param tenantId the row's tenant
	 * @param body the row's body
	 * @return the new row's id
	 * @throws SQLException whatever the fence or the database says
	 */
	public static UUID insertNote(Connection connection, String tenantId, String body) throws SQLException {
		UUID id = UUID.randomUUID();
		try (PreparedStatement ps = connection
			.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
			ps.setObject(1, id);
			ps.setString(2, tenantId);
			ps.setString(3, body);
			ps.executeUpdate();
		}
		return id;
	}

	/**
	 * @return a Hibernate session factory in multi-tenant mode on this fixture's provider and a
	 * {@link TenantIdentifierResolver}, built once; no connection is used to build it
	 */
	public synchronized SessionFactory sessionFactory() {
		if (this.sessionFactory == null) {
			Configuration configuration = new Configuration().addAnnotatedClass(Note.class);
			configuration.getProperties().put("hibernate.multi_tenant_connection_provider", this.provider);
			configuration.getProperties().put("hibernate.tenant_identifier_resolver", new TenantIdentifierResolver());
			configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
			configuration.setProperty("hibernate.boot.allow_jdbc_metadata_access", "false");
			configuration.setProperty("hibernate.hbm2ddl.auto", "none");
			configuration.setProperty("hibernate.connection.handling_mode",
					"DELAYED_ACQUISITION_AND_RELEASE_AFTER_TRANSACTION");
			this.sessionFactory = configuration.buildSessionFactory();
		}
		return this.sessionFactory;
	}

	@Override
	public void close() {
		this.moveExecutor.shutdownNow();
		if (this.sessionFactory != null) {
			this.sessionFactory.close();
		}
		this.routers.forEach(Router::close);
		this.topology.close();
		this.directoryPool.close();
		for (String shardId : this.urls.keySet()) {
			shutdown(this.urls.get(shardId));
		}
		shutdown(url("directory"));
	}

	private static void shutdown(String url) {
		try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
			s.execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already gone
		}
	}

}
