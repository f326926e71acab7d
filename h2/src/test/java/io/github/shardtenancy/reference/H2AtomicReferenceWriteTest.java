package io.github.shardtenancy.reference;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.reference.AtomicReferenceWriteScenarios;
import org.h2.tools.Server;
import org.junit.jupiter.api.DisplayName;

/**
 * {@link AtomicReferenceWriteScenarios} on H2, which keeps no prepared transactions: each shard's transaction is held
 * open until the directory records the write. Shard-2 is served by an H2 TCP server over files, so that stopping the
 * server takes the shard down for real and its data survives.
 */
@DisplayName("Reference writes on H2: every shard or none")
class H2AtomicReferenceWriteTest extends AtomicReferenceWriteScenarios {

	private final String name = "atomic-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final List<String> urls = new ArrayList<>();

	private Server server;

	private int port;

	private String baseDir;

	private HikariDataSource shard2;

	@Override
	protected DataSource directory() {
		return pool("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
	}

	@Override
	protected DataSource shard(String shardId) {
		if (shardId.equals("shard-1")) {
			return pool("jdbc:h2:mem:" + this.name + "-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		}
		try {
			this.baseDir = Files.createTempDirectory("h2-atomic").toString();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		startShard2();
		this.port = this.server.getPort();
		this.shard2 = (HikariDataSource) pool("jdbc:h2:tcp://localhost:" + this.port + "/" + this.name
				+ "-shard-2;LOCK_TIMEOUT=10000");
		return this.shard2;
	}

	@Override
	protected String hibernateDialect() {
		return "org.hibernate.dialect.H2Dialect";
	}

	@Override
	protected void stopShard2() {
		this.server.stop();
	}

	@Override
	protected void startShard2() {
		try {
			this.server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists", "-baseDir",
					this.baseDir).start();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		if (this.shard2 != null) {
			this.shard2.getHikariPoolMXBean().softEvictConnections(); // connections the stop broke
		}
	}

	/**
	 * H2's foreign keys do not lock the referenced row: a child inserted while its parent is deleted, in two
	 * transactions, can commit with the delete.
	 */
	@Override
	protected boolean foreignKeysLockParents() {
		return false;
	}

	@Override
	protected void closeDatabases() {
		this.pools.forEach(HikariDataSource::close);
		for (String url : this.urls) {
			try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
		if (this.server != null) {
			this.server.stop();
		}
	}

	private DataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(6);
		config.setConnectionTimeout(1_000);
		config.setInitializationFailTimeout(-1);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		if (url.startsWith("jdbc:h2:mem:")) {
			this.urls.add(url);
		}
		return pool;
	}

}
