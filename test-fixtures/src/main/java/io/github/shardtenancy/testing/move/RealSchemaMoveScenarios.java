package io.github.shardtenancy.testing.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An online move of a tenant whose table has what application schemas have and the library's own test schema has
 * not: a composite primary key {@code (tenant_id, series, seq)}, a binary column and a generated column, under writers
 * of the tenant that insert, update (a new binary value each time) and delete during the whole move. The catch-up
 * reads the changed keys in batches, the copy and the catch-up leave the generated column to the target database, the
 * verification compares the rows as each database writes them as text (never a Java {@code byte[]}'s identity), the
 * move is DONE, and every committed row is on the new owner exactly once with the value last committed and its
 * generated value, compared by the database. Subclasses give the databases.
 */
public abstract class RealSchemaMoveScenarios {

	private static final String TENANT = "acme";

	private ShardTenancy tenancy;

	/** @return a new, empty directory database */
	protected abstract DataSource directory();

	/**
	 * @param shardId the shard's id
	 * @return a new, empty shard database, its pool with at least 8 connections
	 */
	protected abstract DataSource shard(String shardId);

	/** @return the SQL type of the binary column ({@code bytea}, {@code VARBINARY(64)}) */
	protected abstract String binaryType();

	/**
	 * @return the definition of column {@code doubled}, which the database computes as {@code seq * 2} (PostgreSQL:
	 * {@code BIGINT GENERATED ALWAYS AS (seq * 2) STORED})
	 */
	protected abstract String generatedColumn();

	/** Closes what {@link #directory()} and {@link #shard(String)} opened. */
	protected abstract void closeDatabases();

	@BeforeEach
	void start() throws SQLException {
		DataSource directory = directory();
		DataSource shard1 = shard("shard-1");
		DataSource shard2 = shard("shard-2");
		ShardTenancyMigrations.migrateDirectory(directory);
		for (Map.Entry<String, DataSource> shard : Map.of("shard-1", shard1, "shard-2", shard2).entrySet()) {
			ShardTenancyMigrations.migrateShard(shard.getValue(), shard.getKey(), List.of());
			try (Connection c = shard.getValue().getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE reading (tenant_id VARCHAR(64) NOT NULL, series INT NOT NULL, seq BIGINT NOT "
						+ "NULL, payload " + binaryType() + ", doubled " + generatedColumn()
						+ ", PRIMARY KEY (tenant_id, series, seq))");
			}
		}
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(List.of(new TenantTable("reading", "tenant_id")))
			.actor("composite-key@test")
			.build();
		this.tenancy.start();
		this.tenancy.admin().create(TENANT, "shard-1");
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		closeDatabases();
	}

	@Test
	@DisplayName("online move under writers: composite key, binary values changed during the move, a generated "
			+ "column; DONE, every committed row once on the new owner with its last value")
	void movesUnderWriters() throws Exception {
		// What the writers committed: key "series/seq" -> the last payload, or NONE once deleted. Each writer has a
		// series of its own, so the order of its records is the order of its commits.
		Map<String, byte[]> committed = new ConcurrentHashMap<>();
		for (int series = 0; series < 4; series++) {
			for (long seq = 0; seq < 100; seq++) {
				write("INSERT INTO reading (tenant_id, series, seq, payload) VALUES (?, ?, ?, ?)", series, seq,
						payload(), committed);
			}
		}
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong nextSeq = new AtomicLong(1_000);
		AtomicInteger writes = new AtomicInteger();
		ExecutorService writers = Executors.newFixedThreadPool(3);
		List<Future<?>> futures = new ArrayList<>();
		for (int w = 0; w < 3; w++) {
			int series = w;
			futures.add(writers.submit(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				while (running.get()) {
					int op = random.nextInt(10);
					if (op < 6) {
						long seq = random.nextLong(100);
						write("UPDATE reading SET payload = ? WHERE tenant_id = ? AND series = ? AND seq = ?", series,
								seq, payload(), committed);
					}
					else if (op < 9) {
						write("INSERT INTO reading (tenant_id, series, seq, payload) VALUES (?, ?, ?, ?)", series,
								nextSeq.getAndIncrement(), payload(), committed);
					}
					else {
						write("DELETE FROM reading WHERE tenant_id = ? AND series = ? AND seq = ?", series,
								random.nextLong(100), null, committed);
					}
					writes.incrementAndGet();
					// About 300 writes a second per writer: a busy tenant, not a loop the catch-up could never drain.
					Thread.sleep(3);
				}
				return null;
			}));
		}
		MoveResult result;
		try {
			// The writers run before, during and after the copy.
			while (writes.get() < 200) {
				Thread.sleep(10);
			}
			result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults());
			int after = writes.get();
			while (writes.get() < after + 100) {
				Thread.sleep(10);
			}
		}
		finally {
			running.set(false);
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
			writers.shutdown();
		}
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(this.tenancy.router().route(TENANT).shardId()).isEqualTo("shard-2");
		DataSource owner = this.tenancy.topology().dataSource("shard-2");
		long live = committed.values().stream().filter((payload) -> payload != NONE).count();
		try (Connection c = owner.getConnection()) {
			try (PreparedStatement count = c
				.prepareStatement("SELECT COUNT(*) FROM reading WHERE tenant_id = ?")) {
				count.setString(1, TENANT);
				try (ResultSet rs = count.executeQuery()) {
					rs.next();
					assertThat(rs.getLong(1)).isEqualTo(live);
				}
			}
			try (PreparedStatement generated = c.prepareStatement("SELECT COUNT(*) FROM reading WHERE tenant_id = ? "
					+ "AND (doubled IS NULL OR doubled <> seq * 2)")) {
				generated.setString(1, TENANT);
				try (ResultSet rs = generated.executeQuery()) {
					rs.next();
					assertThat(rs.getLong(1)).as("rows whose generated column is not seq * 2").isZero();
				}
			}
			try (PreparedStatement same = c.prepareStatement("SELECT COUNT(*) FROM reading WHERE tenant_id = ? AND "
					+ "series = ? AND seq = ? AND payload = ?")) {
				for (Map.Entry<String, byte[]> row : committed.entrySet()) {
					if (row.getValue() == NONE) {
						continue;
					}
					String[] key = row.getKey().split("/");
					same.setString(1, TENANT);
					same.setInt(2, Integer.parseInt(key[0]));
					same.setLong(3, Long.parseLong(key[1]));
					same.setBytes(4, row.getValue());
					try (ResultSet rs = same.executeQuery()) {
						rs.next();
						assertThat(rs.getLong(1)).as("row %s on the new owner, with its last committed value",
								row.getKey()).isEqualTo(1);
					}
				}
			}
		}
	}

	private static byte[] payload() {
		byte[] bytes = new byte[16];
		ThreadLocalRandom.current().nextBytes(bytes);
		// A zero byte and a byte above 0x7f in every value: both sides must compare them as the database does.
		bytes[0] = 0;
		bytes[1] = (byte) 0xff;
		return bytes;
	}

	/**
	 * Runs one write of the tenant in a transaction of its own, again while the fence rejects it (40001: the move's
	 * freeze, a route that moved), and records what it committed.
	 */
	private void write(String sql, int series, long seq, byte[] payload, Map<String, byte[]> committed) {
		String key = series + "/" + seq;
		for (int attempt = 0;; attempt++) {
			try (TenantContext.Scope scope = TenantContext.bind(TENANT);
					Connection c = this.tenancy.dataSource().getConnection()) {
				c.setAutoCommit(false);
				int changed;
				try (PreparedStatement ps = c.prepareStatement(sql)) {
					int i = 1;
					if (sql.startsWith("UPDATE")) {
						ps.setBytes(i++, payload);
					}
					ps.setString(i++, TENANT);
					ps.setInt(i++, series);
					ps.setLong(i++, seq);
					if (sql.startsWith("INSERT")) {
						ps.setBytes(i, payload);
					}
					changed = ps.executeUpdate();
				}
				c.commit();
				if (changed == 1) {
					committed.put(key, sql.startsWith("DELETE") ? NONE : payload);
				}
				return;
			}
			catch (SQLException ex) {
				if (!"40001".equals(ex.getSQLState()) || attempt > 2_000) {
					throw new IllegalStateException(sql + " for " + key, ex);
				}
				try {
					Thread.sleep(2);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(interrupted);
				}
			}
		}
	}

	/** What a deleted key maps to in the record of committed writes. */
	private static final byte[] NONE = new byte[0];

}
