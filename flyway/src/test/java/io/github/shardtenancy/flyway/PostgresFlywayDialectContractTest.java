package io.github.shardtenancy.flyway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import io.github.shardtenancy.testing.pg.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("PostgreSQL dialect: the fence contract on an embedded PostgreSQL shard migrated by Flyway")
class PostgresFlywayDialectContractTest extends DialectContractTests {

	private Path dataDirectory;

	private EmbeddedPostgresServer server;

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		try (ServerSocket socket = new ServerSocket(0)) {
			this.dataDirectory = Files.createTempDirectory("pg-flyway-contract");
			this.server = new EmbeddedPostgresServer("flyway-contract", this.dataDirectory, socket.getLocalPort());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.server.start();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.server.jdbcUrl());
		config.setUsername(this.server.user());
		config.setPassword(this.server.password());
		config.setMaximumPoolSize(10);
		config.setPoolName("pg-flyway-contract");
		this.pool = new HikariDataSource(config);
		return this.pool;
	}

	@Override
	protected void migrate(DataSource shard) {
		ShardTenancyFlyway.migrateShard(shard, SHARD_ID, List.of("classpath:db/flyway-contract"));
	}

	/** Sessions whose wait event is a heavyweight lock (a row lock wait shows as {@code transactionid} or {@code tuple}). */
	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		try (PreparedStatement ps = observer
			.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getInt(1);
		}
	}

	@AfterAll
	void stopServer() throws IOException {
		if (this.pool != null) {
			this.pool.close();
		}
		if (this.server != null) {
			this.server.stop();
		}
		if (this.dataDirectory != null) {
			try (Stream<Path> paths = Files.walk(this.dataDirectory)) {
				for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
					Files.deleteIfExists(path);
				}
			}
		}
	}

}
