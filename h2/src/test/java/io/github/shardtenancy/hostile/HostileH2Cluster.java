package io.github.shardtenancy.hostile;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.RecordingDataSource;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import io.github.shardtenancy.internal.topology.Topology;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * A real H2 directory and two H2 shards wired like an application, with every library connection going through a
 * {@link RecordingDataSource}: the raw pools stay available to the tests for plain SQL (hostile rows, checks) that
 * the recorders do not see.
 */
final class HostileH2Cluster implements AutoCloseable {

	static final List<String> SHARDS = List.of("shard-1", "shard-2");

	final String name = "hostile-" + UUID.randomUUID().toString().substring(0, 8);

	final HikariDataSource directoryPool;

	final RecordingDataSource directoryRecorder;

	final Directory directory;

	final Map<String, HikariDataSource> shardPools = new LinkedHashMap<>();

	final Map<String, RecordingDataSource> shardRecorders = new LinkedHashMap<>();

	final Topology topology = new Topology();

	final Router router;

	final ShardMultiTenantConnectionProvider provider;

	final DirectoryAdmin admin;

	final SessionFactory sessions;

	HostileH2Cluster() {
		this.directoryPool = pool("directory");
		ShardTenancyMigrations.migrateDirectory(this.directoryPool);
		this.directoryRecorder = RecordingDataSource.wrap(this.directoryPool);
		this.directory = new Directory(this.directoryRecorder.dataSource());
		for (String id : SHARDS) {
			HikariDataSource pool = pool(id);
			ShardTenancyMigrations.migrateShard(pool, id, List.of(ShardTenancyFixture.CHANGELOG));
			RecordingDataSource recorder = RecordingDataSource.wrap(pool);
			Topology.Shard shard = this.topology.addShard(id, recorder.dataSource());
			try (Connection c = pool.getConnection()) {
				for (TenantTable table : ShardTenancyFixture.TABLES) {
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn());
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			this.shardPools.put(id, pool);
			this.shardRecorders.put(id, recorder);
		}
		// No background sync during the tests: every directory read the recorders see is one the test caused.
		this.router = new Router(this.directory,
				RouterSettings.defaults().withSyncInterval(java.time.Duration.ofHours(1)));
		this.router.start();
		this.provider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
		Mover mover = new Mover(this.directory, this.router, this.topology, ShardTenancyFixture.TABLES,
				"hostile-mover", Runnable::run);
		this.admin = new DirectoryAdmin(this.directory, this.router, this.topology, mover, MoveSettings.stopTheWorld(),
				"hostile-admin");
		Configuration configuration = new Configuration().addAnnotatedClass(Note.class);
		configuration.getProperties().put("hibernate.multi_tenant_connection_provider", this.provider);
		configuration.getProperties().put("hibernate.tenant_identifier_resolver", new TenantIdentifierResolver());
		configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
		configuration.setProperty("hibernate.boot.allow_jdbc_metadata_access", "false");
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		configuration.setProperty("hibernate.connection.handling_mode",
				"DELAYED_ACQUISITION_AND_RELEASE_AFTER_TRANSACTION");
		this.sessions = configuration.buildSessionFactory();
	}

	private HikariDataSource pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(database));
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(2_000);
		config.setPoolName(this.name + "-" + database);
		return new HikariDataSource(config);
	}

	private String url(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	/** Forgets what every recorder recorded. */
	void clearRecorders() {
		this.directoryRecorder.clear();
		this.shardRecorders.values().forEach(RecordingDataSource::clear);
	}

	/** @return every SQL text the library sent to any database since {@link #clearRecorders()} */
	List<String> recordedStatements() {
		List<String> all = new java.util.ArrayList<>(this.directoryRecorder.statements());
		this.shardRecorders.values().forEach(r -> all.addAll(r.statements()));
		return all;
	}

	/** @return connections the library borrowed from any database since {@link #clearRecorders()} */
	long recordedBorrows() {
		return this.directoryRecorder.borrows()
				+ this.shardRecorders.values().stream().mapToLong(RecordingDataSource::borrows).sum();
	}

	@Override
	public void close() {
		this.sessions.close();
		this.router.close();
		this.topology.close();
		this.shardPools.values().forEach(HikariDataSource::close);
		this.directoryPool.close();
		for (String database : List.of("directory", "shard-1", "shard-2")) {
			try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
	}

}
