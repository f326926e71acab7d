package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.AtomicReferenceWriteScenarios;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link AtomicReferenceWriteScenarios} on embedded PostgreSQL with {@code max_prepared_transactions} above 0, so that
 * each shard's part of a reference write is a prepared transaction (two-phase commit): the directory and shard-1 on
 * one server, shard-2 on a second server the tests stop and start. And an instance closed in the middle of a write:
 * the prepared transaction it leaves is rolled back by the next write, which it does not block.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Reference writes on PostgreSQL: every shard or none, by two-phase commit")
class PostgresAtomicReferenceWriteTest extends AtomicReferenceWriteScenarios {

	private ScratchPostgres first;

	private ScratchPostgres second;

	private final AtomicInteger databases = new AtomicInteger();

	private HikariDataSource directory;

	private HikariDataSource shard1;

	private HikariDataSource shard2;

	@BeforeAll
	void servers() {
		this.first = ScratchPostgres.start("atomic-1");
		this.second = ScratchPostgres.start("atomic-2");
	}

	@AfterAll
	void stopServers() {
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
	}

	@Override
	protected DataSource directory() {
		try {
			this.directory = this.first.createDatabase("directory_" + this.databases.incrementAndGet(), 4);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return this.directory;
	}

	@Override
	protected DataSource shard(String shardId) {
		try {
			if (shardId.equals("shard-1")) {
				this.shard1 = this.first.createDatabase("shard1_" + this.databases.incrementAndGet(), 6);
				return this.shard1;
			}
			String database = "shard2_" + this.databases.incrementAndGet();
			this.second.createDatabase(database, 1).close();
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.second.server().jdbcUrl().replace("/postgres", "/" + database));
			config.setUsername(this.second.server().user());
			config.setPassword(this.second.server().password());
			config.setMaximumPoolSize(6);
			config.setConnectionTimeout(1_000);
			config.setInitializationFailTimeout(-1);
			this.shard2 = new HikariDataSource(config);
			return this.shard2;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	protected String hibernateDialect() {
		return "org.hibernate.dialect.PostgreSQLDialect";
	}

	@Override
	protected void stopShard2() {
		this.second.server().stop();
	}

	@Override
	protected void startShard2() {
		this.second.server().start();
		this.shard2.getHikariPoolMXBean().softEvictConnections(); // connections the stop broke
		awaitAccepting(this.shard2);
	}

	@Override
	protected void closeDatabases() {
		if (this.shard2 != null) {
			this.shard2.close();
		}
	}

	@Override
	protected int preparedLeft() throws SQLException {
		return prepared(this.shard1) + prepared(this.shard2);
	}

	@Test
	@DisplayName("an instance closed in the middle of a write leaves a prepared transaction; the next write rolls "
			+ "it back and is not blocked")
	void instanceClosedMidWrite() throws Exception {
		HikariDataSource directoryB = new HikariDataSource(ScratchPostgres.configLike(this.directory, 2));
		HikariDataSource shard1B = new HikariDataSource(ScratchPostgres.configLike(this.shard1, 2));
		HikariConfig config2 = ScratchPostgres.configLike(this.shard2, 2);
		config2.setConnectionTimeout(1_000);
		HikariDataSource shard2B = new HikariDataSource(config2);
		ShardTenancy other = ShardTenancy.builder()
			.directory((DataSource) directoryB)
			.shard("shard-1", (DataSource) shard1B)
			.shard("shard-2", (DataSource) shard2B)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(() -> List.of("pet_type"))
			.actor("closed-mid-write@test")
			.build();
		other.start();
		CompletableFuture<Long> write;
		try (Connection lock = this.shard2.getConnection(); Connection observer = this.shard2.getConnection()) {
			// Shard-2's version row is locked: the other instance prepares shard-1, then waits on shard-2.
			lock.setAutoCommit(false);
			try (Statement s = lock.createStatement()) {
				s.executeQuery("SELECT version FROM shard_reference_version WHERE id = 1 FOR UPDATE").close();
			}
			write = CompletableFuture.supplyAsync(() -> other.referenceTables()
				.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 9, "fish"))));
			await().atMost(Duration.ofSeconds(30)).until(() -> ScratchPostgres.sessionsWaitingForLock(observer) > 0);
			assertThat(prepared(this.shard1)).as("shard-1's part, prepared").isEqualTo(1);

			// The instance is closed mid-write: its pools abort their connections.
			other.close();
			directoryB.close();
			shard1B.close();
			shard2B.close();
			lock.rollback();
		}
		assertThat(write).failsWithin(30, TimeUnit.SECONDS);
		assertThat(prepared(this.shard1)).as("the interrupted write's part, left prepared").isEqualTo(1);

		long version = CompletableFuture.supplyAsync(() -> write("INSERT INTO pet_type (id, name) VALUES (?, ?)", 10,
				"bird")).get(30, TimeUnit.SECONDS);

		assertThat(preparedLeft()).isZero();
		assertThat(names("shard-1")).containsExactly("cat", "dog", "bird");
		assertThat(names("shard-2")).containsExactly("cat", "dog", "bird");
		assertThat(tenancy().referenceTables().verify().shardVersions()).containsEntry("shard-1", version)
			.containsEntry("shard-2", version);
	}

	/** Waits until the restarted server accepts connections (it may still be starting up). */
	static void awaitAccepting(DataSource dataSource) {
		await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
			try (Connection c = dataSource.getConnection()) {
				return c.isValid(1);
			}
		});
	}

	private static int prepared(DataSource shard) throws SQLException {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM pg_prepared_xacts WHERE database = "
						+ "current_database()");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getInt(1);
		}
	}

}
