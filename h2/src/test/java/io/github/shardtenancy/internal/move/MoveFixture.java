package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * Real H2 in-memory databases for the online mover tests: a directory and shards {@code shard-1}..{@code shard-n},
 * each migrated with the library's changelogs and {@code db/move-test/orders.xml}, with the fence write check and the
 * mover's change capture on the two tenant tables. Close it to shut the databases down.
 */
final class MoveFixture implements AutoCloseable {

	/** The tenant tables, child first (the mover sorts them by foreign key). */
	static final List<TenantTable> TABLES = List.of(new TenantTable("order_line", "tenant_id"),
			new TenantTable("customer_order", "tenant_id"));

	private final String name = "move-" + UUID.randomUUID().toString().substring(0, 8);

	private final HikariDataSource directoryPool;

	private final Directory directory;

	private final Topology topology = new Topology();

	private final Router router;

	private final ShardMultiTenantConnectionProvider provider;

	private final DirectoryAdmin admin;

	/** The movers' executor, shut down with the fixture. */
	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	MoveFixture(int shards, int poolSize) {
		HikariConfig directoryConfig = new HikariConfig();
		directoryConfig.setJdbcUrl(url("directory"));
		directoryConfig.setMaximumPoolSize(8);
		this.directoryPool = new HikariDataSource(directoryConfig);
		ShardTenancyMigrations.migrateDirectory(this.directoryPool);
		this.directory = new Directory(this.directoryPool);
		for (int i = 1; i <= shards; i++) {
			String shardId = "shard-" + i;
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url(shardId));
			config.setMaximumPoolSize(poolSize);
			config.setConnectionTimeout(10_000);
			Topology.Shard shard = this.topology.addShard(shardId, config);
			ShardTenancyMigrations.migrateShard(shard.dataSource(), shardId, List.of("db/move-test/orders.xml"));
			try (Connection c = shard.dataSource().getConnection()) {
				for (TenantTable table : TABLES) {
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn());
					// with the schema, not under load: H2 can fail concurrent writes while a trigger is created
					shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}
		this.router = new Router(this.directory, RouterSettings.defaults());
		this.provider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
		this.admin = new DirectoryAdmin(this.directory, this.router, this.topology,
				new Mover(this.directory, this.router, this.topology, TABLES, "basic@test", this.executor),
				MoveSettings.stopTheWorld(), "admin@test");
	}

	String url(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	Directory directory() {
		return this.directory;
	}

	Topology topology() {
		return this.topology;
	}

	Router router() {
		return this.router;
	}

	ShardMultiTenantConnectionProvider provider() {
		return this.provider;
	}

	DirectoryAdmin admin() {
		return this.admin;
	}

	/** @return a mover over the test tables, keeping the fixture's router up to date */
	Mover mover() {
		return mover(TABLES);
	}

	/** @return a mover over some tables, keeping the fixture's router up to date */
	Mover mover(List<TenantTable> tables) {
		return new Mover(this.directory, this.router, this.topology, tables, "online@test", this.executor);
	}

	/**
	 * @return the tenant's orders on a shard, id to amount, read on a raw connection (no fence)
	 */
	Map<Long, Integer> orders(String shardId, String tenantId) {
		Map<Long, Integer> orders = new TreeMap<>();
		query(shardId, "SELECT id, amount FROM customer_order WHERE tenant_id = ?", tenantId,
				rs -> orders.put(rs.getLong(1), rs.getInt(2)));
		return orders;
	}

	/**
	 * @return the tenant's order lines on a shard, id to "order:qty", read on a raw connection
	 */
	Map<String, String> lines(String shardId, String tenantId) {
		Map<String, String> lines = new TreeMap<>();
		query(shardId, "SELECT id, order_id, qty FROM order_line WHERE tenant_id = ?", tenantId,
				rs -> lines.put(rs.getString(1), rs.getLong(2) + ":" + rs.getInt(3)));
		return lines;
	}

	/** @return rows of the tenant in both tables on a shard */
	long rows(String shardId, String tenantId) {
		return orders(shardId, tenantId).size() + lines(shardId, tenantId).size();
	}

	/** @return rows in a shard's change log */
	long changeLog(String shardId) {
		long[] count = new long[1];
		query(shardId, "SELECT COUNT(*) FROM shard_change WHERE tenant_id <> ?", "-", rs -> count[0] = rs.getLong(1));
		return count[0];
	}

	/** @return the tenant's rows in a shard's {@code shard_capture} (1 while its writes are captured there) */
	long captured(String shardId, String tenantId) {
		long[] count = new long[1];
		query(shardId, "SELECT COUNT(*) FROM shard_capture WHERE tenant_id = ?", tenantId,
				rs -> count[0] = rs.getLong(1));
		return count[0];
	}

	interface RowConsumer {

		void accept(ResultSet rs) throws SQLException;

	}

	private void query(String shardId, String sql, String parameter, RowConsumer consumer) {
		try (Connection c = this.topology.shard(shardId).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, parameter);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					consumer.accept(rs);
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
		this.router.close();
		for (String shardId : this.topology.shardIds()) {
			try (Connection c = this.topology.shard(shardId).dataSource().getConnection()) {
				c.createStatement().execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already down
			}
		}
		this.topology.close();
		try (Connection c = this.directoryPool.getConnection()) {
			c.createStatement().execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already down
		}
		this.directoryPool.close();
	}

	/**
	 * A writer of the shared test fixtures on this fixture's tables, writing through the connection provider (one
	 * transaction per step) and dropping the router's entry after a fence rejection.
	 */
	static TenantWriter writer(MoveFixture fixture, String tenantId, java.util.concurrent.atomic.AtomicBoolean stop) {
		ShardMultiTenantConnectionProvider provider = fixture.provider();
		return new TenantWriter(tenantId, new TenantWriter.Tables("customer_order", "order_line"),
				(tenant, work) -> {
					java.sql.Connection c = provider.getConnection(tenant);
					try {
						c.setAutoCommit(false);
						work.run(c);
						c.commit();
					}
					catch (java.sql.SQLException | RuntimeException ex) {
						try {
							c.rollback();
						}
						catch (java.sql.SQLException rollback) {
							ex.addSuppressed(rollback);
						}
						throw ex;
					}
					finally {
						c.setAutoCommit(true);
						provider.releaseConnection(tenant, c);
					}
				}, fixture.router()::invalidate, stop);
	}

}
